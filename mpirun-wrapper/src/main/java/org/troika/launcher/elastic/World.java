package org.troika.launcher.elastic;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.MpiInstall;
import org.troika.launcher.spi.SlotInfo;

/**
 * The ranks of a running generation as the driver knows them: each rank's id in the generation (the launch ranks, then
 * ranks spawned into it from the launch's size up) with its host, in rank order. A generation starts with its plan's
 * world and changes it in place (issue 25) by {@link WorldChange}s. Pure.
 *
 * @param members the ranks in rank order
 * @param nextId the id the next spawned rank gets
 * @param spawnedFrom the first id of a rank spawned into the generation ({@link Integer#MAX_VALUE} before any): the
 *     ids below it are the launch's processes (its ranks and standby ranks)
 */
public record World(List<Member> members, int nextId, int spawnedFrom) {
    /**
     * Ranks that may join a generation past its launch (standby ranks activated, ranks spawned), at most: the
     * launcher's trackers ignore joins past it, a bound on what reports can make them hold. Ids are dense (the
     * launch's, then each spawn's in turn), so this bounds ids too.
     */
    public static final int MAX_JOINED = 65_536;

    /** One rank: its id in the generation and its host. */
    public record Member(int id, String host) {}

    public World {
        members = List.copyOf(members);
    }

    /** The world a generation launches with: rank r is id r on the plan's host of rank r. */
    public static World of(HostPlan plan) {
        List<Member> m = new ArrayList<>();
        for (SlotInfo s : plan.slots()) {
            m.add(new Member(s.rank(), s.host()));
        }
        return new World(m, m.size(), Integer.MAX_VALUE);
    }

    /** How many ranks. */
    public int size() {
        return members.size();
    }

    /** The hosts with their rank counts, in the order of each host's first rank. */
    public List<HostSlots> hosts() {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (Member m : members) {
            counts.merge(m.host(), 1, Integer::sum);
        }
        List<HostSlots> out = new ArrayList<>();
        counts.forEach((h, n) -> out.add(new HostSlots(h, n)));
        return out;
    }

    /** The hosts that have ranks, in order. */
    public List<String> hostNames() {
        return hosts().stream().map(HostSlots::name).toList();
    }

    /**
     * The change in place that turns this world into one with {@code wanted}'s ranks per host (the plan a relaunch
     * would have), or empty when it cannot be made in place:
     * <ul>
     *   <li>a host of this world keeps its ranks, loses its last ranks (they leave) or all of them; a host with more
     *       ranks wanted than it runs (a host this world does not have, or one of its own given more slots) gets the
     *       difference by a spawn next to its running ranks, in {@code wanted}'s order;</li>
     *   <li>not in place: nothing wanted (below {@code --min-np}), every rank leaving, standby ranks waiting or
     *       activated while the world's rank 0 after the change could not lead their activation ({@link
     *       #leadsStandby}), ranks leaving without {@code can.leave()}, standby ranks activated without
     *       {@code can.grow()} or ranks spawned without {@code can.spawn()}. Rank 0 may leave: the world's next rank 0
     *       takes over listening to the driver.</li>
     * </ul>
     * A change with nobody leaving or joining ({@link WorldChange#isEmpty()}) means the world already has those ranks.
     */
    public Optional<WorldChange> toward(List<HostSlots> wanted, InPlace can) {
        return toward(wanted, can, Map.of());
    }

