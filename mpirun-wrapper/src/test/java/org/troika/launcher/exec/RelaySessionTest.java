package org.troika.launcher.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintStream;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.MpiFlavor;
import org.troika.launcher.spi.MpiInstall;

class RelaySessionTest {
    private static final MpiInstall OMPI4 = new MpiInstall(MpiFlavor.OPEN_MPI, 4, "");
    private static final MpiInstall MPICH = new MpiInstall(MpiFlavor.MPICH, 4, "");

    private static RunSettings settings(String remoteShell, RunSettings.LaunchAgent agent) {
        return RunSettings.builder().remoteShell(remoteShell).launchAgent(agent).command(List.of("true")).build();
    }

    @Test
    void servicesRunOnlyWhenAskedForAndOnlyForOpenMpiWithRemoteHosts() {
        List<String> remote = List.of("node1", "node2");
        assertFalse(RelaySession.servicesWanted(settings(null, RunSettings.LaunchAgent.AUTO), OMPI4, remote));
        assertTrue(RelaySession.servicesWanted(settings(null, RunSettings.LaunchAgent.RELAY), OMPI4, remote));
        assertTrue(RelaySession.servicesWanted(settings("srun", RunSettings.LaunchAgent.AUTO), OMPI4, remote));
        assertTrue(RelaySession.servicesWanted(settings("srun", RunSettings.LaunchAgent.SSH), OMPI4, remote));
        assertFalse(RelaySession.servicesWanted(settings("srun", RunSettings.LaunchAgent.AUTO), MPICH, remote));
        assertFalse(RelaySession.servicesWanted(settings(null, RunSettings.LaunchAgent.RELAY), OMPI4, List.of()));
    }

    @Test
    void theLocalMachineIsNotARemoteHost() {
        HostPlan plan = HostPlan.assign("-H", List.of(new HostSlots("localhost", 1), new HostSlots("127.0.0.1", 1),
                new HostSlots("node7", 1)), 3);
        assertEquals(List.of("node7"), RelaySession.remoteHosts(plan));
    }

    @Test
    void relayWithHydraIsAUsageError() {
        HostPlan plan = HostPlan.assign("-H", List.of(new HostSlots("node7", 1)), 1);
        assertThrows(UsageException.class, () -> RelaySession.start(settings(null, RunSettings.LaunchAgent.RELAY), plan,
                MPICH, Map.of(), null, new PrintStream(java.io.OutputStream.nullOutputStream()), (h, w) -> { }));
    }

    @Test
    void anInactiveSessionChangesNothing() throws Exception {
        HostPlan plan = HostPlan.assign("-H", List.of(new HostSlots("localhost", 2)), 2);
        RunSettings s = settings(null, RunSettings.LaunchAgent.AUTO);
        try (RelaySession r = RelaySession.start(s, plan, OMPI4, Map.of(), null,
                new PrintStream(java.io.OutputStream.nullOutputStream()), (h, w) -> { })) {
            assertFalse(r.active());
            assertEquals(s, r.settings());
        }
    }

    @Test
    void aHostThatDoesNotResolveEndsWithOneLineNamingItAndTheFix() {
        // before issue 10: "troika: node-1.invalid: Name or service not known" (an IOException, no fix named)
        UsageException e = assertThrows(UsageException.class,
                () -> RelaySession.bindAddress(List.of("127.0.0.1", "node-1.invalid")));
        assertEquals("host 'node-1.invalid' does not resolve to an address on this machine (DNS or /etc/hosts); name the"
                + " hosts as this machine knows them, or by IP address", e.getMessage());
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
        assertEquals(own, RelaySession.bindAddress(List.of("localhost", neighbour)));
        assertEquals(own, RelaySession.bindAddress(List.of(InetAddress.getLocalHost().getHostName(), neighbour)));
        assertEquals(own, RelaySession.bindAddress(List.of(neighbour, "localhost")));
        assertEquals(InetAddress.getLoopbackAddress(), RelaySession.bindAddress(List.of("localhost", "127.0.0.1")));
    }
}
