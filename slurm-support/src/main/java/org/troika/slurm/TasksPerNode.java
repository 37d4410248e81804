package org.troika.slurm;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.troika.common.UsageException;

/**
 * Parses Slurm's per-node count lists ({@code SLURM_TASKS_PER_NODE}, {@code SLURM_JOB_CPUS_PER_NODE}):
 * comma-separated counts in node-list order, where {@code N(xM)} stands for N on each of M consecutive nodes.
 * Example: {@code 2(x3),1} is {@code [2, 2, 2, 1]}.
 */
public final class TasksPerNode {
    private static final Pattern ITEM = Pattern.compile("([0-9]{1,9})(?:\\(x([0-9]{1,9})\\))?");

    private TasksPerNode() {}

    /**
     * Expands {@code value} to one count per node and checks it covers exactly {@code nodes} nodes.
     *
     * @param source the env var name, for messages
     * @param nodes how many nodes the node list has
     * @param nodeListSource the node list's env var name, for the mismatch message
     * @throws UsageException when malformed, a count is 0, or the number of counts differs from {@code nodes}
     */
    public static List<Integer> expand(String value, String source, int nodes, String nodeListSource) {
        if (value == null || value.isBlank()) {
            throw bad(source, value, "it is empty");
        }
        List<Integer> counts = new ArrayList<>();
        for (String item : value.strip().split(",", -1)) {
            Matcher m = ITEM.matcher(item.strip());
            if (!m.matches()) {
                throw bad(source, value, "'" + item + "' is neither N nor N(xM)");
            }
            int n = Integer.parseInt(m.group(1));
            int repeat = m.group(2) == null ? 1 : Integer.parseInt(m.group(2));
            if (n < 1) {
                throw bad(source, value, "a node has " + n + " slots");
            }
            if (repeat < 1) {
                throw bad(source, value, "'" + item + "' repeats 0 times");
            }
            if (counts.size() + (long) repeat > nodes) {
                throw mismatch(source, value, nodes, nodeListSource, (long) counts.size() + repeat);
            }
            for (int i = 0; i < repeat; i++) {
                counts.add(n);
            }
        }
        if (counts.size() != nodes) {
            throw mismatch(source, value, nodes, nodeListSource, counts.size());
        }
        return List.copyOf(counts);
    }

    private static UsageException mismatch(String source, String value, int nodes, String nodeListSource, long got) {
        return new UsageException(source + "='" + value + "' gives counts for " + (got > nodes ? "more than " + nodes
                : String.valueOf(got)) + " nodes but " + nodeListSource + " lists " + nodes
                + "; the job environment is inconsistent (run inside the job's own shell, or pass -H)");
    }

    private static UsageException bad(String source, String value, String why) {
        return new UsageException(source + "='" + value + "' is malformed: " + why + " (expected e.g. 2(x3),1)");
    }
}
