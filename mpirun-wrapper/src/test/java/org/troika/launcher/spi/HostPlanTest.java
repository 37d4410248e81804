package org.troika.launcher.spi;

import org.troika.testkit.RankTableGolden;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class HostPlanTest {
    @Test
    void rankTableFollowsHostOrderWithCrossRanks() {
        HostPlan p = HostPlan.assign("-H", List.of(new HostSlots("a", 2), new HostSlots("b", 1), new HostSlots("c", 2)), 5);
        assertEquals(List.of(
                new SlotInfo("a", 0, 0, 0, 5, 2, 3),
                new SlotInfo("a", 1, 1, 0, 5, 2, 2),
                new SlotInfo("b", 2, 0, 1, 5, 1, 3),
                new SlotInfo("c", 3, 0, 2, 5, 2, 3),
                new SlotInfo("c", 4, 1, 1, 5, 2, 2)), p.slots());
        assertEquals("a:2,b:1,c:2", p.hostList());
    }

    @Test
    void npBelowSlotsTakesTheFirstSlotsAndDropsUnusedHosts() {
        HostPlan p = HostPlan.assign("alloc", List.of(new HostSlots("a", 2), new HostSlots("b", 2), new HostSlots("c", 2)), 3);
        assertEquals("a:2,b:1", p.hostList());
        assertEquals(3, p.size());
        assertEquals(1, p.slots().get(2).localSize());
        assertEquals(2, p.slots().get(0).crossSize());
        assertEquals(1, p.slots().get(1).crossSize());
    }

    @Test
    void refusesMoreRanksThanSlots() {
        assertThrows(IllegalArgumentException.class, () -> HostPlan.assign("x", List.of(new HostSlots("a", 1)), 2));
        assertThrows(IllegalArgumentException.class, () -> HostPlan.assign("x", List.of(new HostSlots("a", 1)), 0));
    }

    /** The host plan's rank table is the golden one (shared with RankEnv and bin/troika-rankenv). */
    @Test
    void rankTableMatchesTheGoldenFixture() {
        for (RankTableGolden.Case c : RankTableGolden.cases()) {
            List<HostSlots> hosts = c.hosts().stream().map(h -> new HostSlots(h.name(), h.slots())).toList();
            HostPlan plan = HostPlan.assign("golden", hosts, c.rows().size());
            List<SlotInfo> expected = c.rows().stream().map(r -> new SlotInfo(r.host(), r.rank(), r.localRank(),
                    r.crossRank(), r.size(), r.localSize(), r.crossSize())).toList();
            assertEquals(expected, plan.slots(), c.troikaHosts());
            assertEquals(c.troikaHosts(), plan.hostList());
        }
    }
}
