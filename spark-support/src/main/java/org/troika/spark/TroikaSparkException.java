package org.troika.spark;

/** A {@link TroikaSpark#run} job failed: a rank failed, the start timed out, or the Spark job was cancelled. */
public final class TroikaSparkException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TroikaSparkException(String message) {
        super(message);
    }

    public TroikaSparkException(String message, Throwable cause) {
        super(message, cause);
    }
}
