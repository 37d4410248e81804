package org.troika.common.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.common.TroikaEnv;

/** Component tests: real {@code sh} children, found afterwards by a unique marker in their environment. */
class ProcessSupervisorTest {
    static final String MARKER = "TROIKA_TEST_MARKER";
    private final String marker = UUID.randomUUID().toString();
    private final List<String> out = Collections.synchronizedList(new ArrayList<>());
    private final List<String> err = Collections.synchronizedList(new ArrayList<>());
    private final CountDownLatch ready = new CountDownLatch(1);
    private ProcessSupervisor sup;

    @AfterEach
    void killLeftovers() throws InterruptedException {
        if (sup != null) {
            sup.close();
        }
        // only processes carrying this test's marker, i.e. started by this test
        assertNoSurvivors(marker);
    }

    /**
     * Shell that starts {@code command} in a session of its own, output away from the plan's pipes, and goes on only
     * once the child has left the plan's group (its session id is its pid; 10 s at most). A plan that exits right
     * after a plain {@code setsid cmd &} or {@code setsid -f} races the guard: its TERM to the group at the plan's end
     * reaches a child that has not called {@code setsid()} yet.
     */
    static String detached(String command) {
        return "setsid " + command + " </dev/null >/dev/null 2>&1 & p=$!; i=0; while [ $i -lt 1000 ]; do"
                + " read -r s </proc/$p/stat; set -- ${s##*) }; [ \"$4\" = \"$p\" ] && break;"
                + " sleep 0.01; i=$((i+1)); done; ";
    }

