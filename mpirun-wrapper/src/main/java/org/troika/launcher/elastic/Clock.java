package org.troika.launcher.elastic;

import java.time.Duration;

/**
 * Time for the elastic driver: a monotonic millisecond reading and a sleep. Tests pass a fake whose sleep
 * advances the reading at once, so discovery loops, cooldowns and timeouts run without waiting.
 */
public interface Clock {
    /** Monotonic milliseconds (only differences are meaningful). */
    long millis();

    /** Blocks for {@code d} (a fake advances its reading instead). */
    void sleep(Duration d) throws InterruptedException;

    /**
     * The CPU time (user and system, ms) of this process's children that have ended and been waited for, their own
     * waited-for children included; -1 when unknown (the default). Only differences are meaningful: the driver takes
     * the difference around a discovery run as the run's CPU cost.
     */
    default long childCpuMillis() {
        return -1;
    }

    /** The system's monotonic clock. */
    static Clock system() {
        return new Clock() {
            @Override
            public long millis() {
                return System.nanoTime() / 1_000_000L;
            }

            @Override
            public void sleep(Duration d) throws InterruptedException {
                Thread.sleep(d.toMillis());
            }

            @Override
            public long childCpuMillis() {
                try {
                    return org.troika.common.exec.ProcessTable.childCpuMillis();
                } catch (java.io.IOException | RuntimeException e) {
                    return -1; // not Linux, or /proc not mounted: the pause follows the run's wall time alone
                }
            }
        };
    }
}
