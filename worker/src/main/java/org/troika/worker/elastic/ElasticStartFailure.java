package org.troika.worker.elastic;

/**
 * A rank cannot get what an elastic generation needs from outside (the worker key, the driver's notification
 * service). Its message is one line naming the rank, the host and the cause. {@link Elastic#run} reports it and ends
 * the generation at once ({@link StateBroadcaster#abort}), so no peer waits in a collective for a rank that will
 * never come; the driver then treats the generation as a failure of that rank's host.
 */
public final class ElasticStartFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Exit code of the job's ranks after such a failure. */
    public static final int EXIT_CODE = 1;

    public ElasticStartFailure(String message) {
        super(message, null, false, false);
    }
}
