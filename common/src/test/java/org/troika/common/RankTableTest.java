package org.troika.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The compact rank table at 10,000 hosts (issue 23: planning and rank assignment at that size): every row equals the
 * one of the rule written out rank by rank, for equal hosts and for hosts of mixed slot counts, and the run-length
 * layout gives the same rows without names. (What planning costs is measured by bench/scale.sh.)
 */
class RankTableTest {
    private static final int HOSTS = 10_000;

    /** The rule, rank by rank: local rank = index on the host, cross rank = earlier hosts with that local rank. */
    private static List<RankTable.Row> expected(List<RankTable.Host> hosts) {
        int size = hosts.stream().mapToInt(RankTable.Host::slots).sum();
        int max = hosts.stream().mapToInt(RankTable.Host::slots).max().orElse(0);
        int[] crossSize = new int[max];
        hosts.forEach(h -> {
            for (int l = 0; l < h.slots(); l++) {
                crossSize[l]++;
            }
        });
        int[] seen = new int[max];
        List<RankTable.Row> rows = new ArrayList<>();
        for (RankTable.Host h : hosts) {
            for (int l = 0; l < h.slots(); l++) {
                rows.add(new RankTable.Row(h.name(), rows.size(), l, seen[l]++, size, h.slots(), crossSize[l]));
            }
        }
        return rows;
    }

    private static List<RankTable.Host> hosts(java.util.function.IntUnaryOperator slots) {
        List<RankTable.Host> hosts = new ArrayList<>();
        for (int i = 0; i < HOSTS; i++) {
            hosts.add(new RankTable.Host("node" + i, slots.applyAsInt(i)));
        }
        return hosts;
    }

    @Test
    void tenThousandEqualHosts() {
        List<RankTable.Host> hosts = hosts(i -> 8);
        RankTable.Table table = RankTable.of(hosts);
        assertEquals(expected(hosts), table);
        assertEquals("8x10000", table.layout());
        assertEquals(9999, table.hostIndex(79_999));
        assertEquals(79_992, table.firstRank(9999));
        assertEquals(new RankTable.Row(null, 40_003, 3, 5000, 80_000, 8, 10_000),
                RankTable.ofLayout(table.layout()).get(40_003));
    }

    @Test
    void tenThousandHostsOfMixedSlotCounts() {
        Random random = new Random(23);
        int[] slots = new int[HOSTS];
        for (int i = 0; i < HOSTS; i++) {
            slots[i] = i % 1000 < 900 ? 8 : 1 + random.nextInt(12); // runs of equal hosts, then a mixed stretch
        }
        List<RankTable.Host> hosts = hosts(i -> slots[i]);
        List<RankTable.Row> expected = expected(hosts);
        RankTable.Table table = RankTable.of(hosts);
        assertEquals(expected, table);
        RankTable.Table byLayout = RankTable.ofLayout(table.layout());
        assertEquals(expected.size(), byLayout.size());
        for (RankTable.Row r : expected) {
            RankTable.Row got = byLayout.get(r.rank());
            assertNull(got.host());
            assertEquals(new RankTable.Row(null, r.rank(), r.localRank(), r.crossRank(), r.size(), r.localSize(),
                    r.crossSize()), got);
            assertEquals(r.host(), hosts.get(table.hostIndex(r.rank())).name());
        }
    }

    @Test
    void badLayoutsAndRanksAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> RankTable.ofLayout("8x"));
        assertThrows(IllegalArgumentException.class, () -> RankTable.ofLayout("0x3"));
        assertThrows(IllegalArgumentException.class, () -> RankTable.ofLayout("8,,2"));
        assertThrows(IllegalArgumentException.class, () -> RankTable.ofLayout("8x2147483647,8x9"));
        assertThrows(IllegalArgumentException.class, () -> RankTable.row(List.of(new RankTable.Host("a", 2)), 2));
        assertEquals("2,1,3x2", RankTable.of(List.of(new RankTable.Host("a", 2), new RankTable.Host("b", 1),
                new RankTable.Host("c", 3), new RankTable.Host("d", 3))).layout());
    }
}
