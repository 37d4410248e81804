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

            /** {@code /proc/self/stat}'s cutime and cstime (clock ticks of 10 ms, USER_HZ 100 on Linux). */
            @Override
            public long childCpuMillis() {
                try {
                    String st = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat"));
                    String[] f = st.substring(st.lastIndexOf(')') + 2).split(" ");
                    return (Long.parseLong(f[13]) + Long.parseLong(f[14])) * 10;
                } catch (java.io.IOException | RuntimeException e) {
                    return -1; // not Linux, or /proc not mounted: the pause follows the run's wall time alone
                }
            }
        };
    }
}
