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
        };
    }
}
