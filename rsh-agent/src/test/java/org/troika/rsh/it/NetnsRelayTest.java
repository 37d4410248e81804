package org.troika.rsh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.rsh.driver.DriverService;
import org.troika.rsh.driver.NicSelector;
import org.troika.rsh.task.NicInventory;
import org.troika.testkit.NetnsCluster;
import org.troika.testkit.Requires;

/**
 * Three fake hosts that share nothing (network, mount and UTS namespaces; private /tmp and /dev/shm; the test folder
 * is their shared home) on a bridge, no sshd anywhere, each with a decoy docker0; mpirun in the root namespace starts
 * its daemons through troika-rsh and the task services.
 */
@Tag("integration")
class NetnsRelayTest {
    @TempDir Path tmp;

    private static List<String> mpirun(RelayFixture f, Path program, String subnet, String... args) {
        List<String> argv = new ArrayList<>(List.of(Requires.command("mpirun").toString(), "--allow-run-as-root",
                "--bind-to", "none", "-np", "3", "-H", String.join(",", f.hostWords()), "-mca", "plm_rsh_agent",
                f.agent.toString(), "-mca", "btl_tcp_if_include", subnet, "-mca", "oob_tcp_if_include", subnet,
                program.toString()));
        argv.addAll(List.of(args));
        return argv;
    }

    @Test
    void anMpiJobRunsAcrossTheNamespacesOnTheDetectedNetworkNotTheDecoy() throws Exception {
        Path hello = MpiPrograms.compile(tmp, "hello", MpiPrograms.HELLO);
        try (NetnsCluster c = NetnsCluster.create("trr", 210, 3, RelayFixture.shared(tmp)); RelayFixture f = new RelayFixture(c, tmp)) {
            Map<String, List<org.troika.wire.NicAddress>> nics = f.driver.hosts().stream()
                    .collect(Collectors.toMap(DriverService.HostInfo::host, DriverService.HostInfo::nics, (a, b) -> a,
                            java.util.LinkedHashMap::new));
            NicSelector.Choice choice = NicSelector.select(nics,
                    f.driver.probe(Duration.ofSeconds(5), Duration.ofSeconds(60), 16), NicInventory.local());
            assertEquals(List.of(c.subnet()), choice.subnets(), choice.reasons().toString());
            assertEquals(List.of(c.subnet()), choice.launcherSubnets());
            for (NetnsCluster.Host h : c.hosts()) {
                assertEquals(List.of(h.ifname()), choice.ifnamesByHost().get(h.address()));
            }
            assertTrue(choice.reasons().stream().anyMatch(r -> r.startsWith(c.decoySubnet() + ": not used")),
                    choice.reasons().toString());

            try (Mpirun m = new Mpirun(mpirun(f, hello, String.join(",", choice.subnets())), f.mpirunEnv())) {
                Integer code = m.waitFor(180);
                assertEquals(0, code, m.output());
                TreeSet<String> hostsSeen = new TreeSet<>();
                for (String line : m.output().lines().toList()) {
                    if (line.startsWith("rank ")) {
                        assertTrue(line.endsWith("sum=3"), line);
                        hostsSeen.add(line.split(" ")[3]);
                    }
                }
                // each rank ran on its own host (its own UTS namespace and hostname)
                assertEquals(new TreeSet<>(c.hosts().stream().map(NetnsCluster.Host::hostname).toList()), hostsSeen,
                        m.output());
                assertFalse(m.output().contains(f.secret.encode()));
            }
        }
    }

    @Test
    void aHostKilledMidJobFailsTheJobNamingItAndLeavesNoProcesses() throws Exception {
        Path longjob = MpiPrograms.compile(tmp, "longjob", MpiPrograms.LONGJOB);
        try (NetnsCluster c = NetnsCluster.create("trk", 212, 3, RelayFixture.shared(tmp))) {
            NetnsCluster.Host victim = c.hosts().get(1);
            try (RelayFixture f = new RelayFixture(c, tmp);
                    Mpirun m = new Mpirun(mpirun(f, longjob, c.subnet(), "120"), f.mpirunEnv())) {
                CountDownLatch running = m.watch(l -> l.startsWith("running "), 3);
                assertTrue(running.await(180, TimeUnit.SECONDS), m.output());
                c.kill(victim);
                Integer code = m.waitFor(120);
                assertNotNull(code, "mpirun did not end after a host died: " + m.output());
                assertNotEquals(0, code);
                assertTrue(m.output().contains(victim.address()), m.output());
                String lost = f.lost.poll(60, TimeUnit.SECONDS);
                assertTrue(lost != null && lost.startsWith(victim.address() + ": "), String.valueOf(lost));
            }
            // the driver closed: every task service and daemon on every surviving host ends by itself, and removes its
            // files from the host's own /tmp (the victim died with its namespaces)
            for (NetnsCluster.Host h : c.hosts()) {
                if (!h.equals(victim)) {
                    assertEquals(List.of(), c.leftovers(h, Duration.ofSeconds(120)), "left on " + h.netns());
                }
            }
        }
    }

    @Test
    void aPartitionedHostIsDetectedAndTheJobEndsNamingIt() throws Exception {
        Path longjob = MpiPrograms.compile(tmp, "longjob", MpiPrograms.LONGJOB);
        try (NetnsCluster c = NetnsCluster.create("trp", 214, 3, RelayFixture.shared(tmp))) {
            NetnsCluster.Host victim = c.hosts().get(2);
            try (RelayFixture f = new RelayFixture(c, tmp);
                    Mpirun m = new Mpirun(mpirun(f, longjob, c.subnet(), "600"), f.mpirunEnv())) {
                CountDownLatch running = m.watch(l -> l.startsWith("running "), 3);
                assertTrue(running.await(180, TimeUnit.SECONDS), m.output());
                c.linkDown(victim);
                // plain mpirun hangs forever here, and no launch agent is left to notice: each handed its daemon over
                // to the task service once it ran. The driver names the host; whoever runs the driver ends mpirun
                // then (troika run's SupervisedLaunch.hostLost; RelayRunTest's partition test covers it end to end)
                String lost = f.lost.poll(60, TimeUnit.SECONDS);
                assertTrue(lost != null && lost.startsWith(victim.address() + ": "), String.valueOf(lost));
            }
            // the partitioned host's task service notices the silent driver, stops its daemon and ranks, and removes
            // its secret file from the host's own /tmp
            assertEquals(List.of(), c.leftovers(victim, Duration.ofSeconds(120)), "left on " + victim.netns());
        }
    }
}
