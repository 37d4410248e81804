package org.troika.launcher.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;

class HostAddressesTest {
    @Test
    void theLocalMachineIsNotARemoteHost() {
        HostPlan plan = HostPlan.assign("-H", List.of(new HostSlots("localhost", 1), new HostSlots("127.0.0.1", 1),
                new HostSlots("node7", 1)), 3);
        assertEquals(List.of("node7"), HostAddresses.remoteHosts(plan));
    }

    @Test
    void aHostThatDoesNotResolveEndsWithOneLineNamingItAndTheFix() {
        // before issue 10: "troika: node-1.invalid: Name or service not known" (an IOException, no fix named)
        UsageException e = assertThrows(UsageException.class,
                () -> HostAddresses.routeTo(List.of("127.0.0.1", "node-1.invalid")));
        assertEquals("host 'node-1.invalid' does not resolve to an address on this machine (DNS or /etc/hosts); name the"
                + " hosts as this machine knows them, or by IP address", e.getMessage());
    }

    @Test
    void aLoopbackHostIsReachedOnLoopback() throws Exception {
        assertEquals(InetAddress.getLoopbackAddress(), HostAddresses.routeTo("127.0.0.3"));
    }

    @Test
    void servicesForRanksBindByTheRouteToTheFirstHostThatIsNotThisMachine() throws Exception {
        // a neighbour on a subnet of this machine's own: routed without any default route
        java.net.InterfaceAddress nic = null;
        for (java.net.NetworkInterface n : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
            for (java.net.InterfaceAddress a : n.getInterfaceAddresses()) {
                if (n.isUp() && !n.isLoopback() && a.getAddress() instanceof java.net.Inet4Address
                        && a.getNetworkPrefixLength() <= 30 && nic == null) {
                    nic = a;
                }
            }
        }
        org.troika.testkit.Requires.check(nic != null, "no IPv4 interface but loopback");
        byte[] b = nic.getAddress().getAddress();
        b[3] ^= 1; // another address of the same /30 or larger subnet
        String neighbour = InetAddress.getByAddress(b).getHostAddress();
        InetAddress own = nic.getAddress();
        // the launcher's own machine first, as in an allocation whose batch host runs troika: before issue 21 the
        // services bound by the route to it, loopback here, out of reach of the ranks on the neighbour
        assertEquals(own, HostAddresses.routeTo(List.of("localhost", neighbour)));
        assertEquals(own, HostAddresses.routeTo(List.of(InetAddress.getLocalHost().getHostName(), neighbour)));
        assertEquals(own, HostAddresses.routeTo(List.of(neighbour, "localhost")));
        assertEquals(InetAddress.getLoopbackAddress(), HostAddresses.routeTo(List.of("localhost", "127.0.0.1")));
    }
}
