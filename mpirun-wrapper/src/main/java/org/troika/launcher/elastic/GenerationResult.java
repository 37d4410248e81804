package org.troika.launcher.elastic;

import java.util.List;

/**
 * How a generation ended.
 *
 * @param exits the ranks' exits in the order they finished (first first); may be partial when the launcher
 *     could not learn every rank's fate
 * @param rendezvousReached whether all ranks got through the start-up sync, i.e. every host of the generation
 *     now holds the committed state on its node
 * @param launchError why the launch itself failed (no rank could run), or {@code null}
 */
public record GenerationResult(List<RankExit> exits, boolean rendezvousReached, String launchError) {
    public GenerationResult {
        exits = List.copyOf(exits);
    }

    public GenerationResult(List<RankExit> exits, boolean rendezvousReached) {
        this(exits, rendezvousReached, null);
    }

    /** A generation whose launch failed before any rank ran (e.g. mpirun could not start). */
    public static GenerationResult launchFailed(String message) {
        return new GenerationResult(List.of(), false, message);
    }

    /** Whether some rank finished the body. */
    public boolean anySuccess() {
        return exits.stream().anyMatch(e -> e.kind() == RankExit.Kind.SUCCESS);
    }

    /** The ranks that failed by themselves, first failure first. */
    public List<RankExit> failures() {
        return exits.stream().filter(e -> e.kind() == RankExit.Kind.FAILURE).toList();
    }

    /** Whether every reported exit is a clean leave for a host update (and there is at least one). */
    public boolean allHostsUpdated() {
        return !exits.isEmpty() && exits.stream().allMatch(e -> e.kind() == RankExit.Kind.HOSTS_UPDATED);
    }
}
