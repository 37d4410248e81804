package org.troika.common.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code kill -9} of a supervising JVM leaves no survivors: the guard tears the group down. */
class ParentDeathTest {
    @Test
    void killMinus9OfTheSupervisingJvmLeavesNoSurvivors() throws Exception {
        killAndCheck("group");
    }

    @Test
    void killMinus9LeavesNoSurvivorEvenOfAChildThatLeftTheSession() throws Exception {
        killAndCheck("daemon");
    }

    @Test
    void killMinus9AfterThePlanLeftADaemonEndsTheDaemon() throws Exception {
        // the plan has exited and the guard waits in its loop for the daemon it left (pid and start time kept, no
        // scan of /proc a round): the JVM's death must still end it
        killAndCheck("detached");
    }

    /** Whether one of {@code processes} has {@code text} in its command line. */
    private static boolean anyRuns(List<ProcessHandle> processes, String text) {
        return processes.stream().anyMatch(h -> h.info().commandLine().orElse("").contains(text));
    }

    private static void killAndCheck(String mode) throws Exception {
        String marker = UUID.randomUUID().toString();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process jvm = new ProcessBuilder(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), GuardedChildMain.class.getName(), marker, mode)
                .redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .start();
        try {
            BufferedReader r = new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8));
            String line = CompletableFuture.supplyAsync(() -> {
                try {
                    return r.readLine();
                } catch (java.io.IOException e) {
                    return "read failed: " + e;
                }
            }).get(120, TimeUnit.SECONDS);
            assertEquals("started", line, "the child JVM did not start its tree");
            // sh, two sleeps and the guard carry the marker; detached: the daemon and the guard, once sh has exited
            List<ProcessHandle> tree = ProcessTable.withEnv(ProcessSupervisorTest.MARKER, marker);
            if (mode.equals("detached")) {
                // wait for the plan's shell to end (the guard's own sleep and cat carry the marker too, so count no
                // total), then for the guard to be in its loop (a round is 2 s)
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (anyRuns(tree, "echo up") && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                    tree = ProcessTable.withEnv(ProcessSupervisorTest.MARKER, marker);
                }
                Thread.sleep(2500);
                tree = ProcessTable.withEnv(ProcessSupervisorTest.MARKER, marker);
                assertFalse(anyRuns(tree, "echo up"), "the plan did not end: " + tree);
                assertTrue(anyRuns(tree, "sleep 301"), "the daemon is not running: " + tree);
            }
            assertTrue(tree.size() >= (mode.equals("detached") ? 2 : 3), "expected the supervised tree: " + tree);
            jvm.destroyForcibly(); // SIGKILL: no shutdown hooks, no finally blocks
            assertTrue(jvm.waitFor(60, TimeUnit.SECONDS));
            assertEquals(137, jvm.exitValue());
        } finally {
            jvm.destroyForcibly();
            ProcessSupervisorTest.assertNoSurvivors(marker);
        }
    }
}
