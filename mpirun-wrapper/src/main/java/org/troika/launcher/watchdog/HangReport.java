package org.troika.launcher.watchdog;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.troika.common.ProgressReport;

/**
 * What the hang watchdog found when a rank stopped making progress (pure rendering).
 *
 * @param timeout the hang timeout that passed
 * @param allIdle whether no rank made progress within the timeout (else some did: stragglers)
 * @param stuck the ranks that stopped outside any collective (they are the cause: the others wait for them); empty
 *     when every rank is blocked inside a collective
 * @param blocked ranks blocked inside a collective for the whole timeout (they wait for the stuck ones)
 * @param behind when all ranks are blocked: those that entered fewer collectives than the rest (they never arrived at
 *     the collective the others are in), else empty
 */
public record HangReport(Duration timeout, boolean allIdle, List<RankState> stuck, List<RankState> blocked,
        List<RankState> behind) {
    public HangReport {
        stuck = List.copyOf(stuck);
        blocked = List.copyOf(blocked);
        behind = List.copyOf(behind);
    }

    /**
     * One rank as last seen.
     *
     * @param rank global rank
     * @param host its host
     * @param idleMillis how long it has made no progress
     * @param last its last progress report, or {@code null} when it never reported (watched by output only)
     */
    public record RankState(int rank, String host, long idleMillis, ProgressReport last) {
        /** {@code after allreduce #56, at 'step 12'}, or {@code no progress report (watched by its output)}. */
        public String lastSeen() {
            if (last == null) {
                return "no progress report (watched by its output only)";
            }
            List<String> parts = new ArrayList<>();
            if (last.inCollective()) {
                parts.add("inside " + last.collective() + " #" + last.entered());
            } else if (last.entered() > 0) {
                parts.add("after " + last.collective() + " #" + last.entered());
            }
            if (!last.where().isEmpty()) {
                parts.add("at '" + last.where() + "'");
            }
            if (last.commits() > 0) {
                parts.add(last.commits() + " commits");
            }
            return parts.isEmpty() ? "started, no progress yet" : String.join(", ", parts);
        }
    }

    /**
     * Whether every rank (two or more) stopped outside any collective at once (none made progress, none waits inside
     * one): nothing singles a rank out, since none waits for another, so no host is to blame (a cause the ranks share:
     * an MPI call troika does not count, such as a spawn, or the program itself). Seen in stop 53: a growth in place that Open MPI
     * could not complete stopped every rank of the world in the spawn or beside it, and blaming them all blacklisted
     * every host, leaving the elastic job waiting for slots that would never come.
     */
    public boolean everyRankStopped() {
        return allIdle && blocked.isEmpty() && stuck.size() > 1;
    }

    /** The ranks the report blames: the stuck ones, else those behind, else every blocked rank. */
    public List<RankState> culprits() {
        return !stuck.isEmpty() ? stuck : !behind.isEmpty() ? behind : blocked;
    }

    /** Lines for stderr, each starting {@code troika: hang: }. */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        long s = timeout.toSeconds();
        out.add("troika: hang: " + (allIdle ? "no rank made progress for " + s + " s"
                : culprits().size() + " rank(s) made no progress for " + s + " s while the others did"));
        for (RankState r : stuck) {
            String arrived = blockedCollective() != null && (r.last() == null || r.last().entered() < maxEntered())
                    ? " never arrived at " + blockedCollective() + ";" : "";
            out.add("troika: hang:   rank " + r.rank() + " on host " + r.host() + " is stuck:" + arrived + " last seen "
                    + r.idleMillis() / 1000 + " s ago, " + r.lastSeen());
        }
        for (RankState r : behind) {
            out.add("troika: hang:   rank " + r.rank() + " on host " + r.host() + " never arrived at "
                    + blockedCollective() + ": it is " + r.lastSeen());
        }
        if (everyRankStopped()) {
            out.add("troika: hang:   every rank stopped outside any collective at once: none waits for another, so"
                    + " none is blamed");
        }
        List<RankState> waiting = blocked.stream().filter(b -> !behind.contains(b)).toList();
        if (!waiting.isEmpty()) {
            out.add("troika: hang:   " + ranks(waiting) + " " + (waiting.size() == 1 ? "is" : "are")
                    + " blocked inside " + collectives(waiting) + (stuck.isEmpty() && behind.isEmpty()
                    ? " (every rank is inside it: the collective itself does not complete; check the network)"
                    : ", waiting for " + (culprits().size() == 1 ? "it" : "them")));
        }
        return out;
    }

    private long maxEntered() {
        return blocked.stream().mapToLong(b -> b.last().entered()).max().orElse(0);
    }

    /** {@code allreduce #57}: the collective most blocked ranks are in, or {@code null} when none is blocked. */
    private String blockedCollective() {
        return blocked.stream().filter(b -> b.last().entered() == maxEntered()).findFirst()
                .map(b -> b.last().collective() + " #" + b.last().entered()).orElse(null);
    }

    private static String collectives(List<RankState> rs) {
        return rs.stream().map(r -> r.last().collective() + " #" + r.last().entered()).distinct()
                .collect(Collectors.joining(", "));
    }

    static String ranks(List<RankState> rs) {
        String ranks = rs.stream().map(r -> Integer.toString(r.rank())).collect(Collectors.joining(","));
        String hosts = rs.stream().map(RankState::host).distinct().collect(Collectors.joining(","));
        return (rs.size() == 1 ? "rank " : "ranks ") + ranks + " (host" + (hosts.contains(",") ? "s " : " ") + hosts + ")";
    }
}
