package org.troika.common.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The decoder plan as data, then run for real: bytes a JVM under LANG=C could not pass reach {@code sh}. */
class ExactExecTest {
    /** What a JVM under {@code LANG=C} does: decodes and encodes with US-ASCII. */
    private static final ExactExec C_LOCALE = new ExactExec(StandardCharsets.US_ASCII,
            List.of(StandardCharsets.US_ASCII), "/usr/bin/env");
    private static final ExactExec UTF8_LOCALE = new ExactExec(StandardCharsets.UTF_8,
            List.of(StandardCharsets.UTF_8), "/usr/bin/env");

    private static String exact(Charset c, int... bytes) {
        return NativeText.decode(NativeTextTest.b(bytes), c);
    }

    @Test
    void aPlanThatPassesAsItIsIsReturnedUnchanged() {
        LaunchPlan plan = new LaunchPlan(List.of("echo", "h\u00e9llo", "a\\b"), Map.of("V", "\u00e9"));
        assertSame(plan, UTF8_LOCALE.plan(plan));
        LaunchPlan ascii = new LaunchPlan(List.of("echo", "a\\b"), Map.of("V", "x"));
        assertSame(ascii, C_LOCALE.plan(ascii));
    }

    @Test
    void wordsThatDoNotPassAreEscapedForTheDecoder() {
        LaunchPlan plan = new LaunchPlan(List.of("echo", "h\u00e9llo", "a\\b"), Map.of("PATH", "/bin"));
        LaunchPlan exact = C_LOCALE.plan(plan);
        assertEquals(List.of("/bin/sh", "-c", ExactExec.DECODE, "troika-exec", "echo", "h\\0303\\0251llo",
                "a\\0134b"), exact.argv());
        assertEquals(Map.of("PATH", "/bin"), exact.env());
    }

    @Test
    void variablesThatDoNotPassAreSetByEnv() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", "/usr/bin:/bin");
        env.put("V", exact(StandardCharsets.UTF_8, 'x', 0xe9));
        env.put("BASH_FUNC_f%%", exact(StandardCharsets.UTF_8, 0xff));
        LaunchPlan exact = UTF8_LOCALE.plan(new LaunchPlan(List.of("a=b"), env, Path.of("/tmp")));
        assertEquals(List.of("/bin/sh", "-c", ExactExec.DECODE, "troika-exec", "/usr/bin/env", "--",
                "BASH_FUNC_f%%=\\0377", "V=x\\0351", "/bin/sh", "-c", "exec \"$@\"", "troika-exec", "a=b"),
                exact.argv());
        assertEquals(Map.of("PATH", "/usr/bin:/bin"), exact.env());
        assertEquals(Path.of("/tmp"), exact.workDir());
    }

    @Test
    void theDecoderHandsEveryByteToTheProgram(@TempDir Path dir) throws Exception {
        List<String> args = new ArrayList<>();
        for (int i = 1; i < 256; i++) {
            args.add(exact(StandardCharsets.US_ASCII, 'a', i, 'z'));
        }
        args.add(exact(StandardCharsets.US_ASCII, 'e', 'n', 'd', '\n', '\n')); // trailing newlines survive
        args.add("\\c no stop");
        args.add("");
        Path out = dir.resolve("out");
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", "/usr/bin:/bin");
        env.put("OUT", out.toString());
        env.put("V", exact(StandardCharsets.US_ASCII, 0xc3, 0xa9, '\\', 0x80));
        // each argument and then V, NUL-terminated, into OUT
        List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c",
                "for a do printf '%s\\0' \"$a\"; done >\"$OUT\"; printf '%s\\0' \"$V\" >>\"$OUT\"", "prog"));
        argv.addAll(args);
        LaunchPlan exact = C_LOCALE.plan(new LaunchPlan(argv, env));
        run(exact);
        byte[] got = Files.readAllBytes(out);
        java.io.ByteArrayOutputStream want = new java.io.ByteArrayOutputStream();
        for (String a : args) {
            want.writeBytes(NativeText.encode(a, StandardCharsets.US_ASCII));
            want.write(0);
        }
        want.writeBytes(NativeTextTest.b(0xc3, 0xa9, '\\', 0x80, 0));
        assertArrayEquals(want.toByteArray(), got);
    }

    @Test
    void theExitStatusIsTheProgramsAndAProgramNamedWithEqualsRuns(@TempDir Path dir) throws Exception {
        Path prog = dir.resolve("a=b");
        Files.writeString(prog, "#!/bin/sh\nprintf %s \"$V\" >\"$0.out\"; exit 7\n");
        prog.toFile().setExecutable(true);
        LaunchPlan exact = C_LOCALE.plan(new LaunchPlan(List.of(prog.toString()),
                Map.of("PATH", "/usr/bin:/bin", "V", exact(StandardCharsets.US_ASCII, 0xfe))));
        assertEquals(7, run(exact));
        assertArrayEquals(NativeTextTest.b(0xfe), Files.readAllBytes(dir.resolve("a=b.out")));
    }

    private static int run(LaunchPlan plan) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(plan.argv()).inheritIO();
        pb.environment().clear();
        pb.environment().putAll(plan.env());
        return pb.start().waitFor();
    }
}
