package org.troika.launcher.elastic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.timeline.Timeline;

/**
 * Discovery diffing and host bookkeeping at 10,000 hosts (issue 23: no step quadratic in hosts): a 10,000-line
 * script output parsed, diffed against the usable hosts, a host blacklisted, the next plan, and the timeline's host
 * rows. These assert the results at that size (each step is linear: a quadratic one would take minutes here).
 */
class TenThousandHostsTest {
    private static final int N = 10_000;
    private final FakeClock clock = new FakeClock();

    /** {@code node00000:8 ... node09999:8} without host {@code missing}, with {@code extra} appended (if not null). */
    private static String output(int missing, String extra) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < N; i++) {
            if (i != missing) {
                b.append(String.format("node%05d:8%n", i));
            }
        }
        if (extra != null) {
            b.append(extra).append(":8\n");
        }
        return b.toString();
    }

    @Test
    void aDiscoveryCycleOverTenThousandLinesDiffsBlacklistsAndPlans() throws Exception {
        HostManager m = new HostManager(clock, new org.troika.launcher.spi.RunSettings.Cooldown(java.time.Duration.ofSeconds(10),
                java.time.Duration.ofSeconds(60)), () -> 0);
        List<HostSlots> first = ScriptHostDiscovery.parse(output(-1, null), null);
        assertEquals(N, first.size());
        assertEquals(HostUpdate.ADDED, m.update(first));
        assertEquals(N * 8, m.availableSlots());
        assertEquals(HostUpdate.NONE, m.update(ScriptHostDiscovery.parse(output(-1, null), null)));

        // host 4711 vanished, a new one appeared at the end of the output: survivors keep their place
        assertEquals(HostUpdate.MIXED, m.update(ScriptHostDiscovery.parse(output(4711, "fresh"), null)));
        List<HostSlots> now = m.current();
        assertEquals(N, now.size());
        assertEquals("node04710", now.get(4710).name());
        assertEquals("node04712", now.get(4711).name());
        assertEquals("fresh", now.get(N - 1).name());

        // a failed host is blacklisted; discovery still lists it, but it stays out until its cooldown passes
        assertTrue(m.blacklist("node00000").isPresent());
        assertEquals(HostUpdate.NONE, m.update(ScriptHostDiscovery.parse(output(4711, "fresh"), null)));
        assertEquals("node00001", m.current().get(0).name());
        clock.advance(java.time.Duration.ofSeconds(61));
        assertEquals(HostUpdate.ADDED, m.update(ScriptHostDiscovery.parse(output(4711, "fresh"), null)));
        assertEquals("node00000", m.current().get(N - 1).name(), "a host back from the blacklist comes last");

        HostPlan plan = HostPlan.assign("next", m.current(), m.availableSlots());
        assertEquals(N, plan.hosts().size());
        assertEquals(N * 8, plan.size());
        assertEquals("8x10000", plan.layout());
        assertEquals("node00001", plan.slots().get(0).host());
        assertEquals("node00000", plan.slots().get(N * 8 - 1).host());
        assertEquals(N - 1, plan.slots().get(N * 8 - 1).crossRank());
    }

    @Test
    void theTimelineKeepsOneRowPerHostInPlanOrder() {
        Timeline t = Timeline.inMemory();
        List<String> names = new ArrayList<>();
        for (int i = N - 1; i >= 0; i--) {
            names.add("node" + i);
        }
        names.forEach(t::host);
        names.forEach(t::host);
        t.instant(Timeline.Kind.FAILURE, "lost", "node17", java.util.Map.of());
        assertEquals(names, t.hosts());
        assertFalse(t.hosts().contains("node" + N));
    }
}
