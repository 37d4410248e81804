package org.troika.launcher.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.troika.common.ElasticExitCodes;
import org.troika.launcher.elastic.RankExit;
import org.troika.launcher.elastic.World;
import org.troika.launcher.spi.HostPlan;
import org.troika.wire.ElasticMessage;

/**
 * Follows a generation whose world changes in place through its ranks' reports ({@link WorkerNotifier.RankEvents}):
 * under {@code mpirun --with-ft ulfm} a dead rank does not end mpirun and mpirun names nobody, so the survivors say
 * it. After a shrink the new rank 0 reports the world ({@link ElasticMessage.WorldChanged}: the members now; a rank
 * of the world before that is neither a member, nor departed, nor has left, died), and every rank leaving
 * {@code Elastic.run} reports its code ({@link ElasticMessage.RankLeft}). Ranks are the generation's rank ids: the
 * launch ranks of the plan, and ranks spawned into the world later with the host a report names
 * ({@link ElasticMessage.WorldChanged#joined()}). Rank output is never read: a rank printing the lines people see
 * about these events changes nothing here.
 *
 * <p>Once every rank is dead, departed or has left, the generation is over even if mpirun lingers (PRRTE 3.0.8 at
 * times stays up after its survivors exit): {@link News#over()} lets the launcher end it after a grace. When every
 * rank reported leaving for a host change ({@link ElasticExitCodes#HOSTS_UPDATED}), the ranks' reports already say
 * how the generation ends: {@link News#leftTogether()} lets the launcher start the next one while mpirun still ends
 * (PRRTE spends ~0.75 s killing ranks that exit non-zero, whether or not they are still there).
 *
 * <p>Thread-safe: the notifier's connection threads report concurrently; {@link News} is called outside the lock.
 */
public final class ShrinkTracker implements WorkerNotifier.RankEvents {
    /** Reported for a rank the survivors shrank away: its real exit status is not visible under ULFM. */
    public static final int DIED_EXIT = 137;
    /**
     * Reported for a rank of a changed world that did not leave {@code Elastic.run} although mpirun exited 0 (the MPI's
     * runtime ended the job under it): a casualty, so the generation is relaunched.
     */
    public static final int UNFINISHED_EXIT = 255;

    /** What the launcher does at once with what the ranks reported. */
    public interface News {
        /** {@code rank} on {@code host} died and the survivors go on (told once per rank). */
        void died(int rank, String host);

        /** {@code rank} on {@code host} left the world by a split: its host left the job (told once per rank). */
        default void departed(int rank, String host) {}

        /**
         * {@code rank} on {@code host}, not a rank of the launch's world, joined it in place (a standby rank activated, a
         * rank spawned by a growth; told once per rank, before the deaths and departures of the same report).
         */
        default void joined(int rank, String host) {}

        /** The world changed and every rank is now dead, departed or has left (told once). */
        void over();

        /**
         * Every rank that is not dead or departed reported leaving for a host change (none died, none finished): the
         * generation ends in a relaunch whatever mpirun does now (told once, possibly after {@link #over()}).
         */
        default void leftTogether() {}

        /** Nothing to do. */
        News NONE = new News() {
            @Override
            public void died(int rank, String host) {}

            @Override
            public void over() {}
        };
    }

    private final News news;
    private final int launched;
    /** Every rank id of the generation with its host: the plan's, then those spawned into it. */
    private final Map<Integer, String> hosts = new TreeMap<>();
    private final Set<Integer> dead = new TreeSet<>();
    private final Set<Integer> departed = new TreeSet<>();
    private final Map<Integer, Integer> left = new TreeMap<>();
    /** Ranks whose processes ended without a leave, not (yet) named dead by a report of the survivors. */
    private final Set<Integer> ended = new TreeSet<>();
    /** How many ranks of {@link #hosts} are neither dead, departed nor have left: kept, so no event walks every rank. */
    private int unaccountedCount;
    /** How many ranks left with 0 (their training body finished). */
    private int finished;
    /**
     * The code every rank that left so far left with, or {@code null} before the first leave or once two differ. A
     * rank without a leave report takes it when mpirun exited 0 and no rank finished (a world that leaves for a
     * relaunch leaves together: a spawned rank whose notifier address did not fit into its spawn's environment cannot
     * report, and left with the others); without it such a rank did not finish.
     */
    private Integer sharedCode;
    private int epoch;
    /** Reports of changes in place made (ranks joined or departed), as opposed to shrinks. */
    private int changesMade;
    private boolean toldOver;
    /** Whether the launcher is ending the generation ({@link #endedByLauncher}): later reports of deaths are ignored. */
    private boolean ending;
    private boolean toldLeftTogether;