    /**
     * {@link #toward(List, InPlace)} in a generation with standby ranks ({@code standby}: the ids of each standby
     * host's waiting ranks not activated yet): a host's new ranks are its waiting ones first (activated, in order),
     * and only those beyond them are spawned. The standby ranks come after the survivors, before the spawned ranks,
     * whose ids start above every id of the launch.
     */
    public Optional<WorldChange> toward(List<HostSlots> wanted, InPlace can, Map<String, List<Integer>> standby) {
        if (wanted.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Integer> want = new LinkedHashMap<>();
        for (HostSlots h : wanted) {
            want.merge(h.name(), h.slots(), Integer::sum);
        }
        Map<String, Integer> have = new LinkedHashMap<>();
        for (HostSlots h : hosts()) {
            have.put(h.name(), h.slots());
        }
        Set<Integer> leave = new HashSet<>();
        for (Map.Entry<String, Integer> h : have.entrySet()) {
            int drop = h.getValue() - want.getOrDefault(h.getKey(), 0);
            for (int i = members.size() - 1; i >= 0 && drop > 0; i--) {
                if (members.get(i).host().equals(h.getKey())) {
                    leave.add(members.get(i).id());
                    drop--;
                }
            }
        }
        List<WorldChange.Join> join = new ArrayList<>();
        List<WorldChange.Activate> activate = new ArrayList<>();
        for (Map.Entry<String, Integer> h : want.entrySet()) {
            int more = h.getValue() - have.getOrDefault(h.getKey(), 0);
            if (more <= 0) {
                continue;
            }
            List<Integer> waiting = standby.getOrDefault(h.getKey(), List.of());
            int activated = Math.min(more, waiting.size());
            for (int id : waiting.subList(0, activated)) {
                activate.add(new WorldChange.Activate(h.getKey(), id));
            }
            if (more > activated) {
                join.add(new WorldChange.Join(h.getKey(), more - activated));
            }
        }
        // rank 0 may leave: the world's next rank 0 hears the driver from then on (it subscribes as it becomes rank 0).
        // Someone must stay to spawn or activate (the launcher also wants a process of the launch alive among them:
        // keepsTheLaunch); while standby ranks wait (or are activated now), the world's rank 0 after the change must be
        // able to lead their activation (leadsStandby)
        boolean waiting = standby.values().stream().anyMatch(ids -> !ids.isEmpty());
        List<Member> staying = members.stream().filter(m -> !leave.contains(m.id())).toList();
        if (staying.isEmpty() || ((waiting || !activate.isEmpty()) && !leadsStandby(staying, standby))
                || (!leave.isEmpty() && !can.leave()) || (!activate.isEmpty() && !can.grow())
                || (!join.isEmpty() && !can.spawn())) { // can.spawn() implies can.grow()
            return Optional.empty();
        }
        int firstJoinId = nextId;
        for (List<Integer> ids : standby.values()) {
            for (int id : ids) {
                firstJoinId = Math.max(firstJoinId, id + 1);
            }
        }
        List<Member> next = new ArrayList<>();
        List<Integer> leaving = new ArrayList<>();
        for (Member m : members) {
            if (leave.contains(m.id())) {
                leaving.add(m.id());
            } else {
                next.add(m);
            }
        }
        for (WorldChange.Activate a : activate) {
            next.add(new Member(a.id(), a.host()));
        }
        int id = firstJoinId;
        for (WorldChange.Join j : join) {
            for (int i = 0; i < j.count(); i++) {
                next.add(new Member(id++, j.host()));
            }
        }
        return Optional.of(new WorldChange(leaving, join, firstJoinId,
                new World(next, id, join.isEmpty() ? spawnedFrom : Math.min(spawnedFrom, firstJoinId)), activate));
    }

    /**
     * Whether a process of the launch (a rank or an activated standby rank: an id below {@link #spawnedFrom}) is among
     * this world's members that are not {@code gone} (whose processes still run). A world of spawned ranks alone cannot
     * go on in place, which the launcher checks before it sends a change: once the launch's last process has ended,
     * PRRTE 3.0.8 (Open MPI 5.0.7) fails the next end of a spawned rank, whether it leaves or finishes ("LAUNCHER JOB
     * OBJECT NOT FOUND": the spawn's job looks up its launcher job, which is gone) and mpirun ends the job under the
     * others (measured stop 54: two standby hosts grown onto by one spawn, the launch's two hosts left, then the
     * fourth host left in place: the third rank was ended with it).
     */
    public boolean keepsTheLaunch(java.util.function.IntPredicate gone) {
        for (Member m : members) {
            if (m.id() < spawnedFrom && !gone.test(m.id())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the first of {@code staying} (the world's rank 0 once the change is made) can activate the waiting
     * standby ranks ({@code standby}, by host). A waiting rank listens to the launch ranks in the order of their ids
     * and passes one only once it is gone (ElasticWorld.awaitActivation), so the leader must be the smallest id alive
     * of the launch: the smallest id that stays, and below every waiting one (ids of spawned ranks come after every
     * launch id, so a spawned rank 0 never qualifies; nor does an activated standby rank merged after a larger one).
     * Ranks that leave in the change end their processes, which the waiting ranks then pass.
     */
    static boolean leadsStandby(List<Member> staying, Map<String, List<Integer>> standby) {
        int leader = staying.get(0).id();
        for (Member m : staying) {
            if (m.id() < leader) {
                return false;
            }
        }
        for (List<Integer> ids : standby.values()) {
            for (int id : ids) {
                if (id < leader) {
                    return false;
                }
            }
        }
        return true;
    }

    /** What a running generation can change in place (issue 25): ranks leave by a split, ranks join by a spawn. */
    public record InPlace(boolean grow, boolean leave, boolean spawn) {
        /** Nothing: every host change ends the generation (Open MPI 4, MPICH, Intel MPI, srun). */
        public static final InPlace NONE = new InPlace(false, false);

        /**
         * Ranks may join ({@code grow}: standby ranks activated, and new ones spawned when {@code spawn}) and leave.
         * {@code spawn} without {@code grow} means nothing.
         */
        public InPlace {
            spawn &= grow;
        }

        /** A generation that has not spawned yet: growing means spawning as well. */
        public InPlace(boolean grow, boolean leave) {
            this(grow, leave, grow);
        }

        /**
         * What a generation launched on {@code mpi} can change in place (pure; docs/elastic.md has the evidence):
         * <ul>
         *   <li>leave: Open MPI 5 run with ULFM ({@code --with-ft ulfm}, {@code faultTolerant}) only. A rank that
         *       leaves ends its process without {@code MPI_Finalize} (which waits for every process of the job):
         *       PRRTE with ULFM goes on, Open MPI 4's ORTE and MPICH's Hydra end the whole job;</li>
         *   <li>grow: Open MPI 5 with ULFM, when its daemons start through the relay ({@code relayed}): the ranks
         *       spawn onto the added hosts ({@code PMIX_ADD_HOST}), mpirun starts the new daemons through its agent
         *       with a key opened for those hosts alone. Open MPI 4 spawns and merges on the job's hosts
         *       (SpawnIntegrationTest) but cannot leave, and a grown world that cannot shrink back is not worth a
         *       second path; MPICH 4.0.2 (ch4:ucx) cannot spawn at all.</li>
         * </ul>
         */
        public static InPlace of(MpiInstall mpi, boolean faultTolerant, boolean relayed) {
            boolean prrte = mpi.usesPrrte() && faultTolerant;
            return new InPlace(prrte && relayed, prrte);
        }
    }
}
