package org.troika.launcher.watchdog;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.troika.common.ProgressReport;
import org.troika.launcher.elastic.World;
import org.troika.launcher.spi.HostPlan;

/**
 * Decides when a job hangs, from the ranks' progress reports and output (pure; the caller supplies the time).
 *
 * <p>Progress of a rank: any counter of its report moved (collectives entered or left, beats, commits); for a rank
 * that never reported (a C program without the protocol), any line of its output. Until a rank shows its first sign
 * of life (a report or a line) it has the start grace (the start timeout) instead of the hang timeout, if longer: JVM
 * start and MPI wire-up are not a hang.
 *
 * <p>The ranks watched are the launch's world, then those that join it in place ({@link #join}: a standby rank
 * activated, a rank spawned by a growth) from their first report after joining; a rank that died or left is
 * forgotten.
 *
 * <p>A <b>hang</b> is declared (once) when some rank has made no progress for the timeout and is not blocked inside a
 * collective (it is the cause: stragglers or a rank that never arrived), or when every rank has been blocked inside a
 * collective for the timeout (nothing completes). Ranks blocked in a collective while some peer still progresses are
 * waiting, not hung: a slow but progressing job is never declared hung. A <b>warning</b> uses the same rule with the
 * warning time and is given once per stall.
 */
public final class HangWatchdog {
    private final HostPlan plan;
    private final Duration timeout;
    private final Duration warning;
    private final Duration startGrace;
    /** Ids below this are watched; the arrays hold this many (their length is the capacity). */
    private int count;
    private boolean[] member;
    private boolean[] alive;
    private long[] lastChange;
    private ProgressReport[] last;
    private boolean[] gone;
    private String[] hosts;
    private boolean hung;
    private boolean warned;

    /**
     * @param plan the ranks and their hosts
     * @param timeout no progress for this long is a hang
     * @param warning no progress for this long gives a warning, or {@code null}
     * @param startGrace how long a rank may take to show its first sign of life
     * @param startMillis the launch time
     */
    public HangWatchdog(HostPlan plan, Duration timeout, Duration warning, Duration startGrace, long startMillis) {
        this.startGrace = Objects.requireNonNull(startGrace, "startGrace");
        this.plan = Objects.requireNonNull(plan, "plan");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.warning = warning;
        this.count = plan.size();
        this.member = new boolean[count];
        this.alive = new boolean[count];
        this.lastChange = new long[count];
        this.last = new ProgressReport[count];
        this.gone = new boolean[count];
        this.hosts = new String[count];
        java.util.Arrays.fill(member, true);
        java.util.Arrays.fill(lastChange, startMillis);
    }

    /**
     * Takes a rank's report. Returns whether it is valid for this job: a rank of the world (the launch's, or one that
     * joined it since). A standby rank waiting outside the world, or a spawned one before it has joined, is not
     * watched yet.
     */
    public synchronized boolean report(ProgressReport r, long nowMillis) {
        if (r.rank() >= count || !member[r.rank()]) {
            return false;
        }
        alive[r.rank()] = true;
        if (r.progressedSince(last[r.rank()])) {
            lastChange[r.rank()] = nowMillis;
            warned = false;
        }
        last[r.rank()] = r;
        return true;
    }

    /**
     * Rank {@code rank} of the generation (a spawned rank's id, or a standby rank's launch rank) joined the world on
     * {@code host}: watched from its first report on (its output is not the launch's to see, so a joined rank that
     * cannot report is never blamed; it stalls the others inside a collective, which is still a hang). Ranks of the
     * launch's world, ids already joined and ids past {@link World#MAX_JOINED} more are ignored.
     */
    public synchronized void join(int rank, String host) {
        if (rank < plan.size() || rank >= plan.size() + World.MAX_JOINED || rank < count && member[rank]) {
            return;
        }
        if (rank >= count) {
            grow(rank + 1);
        }
        member[rank] = true;
        hosts[rank] = Objects.requireNonNull(host, "host");
    }

    private void grow(int needed) {
        int capacity = Math.max(needed, Math.min(plan.size() + World.MAX_JOINED, Math.max(16, member.length * 2)));
        if (capacity > member.length) {
            member = java.util.Arrays.copyOf(member, capacity);
            alive = java.util.Arrays.copyOf(alive, capacity);
            lastChange = java.util.Arrays.copyOf(lastChange, capacity);
            last = java.util.Arrays.copyOf(last, capacity);
            gone = java.util.Arrays.copyOf(gone, capacity);
            hosts = java.util.Arrays.copyOf(hosts, capacity);
        }
        count = needed;
    }

