package org.troika.launcher.exec;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.troika.launcher.elastic.RankExit;
import org.troika.launcher.mpi.FailedRank;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.watchdog.HangReport;
import org.troika.launcher.watchdog.HangWatch;

/**
 * The exits of an elastic generation from how its launch ended (pure): the one place that decides which ranks failed
 * by themselves (their hosts are blacklisted), which were casualties and which left cleanly.
 *
 * <p>Precedence: lost hosts first (a lost host explains whatever mpirun and the ranks said afterwards), then a hang,
 * then an in-place world change the ranks reported (fault tolerance: shrink), then mpirun's exit code with the first
 * failed rank it named.
 */
public final class GenerationExits {
    /** Exit code reported for the ranks of a lost host (what the relay agents exit with). */
    public static final int HOST_LOST_EXIT = 255;

    private GenerationExits() {}

    /** The exits of a generation run over {@code plan} that ended as {@code outcome}. */
    public static List<RankExit> of(HostPlan plan, LaunchOutcome outcome) {
        if (!outcome.lost().isEmpty()) {
            return lost(plan, outcome.lost());
        }
        if (outcome.hang() != null) {
            return hang(plan, outcome.hang());
        }
        if (outcome.world() != null) {
            return outcome.world();
        }
        return exited(plan, outcome.exitCode(), outcome.first());
    }

    /**
     * A host the relay's liveness check declared lost (killed, partitioned): its ranks fail with
     * {@link #HOST_LOST_EXIT}, every other rank is a casualty.
     */
    static List<RankExit> lost(HostPlan plan, Set<String> lost) {
        List<RankExit> exits = new ArrayList<>();
        int n = plan.size();
        for (int r = 0; r < n; r++) {
            String h = plan.slots().get(r).host();
            if (lost.contains(h)) {
                exits.add(new RankExit(r, h, HOST_LOST_EXIT, false));
            }
        }
        for (int r = 0; r < n; r++) {
            String h = plan.slots().get(r).host();
            if (!lost.contains(h)) {
                exits.add(new RankExit(r, h, HOST_LOST_EXIT, true));
            }
        }
        return exits;
    }

    /**
     * Open MPI names only the first rank that failed; that rank is reported as it ended and every other rank as a
     * collateral exit with the same code (so a common exit 75 is a clean leave for everyone, any other code
     * blacklists only the first rank's host). Without a named rank, a clean common exit (0 or 75) is everyone's, and
     * anything else makes every rank a casualty.
     */
    static List<RankExit> exited(HostPlan plan, int launcherCode, FailedRank first) {
        List<RankExit> exits = new ArrayList<>();
        int n = plan.size();
        boolean named = first != null && first.rank() >= 0 && first.rank() < n && launcherCode != 0;
        if (named) {
            exits.add(new RankExit(first.rank(), plan.slots().get(first.rank()).host(), first.exitCode(), false));
        }
        for (int r = 0; r < n; r++) {
            if (named && r == first.rank()) {
                continue;
            }
            exits.add(new RankExit(r, plan.slots().get(r).host(), named ? first.exitCode() : launcherCode,
                    launcherCode != 0));
        }
        return exits;
    }

    /**
     * The hang watchdog ended the generation: the ranks it blames (stuck outside a collective, or behind the others)
     * fail with {@link HangWatch#EXIT_HANG} and their hosts are blacklisted like those of failed ranks; every other
     * rank is a casualty. When every rank was blocked in the same collective, or every rank stopped outside any
     * ({@link HangReport#everyRankStopped()}), nobody is blamed: the next generation retries on the same hosts.
     */
    static List<RankExit> hang(HostPlan plan, HangReport hang) {
        List<RankExit> exits = new ArrayList<>();
        Set<Integer> blamed = new HashSet<>();
        List<HangReport.RankState> blame = hang.everyRankStopped() ? List.of()
                : hang.stuck().isEmpty() ? hang.behind() : hang.stuck();
        for (HangReport.RankState r : blame) {
            blamed.add(r.rank());
            exits.add(new RankExit(r.rank(), r.host(), HangWatch.EXIT_HANG, false));
        }
        for (int r = 0; r < plan.size(); r++) {
            if (!blamed.contains(r)) {
                exits.add(new RankExit(r, plan.slots().get(r).host(), HangWatch.EXIT_HANG, true));
            }
        }
        return exits;
    }
}
