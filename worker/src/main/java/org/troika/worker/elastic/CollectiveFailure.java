package org.troika.worker.elastic;

/**
 * A collective operation failed, usually because a peer rank died. The generation is lost: {@link Elastic#run}
 * ends this rank with {@link org.troika.common.ElasticExitCodes#COLLECTIVE_FAILURE} (a casualty, so the driver
 * does not blacklist this host), and the next generation restores the last commit.
 */
public class CollectiveFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CollectiveFailure(String message) {
        super(message);
    }

    public CollectiveFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
