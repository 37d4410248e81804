package org.troika.launcher.elastic;

import java.time.Duration;

/** A clock that only moves when someone sleeps on it or advances it. */
final class FakeClock implements Clock {
    private long now = 1_000_000L;

    @Override
    public long millis() {
        return now;
    }

    @Override
    public void sleep(Duration d) {
        advance(d);
    }

    void advance(Duration d) {
        now += d.toMillis();
    }

    /** What {@link #childCpuMillis()} reads: -1 (unknown) unless a test makes children use CPU. */
    long childCpu = -1;

    @Override
    public long childCpuMillis() {
        return childCpu;
    }
}
