package org.troika.launcher.elastic;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntFunction;
import org.troika.launcher.spi.HostSlots;

/**
 * Discovery whose answer is a step function of the fake clock: {@code from(5_000, "a:2,b:2")} makes every call
 * from 5 s after the start on return those hosts; {@code failFrom(...)} makes calls fail. {@code takes(...)} makes
 * every call advance the clock as a script of that duration would; {@link #callMillis} records when each call began.
 * A host with 0 slots ({@code "a:2,s:0"}) is a standby host ({@link HostDiscovery.Found}).
 */
final class ScriptedDiscovery implements HostDiscovery {
    private final FakeClock clock;
    private final long start;
    private final TreeMap<Long, Object> steps = new TreeMap<>();
    int calls;
    final List<Long> callMillis = new ArrayList<>();
    private IntFunction<Duration> takes = call -> Duration.ZERO;
    private IntFunction<Duration> cpu = call -> null;

    ScriptedDiscovery(FakeClock clock, String initialHosts) {
        this.clock = clock;
        this.start = clock.millis();
        from(0, initialHosts);
    }

    ScriptedDiscovery from(long offsetMillis, String hosts) {
        steps.put(offsetMillis, parse(hosts));
        return this;
    }

    /** Call {@code n} (1 for the first) takes {@code duration.apply(n)}. */
    ScriptedDiscovery takes(IntFunction<Duration> duration) {
        takes = duration;
        return this;
    }

    /**
     * Call {@code n} uses {@code cpu.apply(n)} of CPU in child processes (the clock's children's CPU grows by it; its
     * reading starts at 0 with the first such call).
     */
    ScriptedDiscovery cpu(IntFunction<Duration> cpu) {
        this.cpu = cpu;
        return this;
    }

    ScriptedDiscovery failFrom(long offsetMillis, String message) {
        steps.put(offsetMillis, new HostDiscoveryException(message));
        return this;
    }

    @Override
    public Found discoverAll() throws HostDiscoveryException {
        calls++;
        callMillis.add(clock.millis());
        Map.Entry<Long, Object> step = steps.floorEntry(clock.millis() - start);
        clock.advance(takes.apply(calls)); // the answer is that of the moment the script started
        Duration used = cpu.apply(calls);
        if (used != null) {
            clock.childCpu = Math.max(0, clock.childCpu) + used.toMillis();
        }
        if (step.getValue() instanceof HostDiscoveryException e) {
            throw new HostDiscoveryException(e.getMessage());
        }
        return (Found) step.getValue();
    }

    static Found parse(String hosts) {
        List<HostSlots> out = new ArrayList<>();
        List<String> standby = new ArrayList<>();
        for (String e : hosts.split(",")) {
            if (!e.isBlank()) {
                String[] p = e.trim().split(":");
                int slots = Integer.parseInt(p[1]);
                if (slots == 0) {
                    standby.add(p[0]);
                } else {
                    out.add(new HostSlots(p[0], slots));
                }
            }
        }
        return new Found(out, standby);
    }
}
