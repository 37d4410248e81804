package org.troika.worker.elastic;

import java.util.Optional;
import org.troika.common.ElasticExitCodes;
import org.troika.mpi.ProcFailedException;
import org.troika.mpi.RevokedException;

/**
 * Runs an elastic training body for one generation.
 *
 * <p>MPI cannot grow a running world, so each generation is a fresh launch of every rank and this method covers one
 * of them (with fault tolerance on, {@link #run(State, ElasticWorld, Body)} also survives dead ranks within it):
 * <ol>
 *   <li>rank 0 loads the commit kept on its node (none in the first generation: its initial values count);</li>
 *   <li>in a generation after the first, the reset callbacks run (e.g. rescale the learning rate to the new
 *       {@link ElasticContext#size()});</li>
 *   <li>{@link State#sync()} gives every rank, new hosts included, rank 0's committed state;</li>
 *   <li>the body runs.</li>
 * </ol>
 * The returned code tells the driver what happened; {@code main} passes it to {@code System.exit}:
 * <ul>
 *   <li>{@link ElasticExitCodes#SUCCESS}: the body returned; the job is done.</li>
 *   <li>{@link ElasticExitCodes#HOSTS_UPDATED}: the hosts changed; the live state was committed (and kept on the
 *       node), nothing is lost, the driver starts the next generation.</li>
 *   <li>{@link ElasticExitCodes#COLLECTIVE_FAILURE}: a peer failed; the next generation restores the last
 *       commit.</li>
 * </ul>
 * An {@link ElasticStartFailure} (rank 0 cannot read the worker key or reach the driver) is printed as one line and
 * ends the whole generation through {@link StateBroadcaster#abort} (MPI_Abort), so nobody hangs in a collective or in
 * MPI_Finalize; the driver sees rank 0's host fail. Any other exception from the body propagates: this rank failed, and the driver blacklists its host.
 */
public final class Elastic {
    private Elastic() {}

    /** The training body. */
    @FunctionalInterface
    public interface Body<S extends State> {
        void train(S state) throws Exception;
    }

    /**
     * Runs {@code body} over {@code state} for this generation.
     *
     * @return the exit code for this rank (see the class comment)
     * @throws Exception whatever the body throws, except the two elastic signals
     */
    public static <S extends State> int run(S state, Body<S> body) throws Exception {
        return run(state, null, body);
    }

    /**
     * {@link #run(State, Body)} reporting this rank's leave through {@code reporter} (the context's rank is its launch
     * rank: without a world it never changes).
     */
    static <S extends State> int runReportingTo(S state, DriverReporter reporter, Body<S> body) throws Exception {
        // without a world the rank of the context is its launch rank: the world never changes
        return run(state, null, !reporter.reaches() ? null
                : code -> ElasticWorld.leave(reporter, state.context().generation(), state.context().rank(), code), body);
    }

    /**
     * Runs {@code body} over {@code state}; when {@code world} {@link ElasticWorld#shrinks() shrinks} (fault
     * tolerance on), a failed collective does not end the generation: the survivors revoke and shrink the
     * communicator, run the reset callbacks with the new {@link ElasticContext#size()}, take the last commit of the
     * new rank 0 by {@link State#sync()}, and run the body again in the same processes. The body must take its
     * communicator from {@link ElasticWorld#current()} (the old one is revoked). Fewer survivors than
     * {@code --min-np} end the generation with {@link ElasticExitCodes#COLLECTIVE_FAILURE}, so the driver relaunches.
     * However it ends (returned code or exception), the context's host-update source is closed if it is
     * {@link AutoCloseable} (rank 0's {@link DriverHostUpdateSource}): the generation is over for this rank, and a
     * listener thread left in its socket read would hold the rank's JVM ~300 ms at exit.
     *
     * @param world the fault-tolerant world, or {@code null} for the relaunch-only behaviour of {@link #run(State, Body)}
     */
    public static <S extends State> int run(S state, ElasticWorld world, Body<S> body) throws Exception {
        if (world == null) {
            return runReportingTo(state, DriverReporter.fromEnvironment(System.getenv()), body);
        }
        return run(state, world, !world.reports() ? null : code -> world.leave(state.context().generation(), code),
                body);
    }

