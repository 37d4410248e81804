package org.troika.launcher.elastic;

import java.util.Objects;
import org.troika.common.ElasticExitCodes;

/**
 * How one rank of a generation ended.
 *
 * @param rank global rank in its generation
 * @param host the host it ran on
 * @param exitCode its exit code (128 + signal when killed by a signal)
 * @param collateral the launcher tore it down because another rank failed first (it is a casualty, not a cause)
 */
public record RankExit(int rank, String host, int exitCode, boolean collateral) {
    /** What a rank exit means to the driver. */
    public enum Kind {
        /** exit 0: the training body finished, so the job is done */
        SUCCESS,
        /** {@link ElasticExitCodes#HOSTS_UPDATED}: left cleanly at a commit because the hosts changed */
        HOSTS_UPDATED,
        /** torn down by the launcher, or {@link ElasticExitCodes#COLLECTIVE_FAILURE}: a peer failed */
        CASUALTY,
        /** any other exit: this rank (and so its host) failed */
        FAILURE
    }

    public RankExit {
        Objects.requireNonNull(host, "host");
    }

    public Kind kind() {
        if (exitCode == ElasticExitCodes.SUCCESS) {
            return Kind.SUCCESS;
        }
        if (exitCode == ElasticExitCodes.HOSTS_UPDATED) {
            return Kind.HOSTS_UPDATED;
        }
        if (collateral || exitCode == ElasticExitCodes.COLLECTIVE_FAILURE) {
            return Kind.CASUALTY;
        }
        return Kind.FAILURE;
    }

    /** For messages: {@code rank 3 on host node2 exited with code 137}. */
    public String describe() {
        return "rank " + rank + " on host " + host + " exited with code " + exitCode;
    }
}
