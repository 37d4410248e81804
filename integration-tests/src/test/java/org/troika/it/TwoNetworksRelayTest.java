package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.launcher.options.RunOptionTable.LAUNCH_AGENT;
import static org.troika.launcher.options.RunOptionTable.REMOTE_SHELL;
import static org.troika.launcher.options.RunOptionTable.START_TIMEOUT;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.troika.launcher.relay.RelaySession;
import org.troika.launcher.relay.RemoteShell;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.MpiFlavor;
import org.troika.launcher.spi.MpiInstall;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.timeline.Timeline;
import org.troika.testkit.Dist;
import org.troika.testkit.NetnsCluster;

/**
 * Issue 21: an elastic job's warm relay session whose hosts sit on two networks of the launcher. Host 1 is on one
 * bridge (10.142.0.0/24), host 2, added by a later launch, on another (10.144.0.0/24); neither routes to the other's
 * network, so host 2's task service can reach the driver only at the launcher's address on its own bridge. Before the
 * fix the driver listened only on the address that routes to the first host, and host 2's service could not register
 * ("the remote shell ended before the service registered"). Then a command runs on each host through the launch agent.
 * Takes about 10 s.
 */
@Tag("integration")
@Timeout(180)
class TwoNetworksRelayTest {
    private static final MpiInstall OMPI4 = new MpiInstall(MpiFlavor.OPEN_MPI, 4, "");

    @TempDir
    Path tmp;

    private static HostPlan plan(NetnsCluster.Host... hosts) {
        return HostPlan.assign("test", java.util.Arrays.stream(hosts).map(h -> new HostSlots(h.address(), 1)).toList(),
                hosts.length);
    }

    @Test
    void aHostAddedLaterOnAnotherInterfaceRegistersAndRunsItsDaemon() throws Exception {
        Path home = Dist.home();
        try (NetnsCluster cluster = NetnsCluster.onBridges("twn", 142, 2, 2)) {
            NetnsCluster.Host first = cluster.hosts().get(0);
            NetnsCluster.Host later = cluster.hosts().get(1);
            assertEquals("10.142.0.1", cluster.bridgeAddress(first));
            assertEquals("10.144.0.1", cluster.bridgeAddress(later));
            ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
            PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
            Map<String, String> env = Map.of("TMPDIR", tmp.toString(), "PATH", System.getenv("PATH"));
            RunSettings s = RunSettings.of(List.of("true")).with(REMOTE_SHELL, cluster.remoteShell())
                    .with(LAUNCH_AGENT, RunSettings.LaunchAgent.RELAY).with(START_TIMEOUT, Duration.ofSeconds(60));
            RelaySession.Request request = new RelaySession.Request(s, OMPI4, new RemoteShell(s, null, env), env, home,
                    err, false, Timeline.off());
            try (RelaySession relay = RelaySession.open(request, List.of(first.address()), true)) {
                relay.launch(plan(first), s);
                RelaySession.Launch both = relay.launch(plan(first, later), s); // threw before the fix
                assertEquals(List.of(first.address(), later.address()), relay.serviceHosts(),
                        errBytes.toString(StandardCharsets.UTF_8));
                // mpirun's agent on this machine reaches each host's service, which runs the "daemon" there
                for (NetnsCluster.Host h : List.of(first, later)) {
                    List<String> argv = new ArrayList<>(List.of(both.agent().program().toString(), h.address(),
                            "hostname"));
                    ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
                    pb.environment().putAll(both.agent().env());
                    Process p = pb.start();
                    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
                    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the agent did not end");
                    assertEquals(0, p.exitValue(), out);
                    assertEquals(h.hostname(), out);
                }
                assertTrue(relay.lostHosts().isEmpty(), errBytes.toString(StandardCharsets.UTF_8));
            }
        }
    }
}