    /** {@code leave}: reports this rank's code when it leaves (to the driver), or {@code null}: nothing to report to. */
    private static <S extends State> int run(S state, ElasticWorld world, java.util.function.IntConsumer leave,
            Body<S> body) throws Exception {
        HostUpdateSource updates = state.context().updates();
        try {
            return runReporting(state, world, leave, body);
        } finally {
            // the generation is over for this rank: its host-update listener (rank 0's connection to the driver) goes
            // now, so the rank's JVM is not kept from exiting by a thread blocked in that connection's read. A context
            // replaced meanwhile (a shrink or an in-place change) keeps this source (ElasticWorld.context), has none
            // (a spawned rank), or has the one this rank took over with when it became rank 0: both are closed.
            closeQuietly(updates);
            if (state.context().updates() != updates) {
                closeQuietly(state.context().updates());
            }
        }
    }

    static void closeQuietly(HostUpdateSource updates) {
        if (updates instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                // the generation has ended either way; the JVM exit closes what is left
            }
        }
    }

    private static <S extends State> int runReporting(S state, ElasticWorld world, java.util.function.IntConsumer leave,
            Body<S> body) throws Exception {
        if (leave == null) {
            return runShrinking(state, world, body);
        }
        int code = 1; // the body threw: this rank fails (an uncaught exception exits the JVM with 1)
        try {
            code = runShrinking(state, world, body);
            return code;
        } finally {
            // the launcher learns it from the report: once every rank is dead or has left, a lingering mpirun is ended;
            // once every rank left for a host change, the next generation starts
            leave.accept(code);
        }
    }

    private static <S extends State> int runShrinking(S state, ElasticWorld world, Body<S> body) throws Exception {
        try {
            state.context().updates().check();
            return runShrinkingChecked(state, world, body);
        } catch (ElasticStartFailure e) {
            // one line, then end the generation now: a finalize would wait forever for peers blocked in a collective
            System.err.println("troika elastic: " + e.getMessage());
            System.err.flush();
            state.context().broadcaster().abort(ElasticStartFailure.EXIT_CODE);
            throw e;
        }
    }

    private static <S extends State> int runShrinkingChecked(S state, ElasticWorld world, Body<S> body)
            throws Exception {
        boolean recovered = false;
        boolean sync = true;
        if (world != null && world.joined()) {
            // spawned into a running world: the merged world's rank and size; the state comes by the sync
            state.replaceContext(world.context(state.context()));
            state.save();
            state.onReset();
            recovered = true;
        } else if (world != null && world.standbyLaunch()) {
            // a launch with standby ranks: the world is the launch's ranks below them, not the launch's whole world
            state.replaceContext(world.context(state.context()));
        }
        while (true) {
            try {
                if (!recovered) {
                    state.loadFromNode();
                    if (state.context().isReset()) {
                        state.onReset();
                    }
                }
                if (sync) {
                    state.sync();
                }
                sync = true;
                body.train(state);
                return ElasticExitCodes.SUCCESS;
            } catch (HostsUpdatedInterrupt e) {
                state.save();
                state.keepOnNode();
                HostChange change = e.change();
                if (world == null || change.inPlace() == null) {
                    return ElasticExitCodes.HOSTS_UPDATED;
                }
                boolean changed = false;
                try {
                    Optional<ElasticContext> next = world.change(state.context(), change.inPlace());
                    if (next.isEmpty()) {
                        return ElasticExitCodes.HOSTS_UPDATED;
                    }
                    state.replaceContext(next.get());
                    changed = true;
                } catch (CollectiveFailure failed) {
                    if (!world.shrinks() || !shrink(state, world)) {
                        return ElasticExitCodes.COLLECTIVE_FAILURE;
                    }
                    // a rank failed during the change: the shrunk world is not the one the driver asked for (a host
                    // that left may still run ranks), and a change half made is not made again; rank 0 (the one
                    // that hears the driver) asks for a relaunch, which every rank takes at the next commit
                    state.context().updates().requeue(new HostChange(change.timestampMillis(), change.added(),
                            change.removed()));
                }
                recovered = true;
                state.onReset();
                // after a leave every rank holds the commit already; ranks that joined (or a shrink) need the sync
                sync = !changed || change.inPlace().grows();
            } catch (CollectiveFailure | ProcFailedException | RevokedException e) {
                if (world == null || !world.shrinks() || !shrink(state, world)) {
                    return ElasticExitCodes.COLLECTIVE_FAILURE;
                }
                recovered = true;
                state.onReset();
            }
        }
    }

    /** Shrinks until a shrunk world holds (another failure right after a shrink shrinks again). */
    private static boolean shrink(State state, ElasticWorld world) {
        while (true) {
            try {
                Optional<ElasticContext> next = world.shrink(state.context());
                next.ifPresent(state::replaceContext);
                return next.isPresent();
            } catch (CollectiveFailure again) {
                // loop
            }
        }
    }
}
