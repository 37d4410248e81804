package org.troika.launcher.mpi;

import org.troika.launcher.spi.UserText;

/**
 * The first rank of a job that failed, as the MPI launcher reported it.
 *
 * @param rank the global rank
 * @param host the host it ran on, or {@code null} if neither the launcher nor the host plan names it
 * @param exitCode its exit code; {@code 128 + N} for death by signal N
 */
public record FailedRank(int rank, String host, int exitCode) {
    /**
     * The one-line summary troika prints: {@code troika: rank R on host H failed first with exit code N}. The host
     * name comes from the launcher's output: escaped and cut like every warning ({@link UserText#line}), so no byte
     * of it can start a line of its own.
     */
    public String summary() {
        return UserText.line("troika: ", "rank " + rank + " on host " + (host == null ? "(unknown)" : host)
                + " failed first with exit code " + exitCode);
    }
}
