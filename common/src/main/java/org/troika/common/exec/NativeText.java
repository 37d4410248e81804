package org.troika.common.exec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The operating system's bytes (arguments, environment variables, a remote command line) as Java strings, without
 * loss, whatever the locale.
 *
 * <p>The JVM decodes {@code main}'s arguments and {@code System.getenv()} with the locale's charset
 * ({@code sun.jnu.encoding}) and replaces what does not decode with U+FFFD (under {@code LANG=C} every byte above
 * 127). Here bytes are decoded with the same charset, but a byte that does not decode becomes the lone surrogate
 * U+DC00 + byte (PEP 383's "surrogateescape"); {@link #encode} turns it back into that byte. Valid text therefore
 * gives exactly the strings the JVM gives, and any other bytes survive the round trip. {@link ExactExec} hands such
 * strings to child processes byte for byte.
 *
 * <p>A character the native charset cannot encode that is not an escape (text troika made, or read from a UTF-8
 * file, under {@code LANG=C}) is encoded as UTF-8.
 *
 * <p>The decoded forms of {@code main}'s arguments and of the environment come from {@code /proc/self/cmdline} and
 * {@code /proc/self/environ}; where those cannot be read, the JVM's own (lossy) values are used.
 */
public final class NativeText {
    /** The charset of this JVM's file names, arguments and environment. */
    public static final Charset CHARSET = nativeCharset();

    private static final int ESCAPE_BASE = 0xDC00;

    private NativeText() {}

    private static Charset nativeCharset() {
        try {
            return Charset.forName(System.getProperty("sun.jnu.encoding", Charset.defaultCharset().name()));
        } catch (IllegalArgumentException e) {
            return Charset.defaultCharset();
        }
    }

    /** {@code bytes} decoded with {@link #CHARSET}; bytes that do not decode become escapes (see the class comment). */
    public static String decode(byte[] bytes) {
        return decode(bytes, CHARSET);
    }

    /** {@code bytes} decoded losslessly with {@code charset} (for tests of other locales). */
    public static String decode(byte[] bytes, Charset charset) {
        if (isAscii(bytes) && asciiCompatible(charset)) {
            return new String(bytes, StandardCharsets.ISO_8859_1);
        }
        CharsetDecoder d = charset.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length + 16);
        while (true) {
            CoderResult r = d.decode(in, out, true);
            if (r.isUnderflow()) {
                r = d.flush(out);
            }
            if (r.isUnderflow()) {
                break;
            }
            if (r.isOverflow() || out.remaining() < r.length()) {
                out = grow(out);
                continue;
            }
            for (int i = 0; i < r.length(); i++) {
                out.put((char) (ESCAPE_BASE | (in.get() & 0xff)));
            }
        }
        out.flip();
        return out.toString();
    }

    /** The bytes {@code s} stands for: the inverse of {@link #decode(byte[])}. */
    public static byte[] encode(String s) {
        return encode(s, CHARSET);
    }

    /** The bytes {@code s} stands for in {@code charset} (for tests of other locales). */
    public static byte[] encode(String s, Charset charset) {
        if (isAscii(s) && asciiCompatible(charset)) {
            return s.getBytes(StandardCharsets.ISO_8859_1);
        }
        CharsetEncoder e = charset.newEncoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        CharBuffer in = CharBuffer.wrap(s);
        ByteBuffer out = ByteBuffer.allocate(s.length() * 2 + 16);
        while (true) {
            CoderResult r = e.encode(in, out, true);
            if (r.isUnderflow()) {
                r = e.flush(out);
            }
            if (r.isUnderflow()) {
                break;
            }
            if (r.isOverflow() || out.remaining() < 4 * r.length()) {
                out = grow(out);
                continue;
            }
            for (int i = 0; i < r.length(); i++) {
                char c = in.get();
                if (isEscape(c)) {
                    out.put((byte) c);
                } else if (Character.isHighSurrogate(c) && i + 1 < r.length()) {
                    out.put(new String(new char[] {c, in.get()}).getBytes(StandardCharsets.UTF_8));
                    i++;
                } else {
                    out.put(String.valueOf(c).getBytes(StandardCharsets.UTF_8)); // a lone surrogate gives '?'
                }
            }
        }
        return Arrays.copyOf(out.array(), out.position());
    }

    /** Whether {@code c} is the escape of one undecodable byte. */
    public static boolean isEscape(char c) {
        return c >= ESCAPE_BASE && c <= ESCAPE_BASE + 0xff;
    }

    /** The byte an escape stands for (see {@link #isEscape}). */
    public static int escapedByte(char c) {
        return c & 0xff;
    }

    /**
     * {@code main}'s arguments, decoded losslessly from {@code /proc/self/cmdline} (its last {@code args.length}
     * words); {@code args} itself where that file cannot be read or does not match.
     */
    public static List<String> arguments(String[] args) {
        try {
            return arguments(args, Files.readAllBytes(Path.of("/proc/self/cmdline")));
        } catch (IOException | SecurityException e) {
            return List.of(args);
        }
    }

    /** {@link #arguments(String[])} from the given {@code cmdline} bytes (NUL-terminated words). */
    static List<String> arguments(String[] args, byte[] cmdline) {
        List<byte[]> words = split(cmdline);
        if (words.size() < args.length) {
            return List.of(args);
        }
        List<String> out = new ArrayList<>(args.length);
        List<byte[]> tail = words.subList(words.size() - args.length, words.size());
        for (int i = 0; i < args.length; i++) {
            String exact = decode(tail.get(i));
            if (!asciiPart(exact).equals(asciiPart(args[i]))) {
                return List.of(args); // not our argv (a launcher rewrote it): keep the JVM's
            }
            out.add(exact);
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * The process environment, decoded losslessly from {@code /proc/self/environ}; {@code System.getenv()} where that
     * cannot be read. The first of two entries with one name wins, as with {@code getenv(3)}.
     */
    public static Map<String, String> environment() {
        try {
            return environment(Files.readAllBytes(Path.of("/proc/self/environ")));
        } catch (IOException | SecurityException e) {
            return System.getenv();
        }
    }

    /** {@link #environment()} from the given {@code environ} bytes (NUL-terminated {@code NAME=VALUE} entries). */
    static Map<String, String> environment(byte[] environ) {
        Map<String, String> env = new LinkedHashMap<>();
        for (byte[] entry : split(environ)) {
            int eq = indexOf(entry, (byte) '=');
            if (eq > 0) {
                env.putIfAbsent(decode(Arrays.copyOfRange(entry, 0, eq)),
                        decode(Arrays.copyOfRange(entry, eq + 1, entry.length)));
            }
        }
        return Collections.unmodifiableMap(env);
    }

    private static List<byte[]> split(byte[] nulTerminated) {
        List<byte[]> words = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < nulTerminated.length; i++) {
            if (nulTerminated[i] == 0) {
                words.add(Arrays.copyOfRange(nulTerminated, start, i));
                start = i + 1;
            }
        }
        if (start < nulTerminated.length) {
            words.add(Arrays.copyOfRange(nulTerminated, start, nulTerminated.length));
        }
        return words;
    }

    private static int indexOf(byte[] b, byte v) {
        for (int i = 0; i < b.length; i++) {
            if (b[i] == v) {
                return i;
            }
        }
        return -1;
    }

    /** The ASCII characters of {@code s}: what the JVM's lossy decoding and the exact one agree on. */
    private static String asciiPart(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < 0x80) {
                b.append(s.charAt(i));
            }
        }
        return b.toString();
    }

    private static boolean asciiCompatible(Charset c) {
        return c.equals(StandardCharsets.UTF_8) || c.equals(StandardCharsets.US_ASCII)
                || c.equals(StandardCharsets.ISO_8859_1);
    }

    static boolean isAscii(byte[] b) {
        for (byte x : b) {
            if (x < 0) {
                return false;
            }
        }
        return true;
    }

    static boolean isAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    private static CharBuffer grow(CharBuffer b) {
        CharBuffer n = CharBuffer.allocate(b.capacity() * 2 + 16);
        b.flip();
        return n.put(b);
    }

    private static ByteBuffer grow(ByteBuffer b) {
        ByteBuffer n = ByteBuffer.allocate(b.capacity() * 2 + 16);
        b.flip();
        return n.put(b);
    }
}
