package org.troika.rsh;

import java.time.Duration;

/**
 * The relay's liveness defaults, in one place: how often the driver, task services and agents send heartbeats (the
 * liveness interval), and how long without a frame before the other side is declared lost. {@code troika run} passes
 * the timeout to agents as {@code TROIKA_LIVENESS_TIMEOUT_MS}; task services take {@code --heartbeat-ms}/{@code
 * --liveness-ms}. Spark jobs use a longer timeout of their own (executors pause for garbage collection).
 *
 * <p>The timeout is two and a half intervals (two heartbeats missed, and jitter), so a silent host is reported within
 * three intervals of its last heartbeat (the driver checks four times an interval); the interval is 2 s so that 10,000
 * hosts cost the driver 5,000 heartbeats a second each way.
 */
public final class Liveness {
    /** Heartbeat interval (the liveness interval). */
    public static final Duration HEARTBEAT = Duration.ofSeconds(2);
    /** Silence after which a peer is lost. */
    public static final Duration TIMEOUT = Duration.ofSeconds(5);
    /**
     * Silence after which a launch agent gives up on its task service: one interval more than the driver waits, so the
     * driver, which knows the host, names a lost host before the agent's exit ends mpirun.
     */
    public static final Duration AGENT_TIMEOUT = TIMEOUT.plus(HEARTBEAT);

    private Liveness() {}
}