    public ShrinkTracker(HostPlan plan, News news) {
        this.news = news;
        this.launched = plan.size();
        for (int r = 0; r < plan.size(); r++) {
            hosts.put(r, plan.slots().get(r).host());
        }
        unaccountedCount = hosts.size();
    }

    @Override
    public void event(ElasticMessage event) {
        Map<Integer, String> died = new TreeMap<>();
        Map<Integer, String> gone = new TreeMap<>();
        Map<Integer, String> joined = new TreeMap<>();
        boolean nowOver;
        boolean nowLeftTogether;
        synchronized (this) {
            if (event instanceof ElasticMessage.WorldChanged w) {
                if (!ending) {
                    changed(w, joined, died, gone);
                }
            } else if (event instanceof ElasticMessage.RankLeft l && hosts.containsKey(l.rank())
                    && !left.containsKey(l.rank())) {
                boolean was = unaccounted(l.rank());
                left.put(l.rank(), l.code());
                settled(was);
                if (l.code() == 0) {
                    finished++;
                }
                if (left.size() == 1) {
                    sharedCode = l.code();
                } else if (sharedCode != null && sharedCode != l.code()) {
                    sharedCode = null; // and stays null: once two differ, no later leave makes them agree
                }
            }
            nowOver = !toldOver && over();
            toldOver |= nowOver;
            nowLeftTogether = !toldLeftTogether && leftTogether();
            toldLeftTogether |= nowLeftTogether;
        }
        joined.forEach(news::joined);
        died.forEach(news::died);
        gone.forEach(news::departed);
        if (nowOver) {
            news.over();
        }
        if (nowLeftTogether) {
            news.leftTogether();
        }
    }

    /**
     * Whether every rank is accounted for, none died and every rank that left (at least one) left for a host change:
     * {@link #exits} is then the generation's end, whatever mpirun still does.
     */
    public synchronized boolean leftTogether() {
        return accountedFor() && dead.isEmpty() && sharedCode != null
                && sharedCode == ElasticExitCodes.HOSTS_UPDATED;
    }

    /**
     * Applies a report newer than the last one; the ranks it shows joined, dead or departed for the first time go to
     * {@code joined}, {@code died} or {@code gone} with their hosts.
     */
    private void changed(ElasticMessage.WorldChanged w, Map<Integer, String> joined, Map<Integer, String> died,
            Map<Integer, String> gone) {
        if (w.epoch() <= epoch) {
            return; // stale: a later change was reported first, over another rank's connection
        }
        epoch = w.epoch();
        if (!w.joined().isEmpty() || !w.departed().isEmpty()) {
            changesMade++;
        }
        for (ElasticMessage.WorldChanged.Joined j : w.joined()) {
            if (j.rank() >= launched && !hosts.containsKey(j.rank()) && hosts.size() < launched + World.MAX_JOINED) {
                hosts.put(j.rank(), j.host());
                unaccountedCount++;
                joined.put(j.rank(), j.host());
            }
        }
        for (int r : w.departed()) {
            boolean was = hosts.containsKey(r) && unaccounted(r);
            if (hosts.containsKey(r) && departed.add(r)) {
                settled(was);
                gone.put(r, hosts.get(r));
            }
        }
        Set<Integer> members = Set.copyOf(w.members());
        for (int r : hosts.keySet()) {
            if (!members.contains(r) && !departed.contains(r) && !left.containsKey(r) && dead.add(r)) {
                unaccountedCount--; // it was neither dead, departed nor left
                died.put(r, hosts.get(r));
            }
        }
    }

    /**
     * The process of {@code rank} has ended, as its host saw it (its task service: {@code RelayMessage.RankEnded}),
     * whatever the MPI's runtime reported. A rank that reported its leave ended as it said; any other died, and the
     * survivors should report the world without it soon: returns whether this is such a rank, not yet named dead.
     */
    public synchronized boolean processEnded(int rank) {
        return hosts.containsKey(rank) && unaccounted(rank) && ended.add(rank);
    }

    /** Whether {@code rank} is dead, departed, has left, or its process ended as its host saw it. */
    public synchronized boolean gone(int rank) {
        return !unaccounted(rank) || ended.contains(rank);
    }

    /**
     * Whether {@code rank}'s process ended without a leave and no report of the survivors has named it dead or departed
     * (split off with its host).
     */
    public synchronized boolean unconfirmed(int rank) {
        return ended.contains(rank) && !dead.contains(rank) && !departed.contains(rank) && !left.containsKey(rank);
    }

    /**
     * The survivors did not recover from the end of {@code rank}'s process: it counts as dead (its host is
     * blacklisted) and the generation ends. Nothing is told: the world did not go on.
     */
    public synchronized void declareDead(int rank) {
        if (unconfirmed(rank)) {
            dead.add(rank);
            unaccountedCount--; // unconfirmed: neither dead, departed nor left before
        }
    }