    /** Waits (generously) until no live process carries the marker; kills and fails if some remain. */
    static void assertNoSurvivors(String marker) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<ProcessHandle> left = ProcessTable.withEnv(MARKER, marker);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(100);
            left = ProcessTable.withEnv(MARKER, marker);
        }
        if (!left.isEmpty()) {
            List<String> info = new ArrayList<>();
            for (ProcessHandle h : left) {
                info.add(h.pid() + " " + h.info().commandLine().orElse("?"));
                h.destroyForcibly();
            }
            throw new AssertionError("processes survived: " + info);
        }
    }

    private Map<String, String> env() {
        Map<String, String> env = new HashMap<>();
        env.put("PATH", "/usr/bin:/bin");
        env.put(MARKER, marker);
        return env;
    }

    private ProcessSupervisor start(String script) throws IOException {
        return start(script, Duration.ofSeconds(1));
    }

    private ProcessSupervisor start(String script, Duration guardGrace) throws IOException {
        LineSink o = s -> {
            out.add(s);
            if (s.startsWith("ready")) {
                ready.countDown();
            }
        };
        sup = ProcessSupervisor.start(new LaunchPlan(List.of("sh", "-c", script), env()),
                ProcessSupervisor.Options.of(o, err::add).withGuardGrace(guardGrace));
        return sup;
    }

    private void awaitReady() throws InterruptedException {
        assertTrue(ready.await(60, TimeUnit.SECONDS), "child never printed 'ready'; stderr: " + err);
    }

    @Test
    void runsThePlanAsLeaderOfItsOwnSessionAndGroup() throws Exception {
        start("echo ready; exec sleep 60");
        awaitReady();
        long[] gs = ProcessTable.groupAndSession(sup.pid());
        assertArrayEquals(new long[] {sup.pid(), sup.pid()}, gs);
        long[] mine = ProcessTable.groupAndSession(ProcessHandle.current().pid());
        assertTrue(mine[1] != gs[1], "the child must not share the JVM's session");
    }

    @Test
    void withoutTheGuardThePlanStillLeadsItsOwnSessionAndCanBeTerminated() throws Exception {
        sup = ProcessSupervisor.start(new LaunchPlan(List.of("sh", "-c", "sleep 300 & echo ready; wait"), env()),
                ProcessSupervisor.Options.of(s -> {
                    out.add(s);
                    ready.countDown();
                }, err::add).withoutGuard());
        awaitReady();
        assertArrayEquals(new long[] {sup.pid(), sup.pid()}, ProcessTable.groupAndSession(sup.pid()));
        assertEquals(143, sup.terminate(Duration.ofSeconds(30)));
    }

    @Test
    void separatesStdoutAndStderrAndReturnsTheExitCode() throws Exception {
        start("echo one; echo two >&2; printf 'no newline'; exit 3");
        assertEquals(3, sup.waitFor());
        assertEquals(List.of("one\n", "no newline"), out);
        assertEquals(List.of("two\n"), err);
    }

    @Test
    void stdinIsDevNullByDefaultAndAFileOnRequest(@TempDir Path tmp) throws Exception {
        start("cat; echo done");
        assertEquals(0, sup.waitFor());
        assertEquals(List.of("done\n"), out);

        Path in = Files.writeString(tmp.resolve("in.txt"), "from file\n");
        ProcessSupervisor s2 = ProcessSupervisor.start(new LaunchPlan(List.of("cat"), env()),
                ProcessSupervisor.Options.of(out::add, err::add).withStdin(in));
        assertEquals(0, s2.waitFor());
        assertEquals(List.of("done\n", "from file\n"), out);
    }

    @Test
    void childSeesExactlyThePlanEnvironmentAndWorkDir(@TempDir Path tmp) throws Exception {
        Map<String, String> env = env();
        env.put("FOO", "b a r");
        sup = ProcessSupervisor.start(new LaunchPlan(List.of("env"), env, tmp),
                ProcessSupervisor.Options.of(out::add, err::add));
        assertEquals(0, sup.waitFor());
        List<String> names = out.stream().map(l -> l.substring(0, l.indexOf('='))).sorted().toList();
        assertTrue(out.contains("FOO=b a r\n"), out.toString());
        // sh may add PWD; nothing of the supervisor's own (guard script, grace) leaks into the child, only its tag
        assertTrue(List.of("FOO", "PATH", "PWD", MARKER, "TROIKA_COMMAND_TAG").containsAll(names), names.toString());
        assertTrue(out.contains("TROIKA_COMMAND_TAG=" + sup.tag() + "\n"), out.toString());
        assertTrue(out.contains("PWD=" + tmp + "\n") || !names.contains("PWD"), out.toString());

        ProcessSupervisor s2 = ProcessSupervisor.start(new LaunchPlan(List.of("pwd"), env, tmp),
                ProcessSupervisor.Options.of(out::add, err::add));
        assertEquals(0, s2.waitFor());
        assertEquals(tmp.toRealPath() + "\n", out.get(out.size() - 1));
    }

    @Test
    void deathBySignalIs128PlusTheSignal() throws Exception {
        start("kill -s KILL $$");
        assertEquals(137, sup.waitFor());
    }

    @Test
    void missingProgramExits127WithAMessage() throws Exception {
        sup = ProcessSupervisor.start(new LaunchPlan(List.of("/nonexistent/troika-nope"), env()),
                ProcessSupervisor.Options.of(out::add, err::add));
        assertEquals(127, sup.waitFor());
        assertTrue(String.join("", err).contains("troika-nope"), err.toString());
    }

    @Test
    void terminateSendsTermToTheWholeGroup() throws Exception {
        start("sleep 300 & sleep 300 & echo ready; wait");
        awaitReady();
        for (long pid : waitForSleeps(2)) {
            assertEquals(sup.pid(), ProcessTable.groupAndSession(pid)[0], "a child left the group");
        }
        assertEquals(143, sup.terminate(Duration.ofSeconds(30)));
    }

    @Test
    void programsThatIgnoreTermAreKilledAfterTheGrace() throws Exception {
        // the ignored disposition is inherited: the sleeps ignore TERM too
        start("trap '' TERM; sleep 300 & echo ready; while :; do sleep 1; done");
        awaitReady();
        assertEquals(137, sup.terminate(Duration.ofMillis(500)));
        assertFalse(sup.isAlive());
    }

    @Test
    void descendantsThatLeftTheGroupAreKilledToo() throws Exception {
        start("setsid sleep 300 & echo ready; wait");
        awaitReady();
        long escaped = waitForSleeps(1).get(0);
        assertTrue(ProcessTable.groupAndSession(escaped)[0] != sup.pid(), "the grandchild should be in its own group");
        sup.terminate(Duration.ofSeconds(5));
        // @AfterEach checks nothing with the marker is left
    }

    @Test
    void anInterruptedTerminateStillKillsDescendantsInOtherGroups() throws Exception {
        // mpirun puts each rank in its own process group; a watcher cancelled by interrupt must not leak them
        start("trap '' TERM; setsid sh -c 'trap \"\" TERM; exec sleep 300' & echo ready; wait");
        awaitReady();
        long escaped = waitForSleeps(1).get(0);
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> sup.terminate(Duration.ofSeconds(30)));
        assertFalse(Thread.currentThread().isInterrupted(), "the interrupt is reported by the exception, not left set");
        ProcessHandle h = ProcessHandle.of(escaped).orElse(null);
        if (h != null) {
            h.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
        }
        // @AfterEach checks nothing with the marker is left
    }

    private List<Long> waitForSleeps(int n) throws InterruptedException {
        for (int i = 0; i < 600; i++) {
            List<Long> d = sup.handle().descendants()
                    .filter(h -> h.info().command().orElse("").endsWith("sleep")).map(ProcessHandle::pid).toList();
            if (d.size() >= n) {
                return d;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("fewer than " + n + " sleep descendants appeared");
    }

    @Test
    void aDaemonThatLeftTheSessionIsEndedByTerminate() throws Exception {
        // setsid -f: new session, reparented to init; a double fork into a new session: the same
        start("setsid -f sleep 301; ( ( exec setsid sleep 302 ) & ); echo ready; exec sleep 300");
        awaitReady();
        awaitTagged(3);
        for (ProcessHandle h : sup.tagged()) {
            if (h.pid() != sup.pid()) {
                assertTrue(sup.handle().descendants().noneMatch(d -> d.pid() == h.pid()), "should have escaped");
            }
        }
        assertEquals(143, sup.terminate(Duration.ofSeconds(5)));
        assertEquals(List.of(), sup.tagged());
    }

    @Test
    void waitForLeavesADaemonToItsOwnerAndCloseEndsIt() throws Exception {
        // like orted --daemonize behind the task service: the command exits at once, its daemon must live on
        // (the plan waits a moment: a child still in the group when the plan exits goes with the group)
        start("setsid -f sh -c 'trap \"\" TERM; exec sleep 303'; sleep 1; echo ready", Duration.ofSeconds(1));
        assertEquals(0, sup.waitFor());
        awaitTagged(1);
        Thread.sleep(1500); // longer than the guard grace: the guard's group teardown must not touch it
        assertEquals(1, sup.tagged().size(), "the daemon should still run until close()");
        long t0 = System.nanoTime();
        sup.close(); // ignores TERM: killed after the default grace
        assertEquals(List.of(), sup.tagged());
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(30));
    }

    @Test
    void aSecondCloseDoesNotWalkTheProcessTableAgain() throws Exception {
        // the launch closes its supervisor twice (await, then try-with-resources): the second walk through /proc cost
        // ~20 ms of every run's exit. A process that merely carries the tag and appears after the first close (no
        // process of the plan is left to start it) shows whether the second close looked
        start("exit 0");
        assertEquals(0, sup.waitFor());
        sup.close();
        ProcessBuilder pb = new ProcessBuilder("sleep", "306");
        pb.environment().put(TroikaEnv.COMMAND_TAG, sup.tag());
        Process stranger = pb.start();
        try {
            awaitTagged(1);
            sup.close();
            assertTrue(stranger.isAlive(), "the second close must not walk /proc and end it");
        } finally {
            stranger.destroyForcibly().waitFor();
        }
    }

    /**
     * A pool's shells closed together (one walk through /proc for all): the leftover of the one whose daemon detached
     * is ended, and the others count as closed, as after a close of their own (a second close does not look again).
     */
    @Test
    void closeAllEndsTheLeftoversOfEachAndClosesTheRest() throws Exception {
        List<ProcessSupervisor> pool = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                pool.add(ProcessSupervisor.start(new LaunchPlan(List.of("sh", "-c", "exit 0"), env()),
                        ProcessSupervisor.Options.of(out::add, err::add)));
            }
            // the shell exits only once its child has its own session (see detached: CI saw the race once)
            ProcessSupervisor daemonizing = ProcessSupervisor.start(new LaunchPlan(List.of("sh", "-c",
                    detached("sleep 307") + "echo started"), env()),
                    ProcessSupervisor.Options.of(out::add, err::add));
            pool.add(daemonizing);
            for (ProcessSupervisor p : pool) {
                assertEquals(0, p.waitFor());
            }
            // the daemon may not have exec'd sleep yet (its environment is briefly unreadable then): look until it
            // shows, a bounded while
            java.util.Set<String> tags = java.util.Set.of(pool.get(0).tag(), daemonizing.tag());
            java.util.Map<String, List<ProcessHandle>> tagged = ProcessTable.withEnvValues(TroikaEnv.COMMAND_TAG, tags);
            for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    !tagged.containsKey(daemonizing.tag()) && System.nanoTime() < deadline; ) {
                Thread.sleep(20);
                tagged = ProcessTable.withEnvValues(TroikaEnv.COMMAND_TAG, tags);
            }
            assertEquals(java.util.Set.of(daemonizing.tag()), tagged.keySet(), "only the daemon carries a tag");
            assertEquals(1, tagged.get(daemonizing.tag()).size());
            ProcessSupervisor.closeAll(pool);
            assertEquals(List.of(), daemonizing.tagged(), "the detached daemon was ended");
            ProcessBuilder pb = new ProcessBuilder("sleep", "308");
            pb.environment().put(TroikaEnv.COMMAND_TAG, pool.get(1).tag());
            pb.environment().put(MARKER, marker);
            Process stranger = pb.start();
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (pool.get(1).tagged().isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                pool.get(1).close();
                assertTrue(stranger.isAlive(), "closed by closeAll: a later close must not look again");
            } finally {
                stranger.destroyForcibly().waitFor();
            }
        } finally {
            pool.forEach(ProcessSupervisor::close);
        }
    }

    @Test
    void aDaemonThatDetachedAfterTheWrappedCommandLikeOrtedDaemonizeOutlivesWaitFor() throws Exception {
        // the task service's shape: setsid -w sh -c 'orted --daemonize' (fork, setsid in the child, parent exits)
        start("exec setsid -w /bin/sh -c 'sh -c \"setsid sleep 305 </dev/null >/dev/null 2>&1 &\"; echo ready'",
                Duration.ofSeconds(1));
        Integer code;
        while ((code = sup.waitFor(Duration.ofMillis(200))) == null) {
            Thread.onSpinWait();
        }
        assertEquals(0, code);
        awaitTagged(1);
        Thread.sleep(2500); // longer than the guard grace: the JDK closed the guard pipe when the plan exited
        assertEquals(1, sup.tagged().size(), "the daemon must live until its owner closes the supervisor");
        sup.close();
        assertEquals(List.of(), sup.tagged());
    }

    private void awaitTagged(int n) throws InterruptedException {
        // one reading per check: a process inside execve() has no readable environ for a moment, so two readings
        // in a row may differ (CI once saw 2, then 3, under load)
        List<ProcessHandle> seen = sup.tagged();
        for (int i = 0; i < 600 && seen.size() < n; i++) {
            Thread.sleep(50);
            seen = sup.tagged();
        }
        assertTrue(seen.size() >= n, "expected " + n + " tagged processes: " + seen);
    }

    @Test
    void leftoversInTheGroupAreTornDownWhenThePlanExits() throws Exception {
        // the main program exits at once; its background child stays in the group holding stdout open
        start("sleep 300 & echo ready", Duration.ofSeconds(2));
        assertEquals(0, sup.waitFor());
        assertEquals(List.of("ready\n"), out);
    }

    @Test
    void signalReachesTheGroupAndTimedWaitReportsRunning() throws Exception {
        start("trap 'echo got-int; exit 9' INT; echo ready; while :; do sleep 1; done");
        awaitReady();
        assertNull(sup.waitFor(Duration.ofMillis(50)));
        assertTrue(sup.signal(PosixSignal.INT));
        Integer code = sup.waitFor(Duration.ofSeconds(60));
        assertNotNull(code);
        assertEquals(9, code);
        assertTrue(out.contains("got-int\n"), out.toString());
        assertFalse(sup.signal(PosixSignal.INT), "no group left to signal");
    }
}
