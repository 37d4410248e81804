package org.troika.common;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A monotonic clock that leaves out the time this process did not run: stopped ({@code SIGSTOP}, Ctrl-Z), frozen with
 * its machine, or starved of CPU for long stretches. A liveness check that measures a peer's silence on it does not
 * blame the peer for the process's own pause: the peer's messages were waiting in the socket all along.
 *
 * <p>Its owner calls {@link #tick()} every {@code period}. A tick that comes more than {@code slack} later than that
 * means the process did not run: everything beyond the period is taken off the clock and remembered as a
 * {@link Pause}. One thread ticks; any thread reads.
 */
public final class AwakeClock {
    /** A stretch this process did not run, ending at {@code resumedAt} (this clock's nanos). */
    public record Pause(Duration length, long resumedAt) {}

    private final long periodNanos;
    private final long slackNanos;
    private final LongSupplier nanoTime;
    private volatile long pausedNanos;
    private volatile Pause lastPause;
    private long lastTick;

    /**
     * @param period how often the owner ticks
     * @param slack lateness of a tick that still counts as running (scheduling jitter, a short collection)
     * @param nanoTime the monotonic time source ({@code System::nanoTime})
     */
    public AwakeClock(Duration period, Duration slack, LongSupplier nanoTime) {
        if (period.isNegative() || period.isZero() || slack.isNegative()) {
            throw new IllegalArgumentException("bad awake clock period " + period + " or slack " + slack);
        }
        this.periodNanos = period.toNanos();
        this.slackNanos = slack.toNanos();
        this.nanoTime = nanoTime;
        this.lastTick = nanoTime.getAsLong();
    }

    /** The real clock. */
    public static AwakeClock system(Duration period, Duration slack) {
        return new AwakeClock(period, slack, System::nanoTime);
    }

    /** Nanoseconds this process ran, on an arbitrary origin (compare differences only). */
    public long nanos() {
        return nanoTime.getAsLong() - pausedNanos;
    }

    /**
     * Called by the owner every period. Returns the pause it found ({@code null}: the process ran throughout), which
     * {@link #lastPause()} then also returns.
     */
    public Pause tick() {
        long now = nanoTime.getAsLong();
        long late = now - lastTick - periodNanos;
        lastTick = now;
        if (late <= slackNanos) {
            return null;
        }
        pausedNanos += late;
        Pause p = new Pause(Duration.ofNanos(late), now - pausedNanos);
        lastPause = p;
        return p;
    }

    /** The latest pause found, or {@code null}. */
    public Pause lastPause() {
        return lastPause;
    }

    /**
     * The latest pause if it ended less than {@code within} ago (on this clock), else {@code null}: what to name when
     * something failed right after the process came back.
     */
    public Pause pauseWithin(Duration within) {
        Pause p = lastPause;
        return p != null && nanos() - p.resumedAt() < within.toNanos() ? p : null;
    }
}
