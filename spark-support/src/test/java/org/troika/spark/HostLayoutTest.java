package org.troika.spark;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.troika.launcher.spi.HostSlots;

class HostLayoutTest {
    @Test
    void hostsAreOrderedByTheirLowestTaskAndTheLowestTaskRunsTheService() {
        HostLayout l = HostLayout.of(Map.of(3, "spark-b", 0, "spark-a", 2, "spark-a", 1, "spark-b", 4, "spark-c"));
        assertAll(
                () -> assertEquals(List.of(new HostSlots("spark-a", 2), new HostSlots("spark-b", 2),
                        new HostSlots("spark-c", 1)), l.hosts()),
                () -> assertEquals(Map.of("spark-a", 0, "spark-b", 1, "spark-c", 4), l.serviceTask()),
                () -> assertEquals("spark-a", l.serviceHostOf(0)),
                () -> assertEquals("spark-b", l.serviceHostOf(1)),
                () -> assertEquals("", l.serviceHostOf(2)),
                () -> assertEquals("", l.serviceHostOf(3)),
                () -> assertEquals("spark-c", l.serviceHostOf(4)));
    }

    @Test
    void oneHostHashMeansOneHostWithEverySlot() {
        HostLayout l = HostLayout.of(Map.of(0, "spark-x", 1, "spark-x", 2, "spark-x", 3, "spark-x"));
        assertEquals(List.of(new HostSlots("spark-x", 4)), l.hosts());
        assertEquals(List.of("spark-x"), l.hostNames());
    }

    @Test
    void hostHashIsAStableHostWordThatChangesWithKernelOrContainer() {
        String h = HostHash.of("node1", "boot-1\n", "0::/\n");
        assertAll(
                () -> assertTrue(h.matches("spark-[0-9a-f]{12}"), h),
                () -> assertEquals(h, HostHash.of("node1", "boot-1", "0::/")),
                () -> assertNotEquals(h, HostHash.of("node1", "boot-2", "0::/")),
                () -> assertNotEquals(h, HostHash.of("node1", "boot-1", "0::/docker/abc")),
                () -> assertNotEquals(h, HostHash.of("node2", "boot-1", "0::/")),
                () -> assertTrue(HostHash.local().matches("spark-[0-9a-f]{12}")),
                () -> assertEquals(HostHash.local(), HostHash.local("")),
                () -> assertNotEquals(HostHash.local("executor 1"), HostHash.local("executor 2")));
    }
}
