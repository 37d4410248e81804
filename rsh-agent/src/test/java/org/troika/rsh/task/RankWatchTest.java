package org.troika.rsh.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.troika.wire.RelayMessage;

class RankWatchTest {
    static byte[] environ(String... entries) {
        return (String.join("\0", entries) + "\0").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aRankIsAProcessOfAFaultTolerantGenerationWithItsMpiRank() {
        assertEquals(Optional.of(new RankWatch.Rank(7, 99, 2, 3)), RankWatch.classify(7, 99, environ(
                "TROIKA_FAULT_TOLERANCE=shrink", "TROIKA_ELASTIC_GENERATION=2", "OMPI_COMM_WORLD_RANK=3",
                "PMIX_RANK=9")));
        assertEquals(Optional.of(new RankWatch.Rank(7, 99, 1, 9)), RankWatch.classify(7, 99, environ(
                "TROIKA_FAULT_TOLERANCE=shrink", "TROIKA_ELASTIC_GENERATION=1", "PMIX_RANK=9")));
        // spawned into a running world: rank 1 of a spawn whose first id is 6 is the generation's rank 7, not its 1
        assertEquals(Optional.of(new RankWatch.Rank(7, 99, 2, 7)), RankWatch.classify(7, 99, environ(
                "TROIKA_FAULT_TOLERANCE=shrink", "TROIKA_ELASTIC_GENERATION=2", "OMPI_COMM_WORLD_RANK=1",
                "TROIKA_ELASTIC_JOIN_ID=6")));
        for (byte[] notOne : List.of(
                environ("TROIKA_FAULT_TOLERANCE=shrink", "TROIKA_ELASTIC_GENERATION=1", "PMIX_RANK=1",
                        "TROIKA_ELASTIC_JOIN_ID=x"),
                environ("TROIKA_ELASTIC_GENERATION=1", "PMIX_RANK=1"), // relaunch mode: mpirun ends the job itself
                environ("TROIKA_FAULT_TOLERANCE=relaunch", "TROIKA_ELASTIC_GENERATION=1", "PMIX_RANK=1"),
                environ("TROIKA_FAULT_TOLERANCE=shrink", "PMIX_RANK=1"), // not elastic
                environ("TROIKA_FAULT_TOLERANCE=shrink", "TROIKA_ELASTIC_GENERATION=1"), // the daemon
                environ("TROIKA_FAULT_TOLERANCE=shrink", "TROIKA_ELASTIC_GENERATION=1", "PMIX_RANK=-1"),
                new byte[0])) {
            assertEquals(Optional.empty(), RankWatch.classify(7, 99, notOne));
        }
    }

    /** A process's environment is read again only while it may be between fork and exec (10 s), or time is unknown. */
    @Test
    void onlyAYoungProcessMayStillBeBetweenForkAndExec() {
        long start = 123_456;
        assertTrue(RankWatch.young(start, start));
        assertTrue(RankWatch.young(start, start + RankWatch.EXEC_TICKS - 1));
        assertFalse(RankWatch.young(start, start + RankWatch.EXEC_TICKS));
        assertFalse(RankWatch.young(start, start + 100 * RankWatch.EXEC_TICKS));
        assertTrue(RankWatch.young(start, -1));
    }

    /**
     * Real processes: a daemon (a command of the service) starts a rank, which starts a child of its own and leaves a
     * helper behind (reparented). Neither the child nor the helper is a rank: their ends are no deaths. The rank,
     * killed, is reported once; a rank under another daemon (not one of the service's commands) never is.
     */
    @Test
    void aKilledRankIsReportedOnceAndNothingElseIs() throws Exception {
        List<RelayMessage.RankEnded> ended = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Process> started = new ArrayList<>();
        List<ProcessHandle> all = new ArrayList<>();
        try {
            Process ours = daemon(4, 2, started);
            Process other = daemon(4, 1, started);
            RankWatch w = new RankWatch(() -> List.of(ours.pid()), ended::add);
            ProcessHandle rank = rankUnder(ours);
            ProcessHandle otherRank = rankUnder(other);
            all.addAll(rank.descendants().toList());
            all.addAll(otherRank.descendants().toList());
            w.walk();
            w.check(System.nanoTime());
            assertEquals(List.of(), ended);
            rank.children().forEach(ProcessHandle::destroyForcibly); // its own child
            Thread.sleep(2500); // the helper it left behind ends by itself
            w.walk();
            w.check(System.nanoTime());
            assertEquals(List.of(), ended);
            otherRank.destroyForcibly();
            rank.destroyForcibly();
            awaitEnded(rank);
            awaitEnded(otherRank);
            w.check(System.nanoTime());
            w.check(System.nanoTime());
            assertEquals(List.of(new RelayMessage.RankEnded(4, 2)), ended);
        } finally {
            cleanUp(started, all);
        }
    }

    @Test
    void theWatchThreadReportsAKilledRankWithinAFewIntervals() throws Exception {
        java.util.concurrent.BlockingQueue<RelayMessage.RankEnded> ended = new java.util.concurrent.LinkedBlockingQueue<>();
        List<Process> started = new ArrayList<>();
        List<ProcessHandle> all = new ArrayList<>();
        Process d = daemon(1, 0, started);
        try (RankWatch w = new RankWatch(() -> List.of(d.pid()), ended::add).start()) {
            ProcessHandle rank = rankUnder(d);
            all.addAll(rank.descendants().toList());
            // found at the next walk
            Thread.sleep(RankWatch.DISCOVERY.toMillis() + 3 * RankWatch.INTERVAL.toMillis());
            assertTrue(ended.isEmpty(), ended::toString);
            rank.destroyForcibly();
            assertEquals(new RelayMessage.RankEnded(1, 0), ended.poll(30, TimeUnit.SECONDS));
        } finally {
            cleanUp(started, all);
        }
    }

    /**
     * A daemon (it stays: {@code exec sleep}) that starts rank {@code rank} of generation {@code gen}: the rank leaves a
     * helper behind (a subshell's background {@code sleep 2}, reparented) and keeps a child ({@code sleep 59}).
     */
    private static Process daemon(int gen, int rank, List<Process> started) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", "TROIKA_FAULT_TOLERANCE=shrink TROIKA_ELASTIC_GENERATION=" + gen
                + " OMPI_COMM_WORLD_RANK=" + rank + " sh -c '(sleep 2 &); sleep 59 & exec sleep 61' & exec sleep 62")
                .start();
        started.add(p);
        return p;
    }

    /** The rank under {@code daemon}, once it has its child. */
    private static ProcessHandle rankUnder(Process daemon) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            Optional<ProcessHandle> rank = daemon.toHandle().children()
                    .filter(c -> c.children().findAny().isPresent()).findFirst();
            if (rank.isPresent()) {
                return rank.get();
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the daemon started no rank");
    }

    /** Until {@code p} is gone or a zombie (its daemon, a {@code sleep}, never reaps it). */
    private static void awaitEnded(ProcessHandle p) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (!org.troika.common.exec.ProcessTable.running(p.pid())) {
                return;
            }
            Thread.sleep(20);
        }
    }

    /** Ends what the test started, by pid: the daemons, their trees and the ranks' children found before. */
    private static void cleanUp(List<Process> started, List<ProcessHandle> more) {
        for (Process p : started) {
            p.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        more.forEach(ProcessHandle::destroyForcibly);
    }
}
