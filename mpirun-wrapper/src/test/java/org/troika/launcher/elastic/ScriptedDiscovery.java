package org.troika.launcher.elastic;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.troika.launcher.spi.HostSlots;

/**
 * Discovery whose answer is a step function of the fake clock: {@code from(5_000, "a:2,b:2")} makes every call
 * from 5 s after the start on return those hosts; {@code failFrom(...)} makes calls fail.
 */
final class ScriptedDiscovery implements HostDiscovery {
    private final FakeClock clock;
    private final long start;
    private final TreeMap<Long, Object> steps = new TreeMap<>();
    int calls;

    ScriptedDiscovery(FakeClock clock, String initialHosts) {
        this.clock = clock;
        this.start = clock.millis();
        from(0, initialHosts);
    }

    ScriptedDiscovery from(long offsetMillis, String hosts) {
        steps.put(offsetMillis, parse(hosts));
        return this;
    }

    ScriptedDiscovery failFrom(long offsetMillis, String message) {
        steps.put(offsetMillis, new HostDiscoveryException(message));
        return this;
    }

    @Override
    public List<HostSlots> discover() throws HostDiscoveryException {
        calls++;
        Map.Entry<Long, Object> step = steps.floorEntry(clock.millis() - start);
        if (step.getValue() instanceof HostDiscoveryException e) {
            throw new HostDiscoveryException(e.getMessage());
        }
        @SuppressWarnings("unchecked")
        List<HostSlots> hosts = (List<HostSlots>) step.getValue();
        return hosts;
    }

    static List<HostSlots> parse(String hosts) {
        List<HostSlots> out = new ArrayList<>();
        for (String e : hosts.split(",")) {
            if (!e.isBlank()) {
                String[] p = e.trim().split(":");
                out.add(new HostSlots(p[0], Integer.parseInt(p[1])));
            }
        }
        return out;
    }
}
