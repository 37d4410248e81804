package org.troika.launcher.elastic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.troika.launcher.spi.HostSlots;

/**
 * Real discovery scripts through {@link ScriptHostDiscovery#systemRunner}: bounded output, and nothing the script
 * started outlives the call.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ScriptHostDiscoveryRunnerTest {
    /** Generous on a shared machine, but far below the 60 s call timeout the tests give. */
    private static final long QUICK_MS = 20_000;

    @TempDir
    Path dir;

    private ScriptHostDiscovery discovery(String body, Duration timeout) throws Exception {
        Path script = dir.resolve("discover.sh");
        Files.writeString(script, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return new ScriptHostDiscovery(script, 1, ScriptHostDiscovery.systemRunner(
                Map.of("PATH", "/usr/bin:/bin", "D", dir.toString())), timeout);
    }

    private static long ms(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private static void assertGone(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Optional<ProcessHandle> h = ProcessHandle.of(pid);
        while (h.isPresent() && h.get().isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(50); // a killed child is reaped by init a moment later
            h = ProcessHandle.of(pid);
        }
        if (h.isPresent() && h.get().isAlive()) {
            h.get().destroyForcibly();
            throw new AssertionError("the script's child " + pid + " outlived the discovery call");
        }
    }

    @Test
    void backgroundChildrenOfTheScriptDoNotOutliveTheCall() throws Exception {
        ScriptHostDiscovery d = discovery("sleep 300 & echo $! > \"$D/plain.pid\"\n"
                + "(trap '' TERM HUP; exec sleep 301) >/dev/null 2>&1 </dev/null & echo $! > \"$D/deaf.pid\"\n"
                + "echo a:2", Duration.ofSeconds(60));
        long start = System.nanoTime();
        assertEquals(List.of(new HostSlots("a", 2)), d.discover());
        assertTrue(ms(start) < QUICK_MS, "took " + ms(start) + " ms");
        assertGone(Long.parseLong(Files.readString(dir.resolve("plain.pid")).strip()));
        assertGone(Long.parseLong(Files.readString(dir.resolve("deaf.pid")).strip()));
    }

    @Test
    void aTwentyMegabyteLineEndsTheScriptAtOnce() throws Exception {
        ScriptHostDiscovery d = discovery("head -c 20000000 /dev/zero | tr '\\000' a; echo; echo b:1",
                Duration.ofSeconds(60));
        long start = System.nanoTime();
        String msg = assertThrows(HostDiscoveryException.class, d::discover).getMessage();
        assertTrue(msg.endsWith("printed a line longer than 1024 characters; print one host[:slots] per line"), msg);
        assertTrue(ms(start) < QUICK_MS, "took " + ms(start) + " ms");
    }

    @Test
    void endlessOutputWithoutNewlineIsBounded() throws Exception {
        ScriptHostDiscovery d = discovery("cat /dev/zero", Duration.ofSeconds(60));
        long start = System.nanoTime();
        String msg = assertThrows(HostDiscoveryException.class, d::discover).getMessage();
        assertTrue(msg.contains("printed a line longer than 1024 characters"), msg);
        assertTrue(ms(start) < QUICK_MS, "took " + ms(start) + " ms");
    }

    @Test
    void tooManyLinesOrCharactersAreRefused() throws Exception {
        String lines = assertThrows(HostDiscoveryException.class,
                discovery("yes a:1 | head -n 200000", Duration.ofSeconds(60))::discover).getMessage();
        assertTrue(lines.contains("printed more than 100000 lines"), lines);
        String chars = assertThrows(HostDiscoveryException.class,
                discovery("yes " + "x".repeat(1000) + " | head -n 5000", Duration.ofSeconds(60))::discover)
                .getMessage();
        assertTrue(chars.contains("printed more than 4194304 characters"), chars);
    }

    @Test
    void aHungScriptTimesOutAndIsEnded() throws Exception {
        ScriptHostDiscovery d = discovery("echo $$ > \"$D/self.pid\"; exec sleep 300", Duration.ofSeconds(1));
        long start = System.nanoTime();
        String msg = assertThrows(HostDiscoveryException.class, d::discover).getMessage();
        assertTrue(msg.endsWith("timed out after 1 s"), msg);
        assertTrue(ms(start) < QUICK_MS, "took " + ms(start) + " ms");
        assertGone(Long.parseLong(Files.readString(dir.resolve("self.pid")).strip()));
    }

    @Test
    void failuresShowTheOutputEscapedOnOneLine() throws Exception {
        String msg = assertThrows(HostDiscoveryException.class,
                discovery("printf 'inventory \\033[31mdown\\n  retry\\n' >&2; exit 3", Duration.ofSeconds(60))::discover)
                .getMessage();
        assertTrue(msg.endsWith("exited with code 3: inventory \\x1b[31mdown | retry"), msg);
        assertFalse(msg.contains("\n") || msg.contains("\u001b"), msg);
    }
}
