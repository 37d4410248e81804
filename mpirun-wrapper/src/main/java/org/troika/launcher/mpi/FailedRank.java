package org.troika.launcher.mpi;

/**
 * The first rank of a job that failed, as the MPI launcher reported it.
 *
 * @param rank the global rank
 * @param host the host it ran on, or {@code null} if neither the launcher nor the host plan names it
 * @param exitCode its exit code; {@code 128 + N} for death by signal N
 */
public record FailedRank(int rank, String host, int exitCode) {
    /** The one-line summary troika prints: {@code troika: rank R on host H failed first with exit code N}. */
    public String summary() {
        return "troika: rank " + rank + " on host " + (host == null ? "(unknown)" : host)
                + " failed first with exit code " + exitCode;
    }
}
