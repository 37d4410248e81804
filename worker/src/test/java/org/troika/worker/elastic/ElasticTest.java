package org.troika.worker.elastic;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.common.ElasticExitCodes;

/**
 * Generations simulated in one JVM: one thread per rank, an in-memory broadcast, one store directory per fake
 * host. Checks what a rank sees across generations: state carried over, host updates, failures, reset callbacks.
 */
class ElasticTest {
    @TempDir
    Path nodes;

    /** What one rank's body does, given its state and rank. */
    @FunctionalInterface
    interface RankBody {
        void train(ObjectState state, int rank) throws Exception;
    }

    /** The outcome of one simulated generation. */
    record Outcome(List<Integer> codes, List<ObjectState> states) {}

    private final List<String> log = Collections.synchronizedList(new ArrayList<>());

    private ElasticContext context(int generation, List<String> hostOfRank, int rank, LocalBroadcastGroup group,
            HostUpdateSource updates) {
        String host = hostOfRank.get(rank);
        int localRank = (int) hostOfRank.subList(0, rank).stream().filter(host::equals).count();
        return new ElasticContext(rank, localRank, hostOfRank.size(), generation, group.member(rank),
                rank == 0 ? updates : HostUpdateSource.none(), new NodeStateStore(nodes.resolve(host), "job"));
    }

