package org.troika.worker.elastic;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.troika.common.TroikaEnv;
import org.troika.mpi.Communicator;
import org.troika.mpi.Intercommunicator;
import org.troika.mpi.Mpi;
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
 *
 * <p><b>Changes in place</b> (issue 25, Open MPI 5): when the driver asks for one ({@link HostChange#inPlace()}), the
 * world changes at a commit without a relaunch ({@link #change}): the ranks of hosts that left the job split off and
 * end (under fault tolerance only: they exit without {@code MPI_Finalize}, which the job's ULFM tolerates), and the
 * others spawn ranks onto the hosts that joined ({@link RankSpawner}) and merge with them. A spawned rank finds its
 * place here too: {@link #of} merges it with its parents ({@link #joined()}), and {@link Elastic#run} gives it the
 * merged world's context and the last commit by the state sync.
 *
 * <p><b>Standby ranks</b> ({@code troika run --standby-ranks}, {@link TroikaEnv#ELASTIC_STANDBY_FROM}): the launch's
 * ranks from that number up ran on standby hosts; {@link #of} keeps them out of the world (it is the launch's ranks
 * below them) and waiting, until a change activates one (it merges into the world, as if spawned) or the world's
 * leader dismisses it when the world ends.
 */
public final class ElasticWorld {
    private final Communicator world;
    private final long nodeId;
    private final boolean shrinks;
    private final int minSize;
    private final int launchRank;
    private final DriverReporter reporter;
    private final RankSpawner spawner; // null: this world cannot grow in place
    private int[] members; // generation ids of current's ranks, in order
    private int epoch; // changes of this generation's world so far
    private Communicator current; // the training thread owns this object
    private int localRank = -1; // on node, in current; -1 until a change computed it
    private boolean joined; // this process was spawned into a running world, or activated as a standby rank
    // spawned into a running world: its environment names its spawn, not a launch rank, and it has no spawn command;
    // it listens to the driver only once it takes over as the world's rank 0
    private boolean spawnedIn;
    // a launch with standby ranks (TROIKA_ELASTIC_STANDBY_FROM): the launch's world duplicated, over which the world's
    // leader activates or dismisses the standby ranks; null in every other launch
    private Communicator channel;
    private int standbyFrom = -1; // the first standby launch rank (with channel)
    // this rank's host updates once it is the world's rank 0 after the launch's rank 0 died or left (by generation);
    // null: never (a world built without the environment)
    private java.util.function.IntFunction<HostUpdateSource> takeOver;
    private boolean tookOver; // takeOver was called (once per process)

    ElasticWorld(Communicator world, String node, boolean shrinks, int minSize, DriverReporter reporter) {
        this(world, node, shrinks, minSize, reporter, null, world.rank());
    }

    /** A world that may grow in place by {@code spawner} ({@link #of} builds it from the environment). */
    ElasticWorld(Communicator world, String node, boolean shrinks, int minSize, DriverReporter reporter,
            RankSpawner spawner, int id) {
        this.world = Objects.requireNonNull(world, "world");
        this.nodeId = UUID.nameUUIDFromBytes(Objects.requireNonNull(node, "node").getBytes(StandardCharsets.UTF_8))
                .getMostSignificantBits();
        this.shrinks = shrinks;
        this.minSize = Math.max(1, minSize);
        this.current = world;
        this.launchRank = id;
        this.members = java.util.stream.IntStream.range(0, world.size()).toArray();
        this.reporter = Objects.requireNonNull(reporter, "reporter");
        this.spawner = spawner;
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
        int min = number(env, TroikaEnv.ELASTIC_MIN_NP, 1);
        RankSpawner spawner = RankSpawner.fromEnvironment(env.containsKey(TroikaEnv.ELASTIC_SPAWN_COMMAND)
                ? org.troika.common.exec.NativeText.environment() : env).orElse(null);
        // every rank of a driver's job reports its leave (one datagram): a generation whose ranks all left for a host
        // change ends at their reports, not at mpirun's end (PRRTE's kill sleeps after exit 75)
        DriverReporter reporter = DriverReporter.fromEnvironment(env);
        String joinId = env.get(TroikaEnv.ELASTIC_JOIN_ID);
        if (joinId == null || joinId.isBlank()) {
            int standbyFrom = number(env, TroikaEnv.ELASTIC_STANDBY_FROM, 0);
            ElasticWorld w = new ElasticWorld(world, node, shrink, min, reporter, spawner, world.rank());
            w.takesOverFrom(env);
            if (standbyFrom > 0 && standbyFrom < world.size()) {
                w.standbyLaunch(standbyFrom);
            }
            return w;
        }
        // spawned into a running world: merge with the parents (they wait in their change), then find our place
        ElasticWorld w = new ElasticWorld(world, node, shrink, min, reporter, spawner,
                number(env, TroikaEnv.ELASTIC_JOIN_ID, 0) + world.rank());
        w.joined = true;
        w.spawnedIn = true;
        w.takesOverFrom(env);
        w.epoch = number(env, TroikaEnv.ELASTIC_EPOCH, 1);
        Communicator withSpawner = null;
        try (Intercommunicator parents = Mpi.parent().orElseThrow(() -> new IllegalStateException(
                TroikaEnv.ELASTIC_JOIN_ID + " is set but this process was not spawned by a running world"))) {
            // the spawning rank alone, then every parent (see grow): the same inter-communicator on both sides
            withSpawner = parents.merge(true);
            try (Intercommunicator all = world.intercommCreate(0, world.rank() == 0 ? withSpawner : world, 0,
                    JOIN_TAG)) {
                w.current = all.merge(true);
            }
        } finally {
            if (withSpawner != null) {
                closeQuietly(withSpawner);
            }
        }
        w.regroup();
        return w;
    }

    /** Once this rank is the world's rank 0 it listens to the driver {@code env} names, under its generation id. */
    private void takesOverFrom(Map<String, String> env) {
        takeOver = generation -> DriverHostUpdateSource.takingOver(env, launchRank, generation);
    }

    private static int number(Map<String, String> env, String name, int otherwise) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            return otherwise;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + "='" + v + "' is not a number", e);
        }
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

    /**
     * Whether this rank reports its leave ({@link ElasticMessage.RankLeft}) to the driver: with fault tolerance or
     * changes in place mpirun's exit no longer tells the launcher how the generation ended, and in any job the driver
     * launched the reports let it start the next generation before mpirun has ended.
     */
    boolean reports() {
        return shrinks || spawner != null || reporter.reaches() || channel != null;
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
        int[] before2 = members;
        regroup(); // another failure here: CollectiveFailure, shrink again
        epoch++;
        Mpi.skipFinalize(); // a process of this job ended without MPI_Finalize: see Mpi.skipFinalize
        if (next.rank() == 0) {
            // for people; the launcher learns it from the report (and blacklists the dead ranks' hosts)
            System.err.println(failedLine(before2, members));
            System.err.flush();
            reporter.report(shrunk(before.generation(), epoch, members));
        }
        if (next.size() < minSize) {
            return Optional.empty();
        }
        return Optional.of(context(before));
    }

    /**
     * Makes the driver's change in place ({@link HostChange#inPlace()}) at a commit, every rank of the world at once:
     * the ranks it names leave (a split; they end here), then the others spawn the new ranks and merge with them. The
     * new rank 0 reports the world ({@link ElasticMessage.WorldChanged}). Returns this rank's context in the changed
     * world, or empty when this world cannot make the change (no fault tolerance to leave with, the rank that would
     * spawn has no spawn command or cannot express the spawn, the spawn failed): then every rank leaves the generation
     * as for a relaunch.
     *
     * @throws CollectiveFailure when a rank fails during the change (a shrink follows, under fault tolerance)
     */
    Optional<ElasticContext> change(ElasticContext before, ElasticMessage.ChangeWorld change) {
        boolean leaves = !change.leave().isEmpty();
        boolean grows = !change.join().isEmpty();
        List<Integer> activate = change.activate().stream().map(ElasticMessage.ChangeWorld.Activate::id).toList();
        // standby ranks are activated by the world's rank 0 after the leaves (joined to each by a bridge made from the
        // launch channel's groups), and the driver sends an activation only when that rank is the launch's smallest id
        // alive, whom the waiting ranks listen to (World.leadsStandby; awaitActivation); whether it has the channel all
        // learn below
        java.util.Set<Integer> gone = new java.util.HashSet<>(change.leave());
        java.util.OptionalInt leader = java.util.Arrays.stream(members).filter(id -> !gone.contains(id)).findFirst();
        if ((leaves && !shrinks) || ((grows || !activate.isEmpty()) && leader.isEmpty())) {
            return Optional.empty(); // the same answer on every rank: all leave the generation together
        }
        // the spawn is the request of the rank that makes it (the world's rank 0 once the leaves are made: grow), and
        // only its own: a rank that joined by a spawn has no spawn command, so every rank learns that rank's answer
        // before any step of the change (each deciding alone, a spawned member left the generation while the others
        // waited for it in the growth, and a healthy host was blacklisted 20 s later)
        Optional<org.troika.mpi.Spawn> spawn = Optional.empty();
        Communicator old = current;
        Communicator next = old;
        try {
            if (grows) {
                boolean spawns = leader.getAsInt() == launchRank;
                if (spawns) {
                    spawn = spawner == null ? Optional.empty() : spawner.request(change, epoch + 1,
                            sizeBeforeSpawn(members, change));
                    if (spawn.isEmpty()) {
                        System.err.println("troika elastic: rank " + launchRank + " cannot spawn the new ranks ("
                                + (spawner == null ? "it has no spawn command: it joined the world by a spawn, or the"
                                + " launch gave none" : "their variables do not fit into the spawn's "
                                + RankSpawner.ENVAR_LIMIT + " bytes") + "); the generation ends and the driver"
                                + " relaunches");
                        System.err.flush();
                    }
                }
                int[] can = {!spawns || spawn.isPresent() ? 1 : 0};
                old.allreduce(can, org.troika.mpi.Op.MIN);
                if (can[0] == 0) {
                    return Optional.empty();
                }
            }
            if (leaves) {
                boolean leaving = change.leave().contains(launchRank);
                if (leaving) {
                    // a leaving rank 0 stops listening first: the driver closes its connection once the next rank 0
                    // subscribes, which its reader would otherwise report as a lost connection on the way out
                    Elastic.closeQuietly(before.updates());
                }
                next = old.split(leaving ? Communicator.UNDEFINED : 0, old.rank());
                Mpi.skipFinalize(); // the leaving ranks end without MPI_Finalize: see Mpi.skipFinalize
                if (leaving) {
                    leaveNow(before.generation());
                }
            }
            if (!activate.isEmpty()) {
                Communicator survivors = next;
                everActivated.addAll(activate);
                // rank 0 leads only with the launch's channel (a launch with standby ranks): all learn it together
                int[] can = {survivors.rank() != 0 || channel != null ? 1 : 0};
                survivors.allreduce(can, org.troika.mpi.Op.MIN);
                next = can[0] == 0 ? null : activate(survivors, activate, epoch + 1, grows);
                if (next == null) {
                    return abandon(old, survivors);
                }
                if (survivors != old) {
                    closeQuietly(survivors);
                }
            }
            if (grows) {
                Communicator survivors = next;
                next = grow(survivors, spawn.orElse(null));
                if (next == null) {
                    return abandon(old, survivors);
                }
                if (survivors != old) {
                    closeQuietly(survivors);
                }
            }
        } catch (MpiException e) {
            throw new CollectiveFailure("the world change failed: " + e.getMessage(), e);
        }
        current = next;
        if (old != world) {
            closeQuietly(old);
        }
        regroup();
        epoch++;
        if (next.rank() == 0) {
            reporter.report(changed(before.generation(), epoch, members, change));
        }
        return Optional.of(context(before));
    }

    /**
     * A growth step of a change failed on every rank (they all learnt it together): the world stays {@code survivors},
     * {@code old} is closed if that replaced it, and every rank leaves the generation (the driver relaunches).
     */
    private Optional<ElasticContext> abandon(Communicator old, Communicator survivors) {
        current = survivors;
        if (old != world && survivors != old) {
            closeQuietly(old);
        }
        return Optional.empty();
    }

    /** The tag of the standby ranks' messages on the channel ({@link #standbyLaunch}). */
    static final int STANDBY_TAG = 7326;
    /** The tag of the inter-communicator between the world and a standby rank it activates. */
    static final int ACTIVATE_TAG = 7327;
    /** Standby messages: the first int. */
    private static final int DISMISS = 0;
    private static final int ACTIVATE = 1;
    /** Ints of an activation before its list of the standby ranks activated after this one. */
    private static final int ACTIVATION_HEAD = 4;
    /**
     * How long a standby rank sleeps between two tests of its receive: 10 ms, ~1% of a core while it waits (a test a
     * millisecond: 2%; every 200 ms: 0.2-0.4%, the JVM's and MPI's own threads; Open MPI 5.0.7, JNA); an activation
     * waits at most this long for it.
     */
    private static final long STANDBY_POLL_NANOS = 10_000_000L;
    /** How long the leader's dismissal waits for each standby rank to take it (a dead one never does). */
    private static final long DISMISS_WAIT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);

    /**
     * A launch with standby ranks (issue 25: {@code troika run --standby-ranks}): the launch ranks below {@code from}
     * form the world; each from {@code from} up ran on a standby host and waits here, asleep, until the world's leader
     * activates it in a change in place ({@link #change}: it then joins the world as if spawned, without the start of a
     * process, a JVM and MPI) or dismisses it when the world ends ({@link #leave(int, int)}). Collective over the
     * launch's world: a duplicate of it for those messages (the channel), and a split into the world and one
     * communicator per standby rank. Nobody calls {@code MPI_Finalize} in such a job: a dismissed standby rank ends
     * without it, and the others would wait for it there.
     */
    private void standbyLaunch(int from) {
        Mpi.skipFinalize();
        channel = world.dup();
        standbyFrom = from;
        boolean standby = world.rank() >= from;
        current = world.split(standby ? 1 + world.rank() - from : 0, world.rank());
        members = java.util.stream.IntStream.range(0, from).toArray();
        if (standby) {
            awaitActivation();
        }
    }

    /** Whether this world came from a launch with standby ranks (its first context is not the launch's world's). */
    boolean standbyLaunch() {
        return channel != null;
    }

    /**
     * A standby rank waits for the launch's rank with the smallest id (the world's rank 0 while it lives: it
     * activates; the smallest one alive dismisses, {@link #dismisserRank}), asleep between tests of a receive from it.
     * When that rank is gone (it died, or left the world in place and ended its process: the receive fails under ULFM)
     * it waits for the next, which the driver then lets lead (World.leadsStandby). Dismissed, the process ends here
     * (exit 0, no finalize); activated, it joins the world and the rest of the change ({@link #activated}).
     */
    private void awaitActivation() {
        int launchSize = world.size();
        int[] message = new int[ACTIVATION_HEAD + launchSize];
        for (int source = 0; source < launchSize; source++) {
            if (source == launchRank) {
                continue;
            }
            try {
                org.troika.mpi.Request r = channel.irecv(message, source, STANDBY_TAG);
                while (!r.test()) {
                    java.util.concurrent.locks.LockSupport.parkNanos(STANDBY_POLL_NANOS);
                }
            } catch (MpiException e) {
                continue; // that rank is gone: its successor leads the world now
            }
            if (message[0] == ACTIVATE) {
                activated(message, source);
                return;
            }
            endStandby("dismissed: the training ended");
        }
        endStandby("no rank of the launch is left to activate it");
    }

    private void endStandby(String why) {
        System.err.println("troika elastic: standby rank " + launchRank + " ends: " + why);
        System.err.flush();
        System.out.flush();
        Runtime.getRuntime().halt(0); // no finalize (see standbyLaunch)
    }

    /**
     * The world activated this standby rank ({@code leader}: the world's rank 0, by its rank in the launch's channel):
     * it merges with the world (after its ranks), then takes its part in the rest of the change as a member (the
     * standby ranks activated after it, the spawn), and finds its place.
     */
    private void activated(int[] m, int leader) {
        int epochAfter = m[1];
        boolean spawns = m[2] != 0;
        List<Integer> after = new java.util.ArrayList<>();
        for (int i = 0; i < m[3]; i++) {
            after.add(m[ACTIVATION_HEAD + i]);
        }
        Communicator alone = current;
        try {
            Communicator merged;
            Communicator pair = bridge(leader, launchRank, epochAfter, true);
            try (Intercommunicator w = alone.intercommCreate(0, pair, 0, ACTIVATE_TAG)) {
                merged = w.merge(true);
            } finally {
                closeQuietly(pair);
            }
            closeQuietly(alone);
            Communicator next = activate(merged, after, epochAfter, spawns);
            if (next != null && spawns) {
                Communicator grown = grow(next, null); // never rank 0 (the world's ranks come first): no spawn here
                if (next != merged) {
                    closeQuietly(next);
                }
                next = grown;
            }
            if (next == null) {
                endStandby("its activation failed (a rank failed meanwhile)");
            }
            if (next != merged) {
                closeQuietly(merged);
            }
            current = next;
            joined = true;
            regroup();
            epoch = epochAfter;
        } catch (MpiException | CollectiveFailure e) {
            endStandby("its activation failed (" + e.getMessage() + ")");
        }
    }

    /**
     * This rank and {@code other} (its rank in the launch's channel) as one communicator, the leader first: the bridge
     * of the activation of standby rank {@code standby} between the world (through its leader) and that rank. Made from
     * their groups, not over the channel: a dead process in it (a rank of the launch that died, or left in place and
     * ended) makes Open MPI 5.0.7 fail {@code MPI_Intercomm_create} over it with {@code MPI_ERR_INTERN} (measured; C
     * too), and {@code MPI_Comm_create_group} with {@code MPI_ERR_PROC_FAILED}.
     */
    private Communicator bridge(int other, int standby, int epochAfter, boolean isStandby) {
        try (org.troika.mpi.Group all = channel.group(); org.troika.mpi.Group me = all.incl(launchRank);
                org.troika.mpi.Group them = all.incl(other);
                Intercommunicator ic = Mpi.intercommCreateFromGroups(me, 0, them, 0,
                        "troika-activate-" + epochAfter + "-" + standby)) {
            return ic.merge(isStandby);
        }
    }

    /**
     * The world's rank that dismisses the standby ranks (a launch rank's own view: {@code world} is the launch's): the
     * member with the smallest launch rank (it is in the channel, and the waiting ranks wait for the smallest one alive:
     * {@link #awaitActivation}), or -1 when no launch rank is left (the standby ranks can no longer be reached).
     */
    private int dismisserRank(int[] ids) {
        int best = -1;
        for (int r = 0; r < ids.length; r++) {
            if (ids[r] < world.size() && (best < 0 || ids[r] < ids[best])) {
                best = r;
            }
        }
        return best;
    }

    /**
     * Activates the standby ranks {@code ids} one after the other, led by rank 0 of {@code c} (the launch's smallest id
     * alive, its own rank in the channel: {@link #change}): it sends each its activation (with the ones after it, and
     * whether a spawn follows), then the world and that rank make one inter-communicator through rank 0 and their
     * {@link #bridge} and merge it, the world first (so rank 0 stays rank 0). Collective over {@code c}; returns the
     * grown world, or {@code null} on every rank that saw a rank fail meanwhile (the generation then ends and the driver relaunches). Intermediate
     * communicators are closed, {@code c} is not.
     */
    private Communicator activate(Communicator c, List<Integer> ids, int epochAfter, boolean spawns) {
        Communicator next = c;
        try {
            for (int k = 0; k < ids.size(); k++) {
                int id = ids.get(k);
                boolean leads = next.rank() == 0;
                if (leads) {
                    List<Integer> rest = ids.subList(k + 1, ids.size());
                    int[] m = new int[ACTIVATION_HEAD + rest.size()];
                    m[0] = ACTIVATE;
                    m[1] = epochAfter;
                    m[2] = spawns ? 1 : 0;
                    m[3] = rest.size();
                    for (int i = 0; i < rest.size(); i++) {
                        m[ACTIVATION_HEAD + i] = rest.get(i);
                    }
                    channel.send(m, id, STANDBY_TAG);
                }
                Communicator merged;
                Communicator pair = leads ? bridge(id, id, epochAfter, false) : next;
                try (Intercommunicator w = next.intercommCreate(0, pair, leads ? 1 : id, ACTIVATE_TAG)) {
                    merged = w.merge(false);
                } finally {
                    if (leads) {
                        closeQuietly(pair);
                    }
                }
                if (next != c) {
                    closeQuietly(next);
                }
                next = merged;
            }
            return next;
        } catch (MpiException e) {
            System.err.println("troika elastic: rank " + launchRank + ": activating the standby ranks failed ("
                    + e.getMessage() + "); the generation ends and the driver relaunches");
            if (next != c) {
                closeQuietly(next);
            }
            return null;
        }
    }

    /**
     * The world ends (every member leaves {@link Elastic#run} with {@code code}): its leader dismisses the standby ranks
     * that were never activated, so that their processes, and mpirun, end too. Each gets a bounded wait: one that died
     * never takes its message.
     */
    private void dismissStandby(int code) {
        if (channel == null || dismisserRank(members) != current.rank()
                || (code != org.troika.common.ElasticExitCodes.SUCCESS
                        && code != org.troika.common.ElasticExitCodes.HOSTS_UPDATED
                        && code != org.troika.common.ElasticExitCodes.COLLECTIVE_FAILURE)) {
            return;
        }
        java.util.Set<Integer> in = new java.util.HashSet<>();
        for (int id : members) {
            in.add(id);
        }
        int[] dismiss = {DISMISS};
        for (int id = standbyFrom; id < world.size(); id++) {
            if (in.contains(id) || everActivated.contains(id)) {
                continue;
            }
            try {
                org.troika.mpi.Request r = channel.isend(dismiss, id, STANDBY_TAG);
                long deadline = System.nanoTime() + DISMISS_WAIT_NANOS;
                while (!r.test() && System.nanoTime() < deadline) {
                    java.util.concurrent.locks.LockSupport.parkNanos(200_000L);
                }
            } catch (MpiException e) {
                // gone already
            }
        }
    }

    /** The standby ranks this rank saw activated (they are members, or left the world since). */
    private final java.util.Set<Integer> everActivated = new java.util.HashSet<>();

    /** The tag of the inter-communicator between the parents and the ranks they spawned ({@link #grow}). */
    static final int JOIN_TAG = 7325;

    /**
     * Spawns the new ranks and merges everyone: the survivors first (in their order), then the new ranks. Only the
     * survivors' rank 0 calls {@code MPI_Comm_spawn} (on a communicator of its own); the others wait for it asleep
     * ({@link #awaitAll}). A spawn over all survivors would keep every other rank polling inside MPI for the whole
     * start of the new hosts' daemons and JVMs: measured on the 2 cores here
     * at 4 ranks, three ranks burned ~1.3 s of CPU each during a 2.8 s spawn. Then rank 0 tells whether the spawn
     * worked, and the parents and the new ranks build one inter-communicator through rank 0 and the new ranks' first
     * ({@code MPI_Intercomm_create} over rank 0's merge with them; the new ranks do the same in {@link #of}) and
     * merge it.
     *
     * @return the grown world, or {@code null} on every rank when the spawn failed (rank 0 says why) or a rank failed
     *     during the growth
     */
    private Communicator grow(Communicator survivors, org.troika.mpi.Spawn request) { // request: rank 0's only
        Communicator alone = null;
        Communicator withChildren = null;
        try {
            alone = survivors.split(survivors.rank() == 0 ? 0 : Communicator.UNDEFINED, 0);
            int[] spawned = {1};
            if (alone != null) {
                try (Intercommunicator children = alone.spawn(request, 0)) {
                    withChildren = children.merge(false);
                } catch (RuntimeException e) { // whatever failed, rank 0 joins the barrier: the others wait for it
                    spawned[0] = 0;
                    System.err.println("troika elastic: rank " + launchRank + " could not spawn the new ranks ("
                            + e.getMessage() + "); the generation ends and the driver relaunches");
                }
            }
            awaitAll(survivors);
            survivors.allreduce(spawned, org.troika.mpi.Op.MIN);
            if (spawned[0] == 0) {
                return null;
            }
            try (Intercommunicator all = survivors.intercommCreate(0, withChildren != null ? withChildren : survivors,
                    1, JOIN_TAG)) {
                return all.merge(false);
            }
        } catch (MpiException e) {
            // a rank failed during the growth: as when a spawn over all ranks failed, every rank leaves the
            // generation (each sees the failure in a call it shares with the failed rank), and the relaunch also
            // ends new ranks that may be waiting for their parents
            System.err.println("troika elastic: rank " + launchRank + ": the growth failed (" + e.getMessage()
                    + "); the generation ends and the driver relaunches");
            return null;
        } finally {
            if (withChildren != null) {
                closeQuietly(withChildren);
            }
            if (alone != null) {
                closeQuietly(alone);
            }
        }
    }

    /**
     * Waits until every rank of {@code c} has arrived, asleep: a non-blocking barrier tested once a millisecond. Ranks
     * that wait inside a blocking MPI call poll at full speed, and while another rank is busy with something slow (a
     * spawn: the new hosts' daemons and JVMs start), that CPU is theirs to lose wherever ranks share cores.
     */
    static void awaitAll(Communicator c) {
        org.troika.mpi.Request arrived = c.ibarrier();
        while (!arrived.test()) {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
        }
    }

    /**
     * The size of the world {@code change}'s spawn joins: {@code members} (the world's ids) without those that leave,
     * with the standby ranks it activates (pure).
     */
    static int sizeBeforeSpawn(int[] members, ElasticMessage.ChangeWorld change) {
        java.util.Set<Integer> leave = new java.util.HashSet<>(change.leave());
        int size = change.activate().size();
        for (int id : members) {
            if (!leave.contains(id)) {
                size++;
            }
        }
        return size;
    }

    /** Whether this process was spawned into a running world (its first context comes from {@link #context}). */
    public boolean joined() {
        return joined;
    }

    /**
     * This rank's context in the current world: its rank, node-local rank and size there, the generation, the
     * broadcaster that follows {@link #current()}; rank 0's host updates stay with the rank that has them. A rank of
     * the launch that became rank 0 because the one before it died or left takes over listening to the driver, at
     * once; so does an activated standby rank, a launch rank as well (since stop 53), and since stop 54 a rank spawned
     * into the world, under its generation id (the driver's address came with its spawn, the worker key from its
     * host's task service). A spawned rank has no spawn command, so a growth it would lead relaunches.
     */
    ElasticContext context(ElasticContext before) {
        Communicator c = current;
        int local = localRank >= 0 ? localRank : before.localRank();
        // a spawned rank's first context came from its spawn's environment, where it was no rank of the world yet
        HostUpdateSource updates = spawnedIn && !tookOver ? HostUpdateSource.none() : before.updates();
        if (c.rank() == 0 && updates == HostUpdateSource.none() && takeOver != null && !tookOver) {
            tookOver = true;
            updates = takeOver.apply(before.generation());
        }
        return new ElasticContext(c.rank(), local, c.size(), before.generation(), broadcaster(), updates,
                before.store());
    }

    /** Every rank of {@link #current()} shares its id and node: the members in order, and this rank's local rank. */
    private void regroup() {
        Communicator next = current;
        long[] ids = new long[2 * next.size()];
        try {
            next.allgather(new long[] {launchRank, nodeId}, ids);
        } catch (MpiException e) {
            throw new CollectiveFailure("another rank failed during the world change: " + e.getMessage(), e);
        }
        int local = 0;
        for (int r = 0; r < next.rank(); r++) {
            if (ids[2 * r + 1] == nodeId) {
                local++;
            }
        }
        int[] order = new int[next.size()];
        for (int r = 0; r < order.length; r++) {
            order[r] = (int) ids[2 * r];
        }
        members = order;
        localRank = local;
    }

    /** This rank leaves the world for good: it reports its leave (75), then its process ends (exit 0, no finalize). */
    private void leaveNow(int generation) {
        System.err.println("troika elastic: rank " + launchRank + " leaves: its host left the job");
        System.err.flush();
        reporter.leave(generation, launchRank, org.troika.common.ElasticExitCodes.HOSTS_UPDATED);
        System.out.flush();
        // a non-zero exit, or MPI_Finalize (which waits for every process of the job), would stop the others
        Runtime.getRuntime().halt(0);
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
     * The report of a change in place: the members now, the ranks that left by the split, and the spawned ranks with
     * their hosts (ids from the change's first join id, in its order).
     */
    static ElasticMessage.WorldChanged changed(int generation, int epoch, int[] members,
            ElasticMessage.ChangeWorld change) {
        List<ElasticMessage.WorldChanged.Joined> joined = new java.util.ArrayList<>();
        for (ElasticMessage.ChangeWorld.Activate a : change.activate()) {
            joined.add(new ElasticMessage.WorldChanged.Joined(a.id(), a.host()));
        }
        int id = change.firstJoinId();
        for (ElasticMessage.ChangeWorld.Spawn s : change.join()) {
            for (int i = 0; i < s.count(); i++) {
                joined.add(new ElasticMessage.WorldChanged.Joined(id++, s.host()));
            }
        }
        return new ElasticMessage.WorldChanged(generation, epoch, java.util.Arrays.stream(members).boxed().toList(),
                change.leave(), joined);
    }

    /**
     * This rank leaves {@link Elastic#run} with {@code code}: prints {@code troika elastic: rank 2 leaves with code 0}
     * for people and reports it to the driver, waiting (bounded) until the driver noted it.
     */
    void leave(int generation, int code) {
        dismissStandby(code);
        leave(reporter, generation, launchRank, code);
    }

    /** {@link #leave(int, int)} for rank {@code launchRank}, reported through {@code reporter}. */
    static void leave(DriverReporter reporter, int generation, int launchRank, int code) {
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
