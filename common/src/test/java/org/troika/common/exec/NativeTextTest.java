package org.troika.common.exec;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Unit tests: lossless decoding under the two locales users have here (C and C.UTF-8), no processes. */
class NativeTextTest {
    private static final Charset ASCII = StandardCharsets.US_ASCII;
    private static final Charset UTF8 = StandardCharsets.UTF_8;

    static byte[] b(int... v) {
        byte[] r = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            r[i] = (byte) v[i];
        }
        return r;
    }

    @Test
    void validTextDecodesAsTheJvmDoesAndOtherBytesBecomeEscapes() {
        byte[] hello = "h\u00e9llo".getBytes(UTF8);
        assertAll(
                () -> assertEquals("h\u00e9llo", NativeText.decode(hello, UTF8)),
                () -> assertEquals("h\udcc3\udca9llo", NativeText.decode(hello, ASCII)),
                () -> assertEquals("caf\udce9", NativeText.decode(b('c', 'a', 'f', 0xe9), UTF8)),
                // a truncated sequence at the end and a surrogate spelled in UTF-8 are bytes, not text
                () -> assertEquals("x\udce2\udc82", NativeText.decode(b('x', 0xe2, 0x82), UTF8)),
                () -> assertEquals("\udced\udcb2\udc80", NativeText.decode(b(0xed, 0xb2, 0x80), UTF8)),
                () -> assertEquals("plain", NativeText.decode("plain".getBytes(ASCII), ASCII)));
    }

    @Test
    void everyByteStringRoundTripsInBothLocales() {
        Random r = new Random(22);
        for (Charset c : List.of(ASCII, UTF8, StandardCharsets.ISO_8859_1)) {
            for (int i = 0; i < 2000; i++) {
                byte[] bytes = new byte[r.nextInt(40)];
                r.nextBytes(bytes);
                if (i % 3 == 0) { // mostly valid UTF-8 with a few stray bytes
                    bytes = ("a\u00e9\u20ac\ud83d\ude00" + i).getBytes(UTF8);
                    bytes[r.nextInt(bytes.length)] = (byte) (0x80 + r.nextInt(128));
                }
                assertArrayEquals(bytes, NativeText.encode(NativeText.decode(bytes, c), c), c + " " + i);
            }
        }
    }

    @Test
    void textTheCharsetCannotEncodeIsWrittenAsUtf8() {
        assertArrayEquals("\u00e9\ud83d\ude00".getBytes(UTF8), NativeText.encode("\u00e9\ud83d\ude00", ASCII));
        assertArrayEquals(b('a', 0xff, 'b'), NativeText.encode("a\udcffb", UTF8));
    }

    @Test
    void argumentsAreTheLastWordsOfTheCommandLine() {
        ByteArrayOutputStream cmdline = new ByteArrayOutputStream();
        for (byte[] w : List.of("java".getBytes(), "-cp".getBytes(), "x".getBytes(), "Main".getBytes(),
                "run".getBytes(), b('h', 0xc3, 0xa9), b('c', 0xe9, 0xff))) {
            cmdline.writeBytes(w);
            cmdline.write(0);
        }
        // what the JVM made of them under LANG=C: U+FFFD for each byte above 127
        String[] lossy = {"run", "h\ufffd\ufffd", "c\ufffd\ufffd"};
        List<String> exact = NativeText.arguments(lossy, cmdline.toByteArray());
        assertEquals(3, exact.size());
        assertEquals("run", exact.get(0));
        assertArrayEquals(b('h', 0xc3, 0xa9), NativeText.encode(exact.get(1)));
        assertArrayEquals(b('c', 0xe9, 0xff), NativeText.encode(exact.get(2)));
        // words that do not match (a launcher rewrote argv) leave the JVM's
        assertEquals(List.of("other"), NativeText.arguments(new String[] {"other"}, cmdline.toByteArray()));
        assertEquals(List.of(), NativeText.arguments(new String[0], cmdline.toByteArray()));
    }

    @Test
    void environmentKeepsEveryValueAndTheFirstOfTwoNames() {
        ByteArrayOutputStream environ = new ByteArrayOutputStream();
        for (byte[] e : List.of("A=1".getBytes(), b('V', '=', 'x', 0xe9, 0xff), "EQ=a=b".getBytes(),
                "A=2".getBytes(), "NOEQUALS".getBytes(), "E=".getBytes())) {
            environ.writeBytes(e);
            environ.write(0);
        }
        Map<String, String> env = NativeText.environment(environ.toByteArray());
        assertEquals(List.of("A", "V", "EQ", "E"), List.copyOf(env.keySet()));
        assertEquals("1", env.get("A"));
        assertEquals("a=b", env.get("EQ"));
        assertEquals("", env.get("E"));
        assertArrayEquals(b('x', 0xe9, 0xff), NativeText.encode(env.get("V")));
    }

    @Test
    void thisProcessEnvironmentMatchesTheJvmsForValidText() {
        Map<String, String> env = NativeText.environment();
        assertTrue(env.containsKey("PATH"));
        assertEquals(System.getenv("PATH"), env.get("PATH"));
    }
}
