package org.troika.launcher.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.troika.launcher.elastic.RankExit;
import org.troika.launcher.spi.HostPlan;

/**
 * Follows a fault-tolerant generation ({@code --fault-tolerance shrink}) through its ranks' output. Under
 * {@code mpirun --with-ft ulfm} a dead rank does not end mpirun and mpirun names nobody, so the survivors say it:
 * after a shrink the new rank 0 prints {@code troika elastic: ranks 3,5 failed; 6 of 8 go on}, and every rank
 * leaving {@code Elastic.run} prints {@code troika elastic: rank 2 leaves with code 0} (ranks are the generation's
 * launch ranks; the worker's {@code ElasticWorld} prints both). Fed line by line, tags and all.
 *
 * <p>Once every rank is either dead or has left, the generation is over even if mpirun lingers (PRRTE 3.0.8 at times
 * stays up after its survivors exit): the launcher ends it after a grace.
 *
 * <p>Thread-safe: stdout and stderr readers may feed it concurrently.
 */
public final class ShrinkTracker {
    /** Reported for a rank the survivors shrank away: its real exit status is not visible under ULFM. */
    public static final int DIED_EXIT = 137;

    private static final Pattern FAILED = Pattern.compile("troika elastic: ranks ([0-9,]+) failed;");
    private static final Pattern LEAVES = Pattern.compile("troika elastic: rank (\\d+) leaves with code (-?\\d+)");

    private final HostPlan plan;
    private final int size;
    private final Set<Integer> dead = new TreeSet<>();
    private final Map<Integer, Integer> left = new TreeMap<>();

    /** @param plan the generation's ranks */
    public ShrinkTracker(HostPlan plan) {
        this.plan = plan;
        this.size = plan.size();
    }

    /** Takes one line of output; returns the ranks this line reports dead for the first time (often none). */
    public synchronized List<Integer> accept(String line) {
        List<Integer> news = new ArrayList<>();
        Matcher m = FAILED.matcher(line);
        if (m.find()) {
            for (String r : m.group(1).split(",")) {
                if (!r.isEmpty()) {
                    int rank = Integer.parseInt(r);
                    if (rank >= 0 && rank < size && dead.add(rank)) {
                        news.add(rank);
                    }
                }
            }
            return news;
        }
        m = LEAVES.matcher(line);
        if (m.find()) {
            int rank = Integer.parseInt(m.group(1));
            if (rank >= 0 && rank < size) {
                left.put(rank, Integer.parseInt(m.group(2)));
            }
        }
        return news;
    }

    /** Whether a rank died and the survivors went on. */
    public synchronized boolean shrunk() {
        return !dead.isEmpty();
    }

    /** Whether a rank died and every other rank has left the elastic run. */
    public synchronized boolean over() {
        if (dead.isEmpty()) {
            return false;
        }
        for (int r = 0; r < size; r++) {
            if (!dead.contains(r) && !left.containsKey(r)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The exits of a generation that shrank: the dead ranks fail with {@link #DIED_EXIT} (their hosts are
     * blacklisted), the others with the code they left with; a rank that said nothing ended as mpirun did (a
     * casualty when that is not 0), as {@link GenerationExits} has them.
     */
    public synchronized List<RankExit> exits(int mpirunCode) {
        List<RankExit> exits = new ArrayList<>();
        for (int r : dead) {
            exits.add(new RankExit(r, plan.slots().get(r).host(), DIED_EXIT, false));
        }
        for (int r = 0; r < size; r++) {
            if (dead.contains(r)) {
                continue;
            }
            Integer code = left.get(r);
            exits.add(code != null ? new RankExit(r, plan.slots().get(r).host(), code, false)
                    : new RankExit(r, plan.slots().get(r).host(), mpirunCode, mpirunCode != 0));
        }
        return exits;
    }
}