    /** A line of output from {@code rank}: progress for ranks that never reported. */
    public synchronized void output(int rank, long nowMillis) {
        if (rank >= 0 && rank < plan.size() && last[rank] == null) {
            alive[rank] = true;
            lastChange[rank] = nowMillis;
            warned = false;
        }
    }

    /**
     * A rank that died or left while the others go on ({@code --fault-tolerance shrink}, a change in place): its
     * silence is no hang, and the others no longer wait for it.
     */
    public synchronized void forget(int rank) {
        if (rank >= 0 && rank < count) {
            gone[rank] = true;
        }
    }

    /** The last report of {@code rank}, or {@code null}. */
    public synchronized ProgressReport last(int rank) {
        return rank >= 0 && rank < count ? last[rank] : null;
    }

    /** The hang, the first time one is seen at {@code nowMillis}; empty otherwise and after it was reported. */
    public synchronized Optional<HangReport> check(long nowMillis) {
        if (hung) {
            return Optional.empty();
        }
        Optional<HangReport> r = evaluate(nowMillis, timeout);
        hung = r.isPresent();
        return r;
    }

    /** A stall longer than the warning time, once per stall; empty when no warning time is set. */
    public synchronized Optional<HangReport> warn(long nowMillis) {
        if (warning == null || warned || hung) {
            return Optional.empty();
        }
        Optional<HangReport> r = evaluate(nowMillis, warning);
        warned = r.isPresent();
        return r;
    }

    public synchronized boolean hung() {
        return hung;
    }

    /**
     * One pass that only counts (the checker calls this every second, and at 10,000 ranks a state object per rank per
     * check was garbage for nothing), and a second one that builds the report when there is one.
     */
    private Optional<HangReport> evaluate(long now, Duration limit) {
        long limitMillis = limit.toMillis();
        int stuckCount = 0;
        int insideLong = 0;
        int watched = 0;
        for (int r = 0; r < count; r++) {
            if (!judged(r)) {
                continue;
            }
            watched++;
            boolean quiet = quiet(r, now, limitMillis);
            if (last[r] != null && last[r].inCollective()) {
                insideLong += quiet ? 1 : 0;
            } else if (quiet) {
                stuckCount++;
            }
        }
        if (stuckCount == 0 && (watched == 0 || insideLong < watched)) {
            return Optional.empty();
        }
        List<HangReport.RankState> stuck = new ArrayList<>();
        List<HangReport.RankState> inside = new ArrayList<>();
        boolean anyProgressed = false;
        for (int r = 0; r < count; r++) {
            if (!judged(r)) {
                continue;
            }
            HangReport.RankState st = new HangReport.RankState(r, host(r), now - lastChange[r], last[r]);
            boolean quiet = quiet(r, now, limitMillis);
            if (last[r] != null && last[r].inCollective()) {
                // waiting for peers (however recently it entered): not a cause
                inside.add(st);
            } else if (quiet) {
                stuck.add(st);
            } else {
                anyProgressed = true;
            }
        }
        if (!stuck.isEmpty()) {
            return Optional.of(new HangReport(limit, !anyProgressed, stuck, inside, List.of()));
        }
        long max = inside.stream().mapToLong(b -> b.last().entered()).max().orElse(0);
        List<HangReport.RankState> behind = inside.stream().filter(b -> b.last().entered() < max).toList();
        return Optional.of(new HangReport(limit, true, List.of(), inside, behind));
    }

    /** Whether rank {@code r} is judged: a rank of the launch's world or one that joined it and reported since. */
    private boolean judged(int r) {
        return member[r] && !gone[r] && (r < plan.size() || alive[r]);
    }

    private String host(int r) {
        return r < plan.size() ? plan.slots().get(r).host() : hosts[r];
    }

    /** Whether rank {@code r} has shown no progress for the limit (the start grace until its first sign of life). */
    private boolean quiet(int r, long now, long limitMillis) {
        return now - lastChange[r] >= (alive[r] ? limitMillis : Math.max(limitMillis, startGrace.toMillis()));
    }
}
