package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.testkit.KeyDirectoryHolder;
import org.troika.testkit.MachineLock;
import org.troika.testkit.MpiJob;
import org.troika.testkit.Requires;

/**
 * Issue 22, item 7: the stale-directory sweep never removes another live job's key directory, whatever its PID
 * namespace. A troika in another PID namespace sharing {@code /tmp} removed a running job's key directory: the owner's
 * pid was invisible there, so the sweep took it for dead. The sweep now asks the owner's lock, which the kernel
 * keeps the same in every namespace and drops when the owner dies.
 */
@Tag("integration")
class KeyDirectoryTest {
    @TempDir
    Path tmp;

    private static List<String> java(String mode, Path parent) {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                MpiJob.testClassPath(), KeyDirectoryHolder.class.getName(), mode, parent.toString());
    }

    /** Runs the sweep once, in a new PID namespace with its own /proc, sharing this file system. */
    private static String sweepInAnotherPidNamespace(Path parent) throws Exception {
        List<String> argv = new ArrayList<>(List.of("unshare", "--pid", "--fork", "--mount-proc"));
        argv.addAll(java("sweep", parent));
        Process p = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the sweep did not end");
        String out = new String(p.getInputStream().readAllBytes()).strip();
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    @Test
    void aSweepInAnotherPidNamespaceKeepsALiveOwnersDirectoryAndRemovesADeadOnes() throws Exception {
        Requires.root();
        Requires.command("unshare");
        try (MachineLock lock = MachineLock.take("pid-namespaces")) {
            Process owner = new ProcessBuilder(java("make", tmp)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            try {
                Path dir = Path.of(new BufferedReader(new InputStreamReader(owner.getInputStream())).readLine());
                Files.writeString(dir.resolve("secret"), "in use");
                // the owner's pid does not exist in the sweep's namespace
                assertEquals("0", sweepInAnotherPidNamespace(tmp));
                assertTrue(Files.exists(dir.resolve("secret")), "a live job's key directory was removed");
                owner.destroyForcibly().waitFor(); // SIGKILL: no clean-up of its own
                assertEquals("1", sweepInAnotherPidNamespace(tmp));
                assertFalse(Files.exists(dir), "a dead owner's key directory survived");
            } finally {
                owner.destroyForcibly();
            }
        }
    }
}
