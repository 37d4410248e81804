package org.troika.worker.elastic;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.troika.common.TroikaEnv;
import org.troika.mpi.Communicator;
import org.troika.mpi.MpiException;
import org.troika.mpi.Ulfm;
import org.troika.wire.ElasticMessage;

/**
 * The communicator an elastic rank trains over, which fault tolerance may replace while the process lives.
 *
 * <p>Under {@code troika run --fault-tolerance shrink} (Open MPI 5, {@code mpirun --with-ft ulfm}) a dead rank does
 * not end the generation: when a collective fails, {@link Elastic#run(State, ElasticWorld, Elastic.Body)} revokes
 * the communicator, shrinks it to the survivors, and runs the body again over the smaller one. The user's code must
 * therefore take the communicator from {@link #current()} at each use (or again in a reset callback), never keep
 * the first one: after a shrink the old one is revoked and closed. Broadcasts of the elastic state go through
 * {@link #broadcaster()}, which follows {@link #current()}.
 *
 * <p>Without fault tolerance (the default {@code relaunch}, or an MPI without ULFM) this is a plain holder of the
 * world communicator and a failed collective ends the generation as before.
 */
public final class ElasticWorld {
    private final Communicator world;
    private final long nodeId;
    private final boolean shrinks;
    private final int minSize;
    private final int launchRank;
    private final DriverReporter reporter;
    private int[] members; // launch ranks of current's ranks, in order
    private int epoch; // changes of this generation's world so far
    private Communicator current; // the training thread owns this object

    ElasticWorld(Communicator world, String node, boolean shrinks, int minSize, DriverReporter reporter) {
        this.world = Objects.requireNonNull(world, "world");
        this.nodeId = UUID.nameUUIDFromBytes(Objects.requireNonNull(node, "node").getBytes(StandardCharsets.UTF_8))
                .getMostSignificantBits();
        this.shrinks = shrinks;
        this.minSize = Math.max(1, minSize);
        this.current = world;
        this.launchRank = world.rank();
        this.members = java.util.stream.IntStream.range(0, world.size()).toArray();
        this.reporter = Objects.requireNonNull(reporter, "reporter");
    }