    /**
     * The launcher ends the generation itself (for a relaunch): the ranks it kills are casualties of that, not failures,
     * so the survivors' reports of them dying (they shrink while the teardown reaches them one after another) are
     * ignored from now on; their hosts are not blacklisted for it. Leaves are still taken.
     */
    public synchronized void endedByLauncher() {
        ending = true;
    }

    /**
     * How many changes in place the ranks reported made (a report naming ranks that joined or departed; a shrink names
     * neither): the launcher compares it with the changes it sent.
     */
    public synchronized int changesMade() {
        return changesMade;
    }

    /** Whether the world changed in place (a rank died, left by a split or joined). */
    public synchronized boolean changed() {
        return epoch > 0 || !dead.isEmpty();
    }

    /** Whether a rank reported leaving {@code Elastic.run} with 0: its training body finished. */
    public synchronized boolean anyFinished() {
        return finished > 0;
    }

    /**
     * The ranks that neither died, departed nor reported their leave and that {@link #exits} counts unfinished when
     * mpirun exited 0: none when a rank finished, or when every rank that left left with the same code.
     */
    public synchronized List<Integer> notLeft() {
        if (anyFinished() || sharedCode != null) {
            return List.of();
        }
        List<Integer> out = new ArrayList<>();
        for (int r : hosts.keySet()) {
            if (unaccounted(r)) {
                out.add(r);
            }
        }
        return out;
    }

    /** Whether the world changed and every rank is dead, departed or has left. */
    public synchronized boolean over() {
        return changed() && accountedFor();
    }

    /**
     * Whether every rank is dead, departed or has reported its leave, changed world or not: then the ranks' reports
     * explain how the launch ended (all of them left for a relaunch, each with its code), and no lost host needs to be
     * waited for.
     */
    public synchronized boolean accountedFor() {
        return unaccountedCount == 0;
    }

    /** A rank that was unaccounted ({@code was}) is now dead, departed or has left. */
    private void settled(boolean was) {
        if (was) {
            unaccountedCount--;
        }
    }

    /** Whether {@code rank} is neither dead, departed nor reported its leave (the caller holds the lock). */
    private boolean unaccounted(int rank) {
        return !dead.contains(rank) && !departed.contains(rank) && !left.containsKey(rank);
    }

    /**
     * The exits of a generation whose world changed, or was told to change: the dead ranks fail with
     * {@link #DIED_EXIT} (their hosts are blacklisted), the others with the code they left with; a rank that reported
     * no leave ended as mpirun did (a casualty when that is not 0), as {@link GenerationExits} has them. When mpirun
     * exited 0 but no rank reported leaving at all, the training did not end: ranks that change their world
     * in place run troika's worker, which reports every leave of {@code Elastic.run}, so the MPI's runtime ended the
     * job under them (PRRTE 3.0.8 ends a job with exit 0 when it loses a daemon, as when one fails in a spawn's connect
     * step). Those ranks are then casualties with {@link #UNFINISHED_EXIT}: nobody is blamed and the driver relaunches
     * from the last commit instead of reporting the job done. One rank that finished means the training ended: a
     * rank whose own report did not arrive then ends as mpirun did. When ranks left but none finished and all that
     * left agree on their code, a rank without a report left with them (collateral, with that code): a spawned rank
     * whose notifier address did not fit into its spawn's environment reports nothing, and PRRTE 3.0.8 at times loses
     * a spawned rank's daemon while a grown world leaves for a relaunch (75) and exits 0; taken as 0, that rank made
     * the job "done" with the training unfinished.
     */
    public synchronized List<RankExit> exits(int mpirunCode) {
        Integer together = mpirunCode == 0 && !anyFinished() ? sharedCode : null;
        boolean unfinished = mpirunCode == 0 && !anyFinished() && together == null;
        List<RankExit> exits = new ArrayList<>();
        for (int r : dead) {
            exits.add(new RankExit(r, hosts.get(r), DIED_EXIT, false));
        }
        for (Map.Entry<Integer, String> h : hosts.entrySet()) {
            int r = h.getKey();
            if (dead.contains(r)) {
                continue;
            }
            Integer code = left.get(r);
            exits.add(code != null ? new RankExit(r, h.getValue(), code, false)
                    : together != null ? new RankExit(r, h.getValue(), together, true)
                    : unfinished ? new RankExit(r, h.getValue(), UNFINISHED_EXIT, true)
                    : new RankExit(r, h.getValue(), mpirunCode, mpirunCode != 0));
        }
        return exits;
    }
}
