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
 * @param holders the hosts whose node store holds the last commit when the world changed in place (issue 25: hosts
 *     whose ranks all left hold an older one, hosts that joined the new one), or {@code null}: the plan's hosts
 */
public record GenerationResult(List<RankExit> exits, boolean rendezvousReached, String launchError,
        List<String> holders) {
    public GenerationResult {
        exits = List.copyOf(exits);
        holders = holders == null ? null : List.copyOf(holders);
    }

    public GenerationResult(List<RankExit> exits, boolean rendezvousReached, String launchError) {
        this(exits, rendezvousReached, launchError, null);
    }

    public GenerationResult(List<RankExit> exits, boolean rendezvousReached) {
        this(exits, rendezvousReached, null, null);
    }

    /** This result with the hosts that hold the last commit. */
    public GenerationResult withHolders(List<String> hosts) {
        return new GenerationResult(exits, rendezvousReached, launchError, hosts);
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
