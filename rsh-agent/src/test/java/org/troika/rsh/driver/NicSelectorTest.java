package org.troika.rsh.driver;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.troika.wire.NicAddress;

class NicSelectorTest {
    private static NicAddress nic(String name, String addr, int prefix) {
        return new NicAddress(name, addr, prefix, false);
    }

    private static final NicAddress LO = new NicAddress("lo", "127.0.0.1", 8, true);

    /** Three hosts: the data network has a different interface name on each; docker0 is the same decoy everywhere. */
    private static Map<String, List<NicAddress>> cluster() {
        Map<String, List<NicAddress>> m = new LinkedHashMap<>();
        m.put("n1", List.of(LO, nic("eth0", "10.200.0.2", 24), nic("docker0", "10.201.0.1", 24)));
        m.put("n2", List.of(LO, nic("ens3", "10.200.0.3", 24), nic("docker0", "10.201.0.1", 24)));
        m.put("n3", List.of(LO, nic("ib0", "10.200.0.4", 24), nic("docker0", "10.201.0.1", 24),
                nic("virbr0", "10.202.0.1", 24)));
        return m;
    }

    /** All-to-all probes: the data addresses answer as the right host; 10.201.0.1 answers as the prober (dropped). */
    private static Map<String, Map<String, List<String>>> probes() {
        Map<String, Map<String, List<String>>> p = new LinkedHashMap<>();
        p.put("n1", Map.of("n2", List.of("10.200.0.3"), "n3", List.of("10.200.0.4")));
        p.put("n2", Map.of("n1", List.of("10.200.0.2"), "n3", List.of("10.200.0.4")));
        p.put("n3", Map.of("n1", List.of("10.200.0.2"), "n2", List.of("10.200.0.3")));
        return p;
    }

    @Test
    void picksTheRoutedSubnetByCidrAndEachHostsOwnInterfaceName() {
        NicSelector.Choice c = NicSelector.select(cluster(), probes(), List.of(nic("br0", "10.200.0.1", 24)));
        assertAll(
                () -> assertEquals(List.of("10.200.0.0/24"), c.subnets()),
                () -> assertEquals(Map.of("n1", List.of("eth0"), "n2", List.of("ens3"), "n3", List.of("ib0")),
                        c.ifnamesByHost()),
                () -> assertEquals(List.of("10.200.0.0/24"), c.launcherSubnets()),
                () -> assertTrue(c.reasons().stream().anyMatch(r -> r.startsWith("10.201.0.0/24: not used, n1 could not"
                        + " reach n2")), c.reasons().toString()),
                () -> assertTrue(c.reasons().stream().anyMatch(r -> r.startsWith("10.202.0.0/24: not used, host n1 has no"
                        + " address")), c.reasons().toString()));
    }

    @Test
    void loopbackIsNeverChosenForSeveralHosts() {
        Map<String, List<NicAddress>> m = new LinkedHashMap<>();
        m.put("a", List.of(LO));
        m.put("b", List.of(LO));
        NicSelector.Choice c = NicSelector.select(m, Map.of(), List.of(LO));
        assertTrue(c.empty());
        assertTrue(c.reasons().contains("no network is routable between all hosts"));
    }

    @Test
    void aLauncherOutsideTheSubnetGetsNoOobInclude() {
        NicSelector.Choice c = NicSelector.select(cluster(), probes(), List.of(nic("eth0", "192.0.2.2", 24)));
        assertEquals(List.of("10.200.0.0/24"), c.subnets());
        assertEquals(List.of(), c.launcherSubnets());
    }

    @Test
    void aSingleHostNeedsNoSelection() {
        NicSelector.Choice c = NicSelector.select(Map.of("a", List.of(nic("eth0", "10.0.0.1", 8))), Map.of(), List.of());
        assertTrue(c.empty());
    }

    @Test
    void cidrMasksTheHostBits() {
        assertAll(
                () -> assertEquals("10.1.0.0/16", NicSelector.cidr(nic("x", "10.1.2.3", 16))),
                () -> assertEquals("192.168.1.128/25", NicSelector.cidr(nic("x", "192.168.1.200", 25))),
                () -> assertEquals("10.1.2.3/32", NicSelector.cidr(nic("x", "10.1.2.3", 32))),
                () -> assertEquals(null, NicSelector.cidr(nic("x", "fd00::1", 64))));
    }
}
