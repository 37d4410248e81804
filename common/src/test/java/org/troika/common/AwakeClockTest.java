package org.troika.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The awake clock on a fake time source: ticks on time, ticks late within the slack, and a stop. */
class AwakeClockTest {
    private static final long MS = 1_000_000L;
    private final AtomicLong now = new AtomicLong(1_000 * MS);
    private final AwakeClock clock = new AwakeClock(Duration.ofMillis(250), Duration.ofMillis(750), now::get);

    private void advance(long millis) {
        now.addAndGet(millis * MS);
    }

    @Test
    void runningItFollowsTheTimeSourceAndJitterWithinTheSlackIsNoPause() {
        long start = clock.nanos();
        for (int i = 0; i < 8; i++) {
            advance(i % 2 == 0 ? 250 : 900); // up to 650 ms late: a busy machine, not a stop
            assertNull(clock.tick());
        }
        assertEquals((4 * 250 + 4 * 900) * MS, clock.nanos() - start);
        assertNull(clock.lastPause());
    }

    @Test
    void aStopIsLeftOutAndRemembered() {
        advance(250);
        clock.tick();
        long before = clock.nanos();
        advance(8_250); // stopped for 8 s between two ticks
        AwakeClock.Pause p = clock.tick();
        assertNotNull(p);
        assertEquals(Duration.ofMillis(8_000), p.length());
        assertEquals(250 * MS, clock.nanos() - before, "only the tick's own period counts");
        assertEquals(p, clock.lastPause());
        assertEquals(p, clock.pauseWithin(Duration.ofSeconds(5)));
        advance(250);
        clock.tick();
        assertEquals(p, clock.pauseWithin(Duration.ofSeconds(5)), "a pause just ended is named");
        for (int i = 0; i < 24; i++) {
            advance(250);
            clock.tick();
        }
        assertNull(clock.pauseWithin(Duration.ofSeconds(5)), "six seconds later it is not");
        assertEquals(p, clock.lastPause());
    }

    @Test
    void aPeriodMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new AwakeClock(Duration.ZERO, Duration.ZERO, now::get));
    }
}
