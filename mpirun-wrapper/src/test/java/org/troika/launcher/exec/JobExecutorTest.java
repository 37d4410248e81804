package org.troika.launcher.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.common.exec.LaunchPlan;
import org.troika.common.exec.PosixSignal;
import org.troika.common.exec.ProcessTable;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.BackendPlan;

/** Component tests with {@code sh} standing in for mpirun (the real mpirun runs in troika-it's tests). */
class JobExecutorTest {
    private static final String MARKER = "TROIKA_TEST_MARKER";
    private static final HostPlan HOSTS =
            HostPlan.assign("-H", List.of(new HostSlots("node1", 1), new HostSlots("node2", 1)), 2);
    private static final RunSettings SETTINGS = RunSettings.of(List.of("true"));

    private final String marker = UUID.randomUUID().toString();
    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    @TempDir
    Path tmp;

    @AfterEach
    void noSurvivors() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<ProcessHandle> left = ProcessTable.withEnv(MARKER, marker);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(100);
            left = ProcessTable.withEnv(MARKER, marker);
        }
        left.forEach(ProcessHandle::destroyForcibly); // ours: they carry this test's marker
        assertTrue(left.isEmpty(), "processes survived: " + left);
    }

    private BackendPlan plan(String script, Map<Path, String> files) {
        return new BackendPlan(new LaunchPlan(List.of("sh", "-c", script),
                Map.of("PATH", "/usr/bin:/bin", MARKER, marker)), files, List.of(), null);
    }

    private JobExecutor executor(BackendPlan plan) {
        return new JobExecutor(SupervisedLaunch.Spec.of(plan, HOSTS, out, err).withGrace(Duration.ofMillis(500)),
                SETTINGS);
    }

    private String out() {
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void forwardsTaggedOutputUntouchedAndReturnsZero() {
        int code = executor(plan("printf '[1,0]<stdout>:h\\303\\251llo\\n[1,1]<stdout>:x\\r\\n'; echo warn >&2", Map.of()))
                .run();
        assertEquals(0, code);
        assertEquals("[1,0]<stdout>:h\u00e9llo\n[1,1]<stdout>:x\r\n", out());
        assertEquals("warn\n", err());
    }

    @Test
    void namesTheFirstFailedRankAndReturnsTheLaunchersExitCode() {
        String fakeMpirun = "cat >&2 <<'X'\n"
                + "mpirun detected that one or more processes exited with non-zero status, thus causing\n"
                + "the job to be terminated. The first process to do so was:\n\n"
                + "  Process name: [[29432,1],1]\n  Exit code:    3\nX\nexit 3";
        assertEquals(3, executor(plan(fakeMpirun, Map.of())).run());
        assertTrue(err().endsWith("troika: rank 1 on host node2 failed first with exit code 3\n"), err());
    }

    /** srun exits with the highest task code (143 for the ranks it terminated); troika exits with the named rank's. */
    @Test
    void exitsWithTheNamedRanksCodeWhenTheLauncherReportsAnother() {
        String fakeSrun = "echo 'srun: error: node2: task 2: Exited with exit code 7' >&2\n"
                + "echo 'srun: error: node1: task 0: Terminated' >&2\nexit 143";
        assertEquals(7, executor(plan(fakeSrun, Map.of())).run());
        assertTrue(err().endsWith("troika: rank 2 on host node2 failed first with exit code 7\n"), err());
    }

    @Test
    void failureWithoutARankStillSaysWhatHappened() {
        assertEquals(7, executor(plan("exit 7", Map.of())).run());
        assertTrue(err().contains("exit code 7"), err());
    }

    @Test
    void planFilesExistOwnerOnlyDuringTheRunAndAreRemovedAfter() {
        Path f = tmp.resolve("job/hostfile");
        BackendPlan p = new BackendPlan(new LaunchPlan(
                List.of("sh", "-c", "stat -c %a \"$1\" \"$(dirname \"$1\")\"; cat \"$1\"", "sh", f.toString()),
                Map.of("PATH", "/usr/bin:/bin", MARKER, marker)), Map.of(f, "node1 slots=1\n"), List.of(), null);
        assertEquals(0, executor(p).run(), err());
        assertEquals("600\n700\nnode1 slots=1\n", out());
        assertFalse(Files.exists(f.getParent()));
    }

    @Test
    void signalForwardsThenKillsATreeThatIgnoresIt() throws Exception {
        JobExecutor job = executor(plan("trap '' INT TERM; sleep 300 & echo ready; while :; do sleep 1; done", Map.of()));
        CompletableFuture<Integer> result = CompletableFuture.supplyAsync(job::run);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!out().contains("ready") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(out().contains("ready"), "the job never started: " + err());
        job.onSignal(PosixSignal.INT);
        assertEquals(130, result.get(60, TimeUnit.SECONDS));
        assertTrue(err().contains("stopped by SIGINT"), err());
    }

    @Test
    void signalBeforeTheStartLaunchesNothing() {
        JobExecutor job = executor(plan("echo started", Map.of()));
        job.onSignal(PosixSignal.TERM);
        assertEquals(143, job.run());
        assertEquals("", out());
    }
}