    /**
     * The world of this rank, shrinking on failure when the launcher turned fault tolerance on
     * ({@link TroikaEnv#FAULT_TOLERANCE} is {@code shrink}) and the MPI library has ULFM.
     *
     * @param node this rank's node (its host name: ranks on the same node share its committed-state store)
     * @param env the process environment ({@link TroikaEnv#ELASTIC_MIN_NP} bounds the shrinking; with
     *     {@link TroikaEnv#WORKER_ADDR} the rank reports shrinks and its leave to the driver: {@link DriverReporter})
     */
    public static ElasticWorld of(Communicator world, String node, Map<String, String> env) {
        boolean shrink = "shrink".equals(env.get(TroikaEnv.FAULT_TOLERANCE)) && Ulfm.available();
        int min = 1;
        String v = env.get(TroikaEnv.ELASTIC_MIN_NP);
        if (v != null && !v.isBlank()) {
            try {
                min = Integer.parseInt(v.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(TroikaEnv.ELASTIC_MIN_NP + "='" + v + "' is not a number", e);
            }
        }
        return new ElasticWorld(world, node, shrink, min,
                shrink ? DriverReporter.fromEnvironment(env) : DriverReporter.none());
    }

    /** A world that shrinks on failure down to {@code minSize} ranks (tests and callers that configure it). */
    public static ElasticWorld shrinking(Communicator world, String node, int minSize) {
        Ulfm.get(); // fails here, with the reason, when the MPI library lacks ULFM
        return new ElasticWorld(world, node, true, minSize, DriverReporter.none());
    }

    /** The communicator to use now: the world, or the survivors after a shrink. */
    public Communicator current() {
        return current;
    }

    /** Whether a failed collective shrinks this world instead of ending the generation. */
    public boolean shrinks() {
        return shrinks;
    }

    /** Broadcasts from rank 0 of {@link #current()}; MPI errors become {@link CollectiveFailure}. */
    public StateBroadcaster broadcaster() {
        return MpiStateBroadcaster.withMpiAbort(bytes -> current.broadcastBytes(bytes, 0));
    }

    /**
     * Revokes the current communicator and shrinks it to the live ranks; returns the context of this rank in the
     * shrunk world, or empty when fewer than the minimum survive or the shrink itself fails (the generation ends).
     *
     * @throws CollectiveFailure when another rank fails right after the shrink (shrink again)
     */
    Optional<ElasticContext> shrink(ElasticContext before) {
        Ulfm ulfm = Ulfm.get();
        Communicator old = current;
        Communicator next;
        try {
            try {
                ulfm.revoke(old);
            } catch (MpiException e) {
                // already revoked by another rank: shrink works on a revoked communicator
            }
            next = ulfm.shrink(old);
        } catch (MpiException e) {
            return Optional.empty();
        }
        current = next;
        if (old != world) {
            closeQuietly(old);
        }
        long[] ids = new long[2 * next.size()];
        try {
            next.allgather(new long[] {launchRank, nodeId}, ids);
        } catch (MpiException e) {
            throw new CollectiveFailure("another rank failed during the shrink: " + e.getMessage(), e);
        }
        int localRank = 0;
        for (int r = 0; r < next.rank(); r++) {
            if (ids[2 * r + 1] == nodeId) {
                localRank++;
            }
        }
        int[] survivors = new int[next.size()];
        for (int r = 0; r < survivors.length; r++) {
            survivors[r] = (int) ids[2 * r];
        }
        epoch++;
        if (next.rank() == 0) {
            // for people; the launcher learns it from the report (and blacklists the dead ranks' hosts)
            System.err.println(failedLine(members, survivors));
            System.err.flush();
            reporter.report(shrunk(before.generation(), epoch, survivors));
        }
        members = survivors;
        if (next.size() < minSize) {
            return Optional.empty();
        }
        return Optional.of(new ElasticContext(next.rank(), localRank, next.size(), before.generation(),
                broadcaster(), before.updates(), before.store()));
    }

    /** This rank's rank in the generation's launch (its {@code mpirun} rank), whatever shrinks happened since. */
    public int launchRank() {
        return launchRank;
    }

    /** The line the new rank 0 prints after a shrink: {@code troika elastic: ranks 3,5 failed; 6 of 8 go on}. */
    static String failedLine(int[] before, int[] after) {
        java.util.Set<Integer> alive = new java.util.HashSet<>();
        for (int r : after) {
            alive.add(r);
        }
        java.util.StringJoiner dead = new java.util.StringJoiner(",");
        for (int r : before) {
            if (!alive.contains(r)) {
                dead.add(Integer.toString(r));
            }
        }
        return "troika elastic: ranks " + dead + " failed; " + after.length + " of " + before.length + " go on";
    }

    /**
     * The report of a shrink by ULFM: the survivors are the members, the ranks missing died (nobody departed or joined).
     */
    static ElasticMessage.WorldChanged shrunk(int generation, int epoch, int[] survivors) {
        return new ElasticMessage.WorldChanged(generation, epoch, java.util.Arrays.stream(survivors).boxed().toList(),
                List.of(), List.of());
    }

    /**
     * This rank leaves {@link Elastic#run} with {@code code}: prints {@code troika elastic: rank 2 leaves with code 0}
     * for people and reports it to the driver, waiting (bounded) until the driver noted it.
     */
    void leave(int generation, int code) {
        System.err.println("troika elastic: rank " + launchRank + " leaves with code " + code);
        System.err.flush();
        reporter.leave(generation, launchRank, code);
    }

    private static void closeQuietly(Communicator c) {
        try {
            c.close();
        } catch (MpiException e) {
            // a revoked communicator's free may report the failure again; it is gone either way
        }
    }
}
