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
 * hosts send the driver 5,000 heartbeats a second.
 *
 * <p>The driver's own heartbeats to the task services are five times rarer ({@link #DRIVER_HEARTBEAT}), and a service
 * waits {@link #DRIVER_TIMEOUT} for them: at 10,000 hosts the driver sends 1,000 a second instead of 5,000 (measured
 * in {@code bench/scale.sh}: the sends were about 40 % of the driver's steady CPU). A service needs them only to tell
 * a silent driver from a lost one; the driver's process ending closes its connections at once, and a driver whose
 * machine stops acknowledging is noticed when the service's own heartbeats go unanswered ({@code TcpPeer}), so the
 * longer wait only delays how soon a service on the far side of a partition stops its daemons.
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
    /** How often the driver sends each task service a heartbeat. */
    public static final Duration DRIVER_HEARTBEAT = HEARTBEAT.multipliedBy(5);
    /** Silence of the driver after which a task service asks whether the driver's machine still acknowledges. */
    public static final Duration DRIVER_TIMEOUT = DRIVER_HEARTBEAT.multipliedBy(5).dividedBy(2);

    private Liveness() {}
}
