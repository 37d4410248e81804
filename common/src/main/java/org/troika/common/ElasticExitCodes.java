package org.troika.common;

/**
 * Exit codes a rank of an elastic job uses to tell the driver why its generation ended. The worker library
 * ({@code org.troika.worker.elastic.Elastic}) returns them; the driver ({@code org.troika.launcher.elastic})
 * classifies rank exits with them. Any other non-zero code is a failure of that rank.
 */
public final class ElasticExitCodes {
    private ElasticExitCodes() {}

    /** The body finished: the job is done. */
    public static final int SUCCESS = 0;

    /**
     * The ranks left the generation together at a commit because the host set changed; their state is committed
     * and the driver should launch the next generation. (75 = {@code EX_TEMPFAIL}: "try again".)
     */
    public static final int HOSTS_UPDATED = 75;

    /**
     * A collective failed because a peer died: this rank is a casualty, not the cause, so the driver does not
     * blacklist its host. (76 = {@code EX_PROTOCOL}.)
     */
    public static final int COLLECTIVE_FAILURE = 76;
}
