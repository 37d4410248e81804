package org.troika.common.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
            // sh, two sleeps and the guard carry the marker
            List<ProcessHandle> tree = ProcessTable.withEnv(ProcessSupervisorTest.MARKER, marker);
            assertTrue(tree.size() >= 3, "expected the supervised tree, found " + tree.size());
            jvm.destroyForcibly(); // SIGKILL: no shutdown hooks, no finally blocks
            assertTrue(jvm.waitFor(60, TimeUnit.SECONDS));
            assertEquals(137, jvm.exitValue());
        } finally {
            jvm.destroyForcibly();
            ProcessSupervisorTest.assertNoSurvivors(marker);
        }
    }
}
