package org.troika.rsh;

import java.time.Duration;

/**
 * The relay's liveness defaults, in one place: how often the driver, task services and agents send heartbeats, and
 * how long without a frame before the other side is declared lost. {@code troika run} passes the timeout to agents
 * as {@code TROIKA_LIVENESS_TIMEOUT_MS}; task services take {@code --heartbeat-ms}/{@code --liveness-ms}. Spark jobs
 * use a longer timeout of their own (executors pause for garbage collection).
 */
public final class Liveness {
    /** Heartbeat interval. */
    public static final Duration HEARTBEAT = Duration.ofSeconds(1);
    /** Silence after which a peer is lost. */
    public static final Duration TIMEOUT = Duration.ofSeconds(6);

    private Liveness() {}
}