    private Outcome generation(int id, List<String> hostOfRank, HostUpdateSource updates, LocalBroadcastGroup group,
            RankBody body) throws Exception {
        int n = hostOfRank.size();
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<ObjectState> states = new ArrayList<>();
            List<Future<Integer>> futures = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                int rank = r;
                // every rank starts from its own (different) initial values: only rank 0's may count
                ObjectState s = new ObjectState(context(id, hostOfRank, rank, group, updates),
                        Map.of("step", 100 * rank, "sum", 0L));
                s.registerResetCallback(() -> log.add("reset rank=" + rank + " size=" + s.context().size()
                        + " step=" + s.get("step")));
                states.add(s);
                futures.add(pool.submit(() -> Elastic.run(s, st -> body.train(st, rank))));
            }
            List<Integer> codes = new ArrayList<>();
            for (Future<Integer> f : futures) {
                codes.add(f.get(60, TimeUnit.SECONDS));
            }
            return new Outcome(codes, states);
        } finally {
            pool.shutdownNow();
        }
    }

    private Outcome generation(int id, List<String> hostOfRank, HostUpdateSource updates, RankBody body)
            throws Exception {
        return generation(id, hostOfRank, updates, new LocalBroadcastGroup(hostOfRank.size()), body);
    }

    /** Steps to {@code last}, committing after each; records the first step each rank sees. */
    private RankBody stepsTo(int last, Map<Integer, Integer> firstStep) {
        return (s, rank) -> {
            firstStep.put(rank, s.get("step", Integer.class));
            for (int step = s.get("step", Integer.class) + 1; step <= last; step++) {
                s.set("step", step);
                s.set("sum", s.get("sum", Long.class) + step);
                s.commit();
            }
        };
    }

    private static List<Integer> codes(int n, int code) {
        return Collections.nCopies(n, code);
    }

    @Test
    void firstGenerationStartsEveryRankFromRankZerosValuesWithoutResetCallbacks() throws Exception {
        Map<Integer, Integer> first = Collections.synchronizedMap(new HashMap<>());
        Outcome o = generation(1, List.of("a", "a", "b"), HostUpdateSource.none(), stepsTo(4, first));
        assertAll(
                () -> assertEquals(codes(3, ElasticExitCodes.SUCCESS), o.codes()),
                () -> assertEquals(Map.of(0, 0, 1, 0, 2, 0), first),
                () -> assertEquals(List.of(), log),
                () -> assertEquals(10L, o.states().get(2).get("sum")));
    }

    @Test
    void hostUpdateEndsAllRanksAtTheSameCommitAndTheNextGenerationCarriesOnToNewHosts() throws Exception {
        InMemoryHostUpdateSource updates = new InMemoryHostUpdateSource();
        RankBody announceAtThree = (s, rank) -> {
            for (int step = 1; step <= 10; step++) {
                s.set("step", step);
                s.set("sum", s.get("sum", Long.class) + step);
                if (rank == 0 && step == 3) {
                    updates.announce(new HostChange(1, true, false));
                }
                s.commit();
            }
        };
        Outcome g1 = generation(1, List.of("a", "b"), updates, announceAtThree);
        assertEquals(codes(2, ElasticExitCodes.HOSTS_UPDATED), g1.codes());
        assertEquals(List.of(3, 3), g1.states().stream().map(s -> s.get("step")).toList());

        Map<Integer, Integer> first = Collections.synchronizedMap(new HashMap<>());
        Outcome g2 = generation(2, List.of("a", "b", "c"), HostUpdateSource.none(), stepsTo(6, first));
        assertAll(
                () -> assertEquals(codes(3, ElasticExitCodes.SUCCESS), g2.codes()),
                () -> assertEquals(Map.of(0, 3, 1, 3, 2, 3), first, "c never ran before and still starts at 3"),
                () -> assertEquals(21L, g2.states().get(2).get("sum"), "1+..+6: no step lost or repeated"),
                () -> assertTrue(log.containsAll(List.of("reset rank=0 size=3 step=0", "reset rank=1 size=3 step=100",
                        "reset rank=2 size=3 step=200")), "callbacks run before the sync: " + log),
                () -> assertTrue(new NodeStateStore(nodes.resolve("c"), "job").read().isPresent(),
                        "the new host keeps the state from its first sync on"));
    }

    @Test
    void collectiveFailureLosesOnlyTheWorkSinceTheLastCommit() throws Exception {
        LocalBroadcastGroup group = new LocalBroadcastGroup(2);
        RankBody commitEverySecondStepThenLosePeer = (s, rank) -> {
            for (int step = 1; step <= 10; step++) {
                s.set("step", step);
                s.set("sum", s.get("sum", Long.class) + step);
                if (step == 5) {
                    group.fail();
                }
                if (step % 2 == 0 || step == 5) {
                    s.commit();
                }
            }
        };
        Outcome g1 = generation(1, List.of("a", "b"), HostUpdateSource.none(), group, commitEverySecondStepThenLosePeer);
        assertEquals(codes(2, ElasticExitCodes.COLLECTIVE_FAILURE), g1.codes());

        // b is gone; a's node holds a's last commit: step 4, or step 5 if a saved it before the broadcast failed
        Map<Integer, Integer> first = Collections.synchronizedMap(new HashMap<>());
        Outcome g2 = generation(2, List.of("a"), HostUpdateSource.none(), stepsTo(6, first));
        assertAll(
                () -> assertEquals(List.of(ElasticExitCodes.SUCCESS), g2.codes()),
                () -> assertTrue(first.get(0) == 4 || first.get(0) == 5, "restarts from a commit: " + first),
                () -> assertEquals(21L, g2.states().get(0).get("sum")));
    }

    @Test
    void aRanksOwnErrorPropagatesSoTheRankFails() {
        ExecutionException e = assertThrows(ExecutionException.class, () -> generation(1, List.of("a"),
                HostUpdateSource.none(), (s, rank) -> {
                    throw new IllegalStateException("bad batch");
                }));
        assertEquals("bad batch", e.getCause().getMessage());
    }

    @Test
    void aRankZeroThatCannotGetItsKeyAbortsTheGenerationInsteadOfLeavingPeersInACollective() {
        List<Integer> aborted = Collections.synchronizedList(new ArrayList<>());
        StateBroadcaster b = new StateBroadcaster() {
            @Override
            public byte[] broadcast(byte[] fromRank0) {
                throw new AssertionError("no collective may start: the peers would wait for a rank that never comes");
            }

            @Override
            public void abort(int exitCode) {
                aborted.add(exitCode);
            }
        };
        HostUpdateSource broken = DriverHostUpdateSource.fromEnvironment(Map.of("TROIKA_WORKER_ADDR", "127.0.0.1:9",
                "TROIKA_HOSTNAME", "h1", "TROIKA_WORKER_SECRET_FILE", nodes.resolve("missing").toString()), 0, 1);
        ObjectState s = new ObjectState(new ElasticContext(0, 0, 2, 1, b, broken, new NodeStateStore(nodes, "job")),
                Map.of("step", 0));
        ElasticStartFailure e = org.junit.jupiter.api.Assertions.assertThrows(ElasticStartFailure.class,
                () -> Elastic.run(s, st -> { }));
        assertEquals(List.of(ElasticStartFailure.EXIT_CODE), aborted);
        assertTrue(e.getMessage().startsWith("rank 0 on host h1 "), e.getMessage());
    }

    /**
     * The generation's end closes rank 0's host-update source, whether the body returned, was interrupted by a host
     * change or threw: its reader thread would otherwise hold the rank's JVM ~300 ms at exit (see
     * {@link DriverHostUpdateSource#close()}).
     */
    @Test
    void theGenerationsEndClosesTheHostUpdateSource() throws Exception {
        class Closing implements HostUpdateSource, AutoCloseable {
            final InMemoryHostUpdateSource inbox = new InMemoryHostUpdateSource();
            int closed;

            @Override
            public java.util.Optional<HostChange> poll() {
                return inbox.poll();
            }

            void announce(HostChange c) {
                inbox.announce(c);
            }

            @Override
            public void close() {
                closed++;
            }
        }
        StateBroadcaster b = new StateBroadcaster() {
            @Override
            public byte[] broadcast(byte[] fromRank0) {
                return fromRank0;
            }

            @Override
            public void abort(int exitCode) {
                throw new AssertionError("no abort");
            }
        };
        Closing done = new Closing();
        ObjectState s1 = new ObjectState(new ElasticContext(0, 0, 1, 1, b, done, new NodeStateStore(nodes, "job")),
                Map.of("step", 0));
        assertEquals(ElasticExitCodes.SUCCESS, Elastic.run(s1, st -> assertEquals(0, done.closed, "open meanwhile")));
        assertEquals(1, done.closed, "closed once the body returned");

        Closing updated = new Closing();
        ObjectState s2 = new ObjectState(new ElasticContext(0, 0, 1, 1, b, updated, new NodeStateStore(nodes, "job")),
                Map.of("step", 0));
        assertEquals(ElasticExitCodes.HOSTS_UPDATED, Elastic.run(s2, st -> {
            updated.announce(new HostChange(1L, true, false));
            st.commit();
        }));
        assertEquals(1, updated.closed, "closed after a host change");

        Closing failed = new Closing();
        ObjectState s3 = new ObjectState(new ElasticContext(0, 0, 1, 1, b, failed, new NodeStateStore(nodes, "job")),
                Map.of("step", 0));
        assertThrows(IllegalStateException.class, () -> Elastic.run(s3, st -> {
            throw new IllegalStateException("bad batch");
        }));
        assertEquals(1, failed.closed, "closed when the body threw");
    }
}
