package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.troika.testkit.CPrograms;
import org.troika.testkit.MpiJob.Launcher;
import org.troika.testkit.NetnsCluster;
import org.troika.testkit.Requires;

/**
 * Issue 23.1 in CI: {@code troika run} through the relay on {@value #HOSTS} namespace hosts, Open MPI 4 and 5. The
 * launch node starts only its direct children (troika's radix 16: at most 16 launch agents there, the other daemons
 * started by daemons on the hosts, through their task services), no agent outlives its daemon's start (none is left on
 * the launch node while the ranks run), the job's output is whole, and nothing is left on any host.
 */
@Tag("integration")
class TreeLaunchTest {
    static final int HOSTS = 20;

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Launcher.class, names = {"OPEN_MPI", "OPEN_MPI_5"})
    void theLaunchNodeStartsOnlyItsDirectChildrenAndNoAgentOutlivesItsDaemonsStart(Launcher mpi) throws Exception {
        Requires.root();
        Requires.command("unshare");
        // Open MPI 4: share-nothing hosts, each with its own /tmp, /dev/shm, hostname and process table. Open MPI 5:
        // shared-file hosts (ip netns exec), as RelayRunTest's Open MPI 5 case: the trixie root is not on a
        // share-nothing host; the driver gives each host's daemon its own UTS name, so session folders do not collide
        Path hello = CPrograms.compile(mpi, tmp, "hello", RelayRunTest.HELLO_C);
        boolean shareNothing = mpi == Launcher.OPEN_MPI;
        try (NetnsCluster c = shareNothing ? NetnsCluster.withPrivatePids("trl", 248, HOSTS, List.of(tmp))
                : NetnsCluster.create("trl", 248, HOSTS)) {
            List<String> hosts = c.hosts().stream().map(NetnsCluster.Host::address).toList();
            try (AgentSampler agents = new AgentSampler(hosts, 50);
                    RunSupport run = RunSupport.start(mpi, tmp, Map.of(), "-np", Integer.toString(HOSTS), "-H",
                            RelayRunTest.hostList(hosts), "--remote-shell", shareNothing ? c.remoteShell()
                                    : "ip netns exec {host}", hello.toString(), "6")) {
                run.awaitOut(o -> o.lines().filter(l -> l.contains("rank ")).count() == HOSTS, "every rank running");
                // every daemon runs and the ranks too: the agents handed their daemons over and went
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (agents.seen().launchNodeAliveNow() > 0 && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                AgentSampler.Seen whileRunning = agents.seen();
                RunSupport.Result r = run.waitFor();
                run.assertNoSurvivors();
                assertEquals(0, r.exitCode(), r.toString());
                assertEquals(0, whileRunning.launchNodeAliveNow(),
                        "launch agents still alive while the ranks run: " + whileRunning);
                AgentSampler.Seen seen = agents.seen();
                System.out.println("TreeLaunchTest " + mpi + " on " + HOSTS + " hosts: " + seen);
                assertTrue(seen.maxLaunchNodeAlive() <= 16 && seen.launchNodeAgents() <= 16, seen.toString());
                assertTrue(seen.hostAgents() >= 1, "no daemon was started from a host (no tree): " + seen);
                TreeSet<String> ranks = new TreeSet<>();
                for (String[] w : RelayRunTest.rankLines(r)) {
                    ranks.add(w[1]);
                    assertEquals("sum=" + HOSTS * (HOSTS - 1) / 2, w[4], String.join(" ", w));
                }
                assertEquals(HOSTS, ranks.size(), r.toString());
                for (NetnsCluster.Host h : c.hosts()) {
                    assertEquals(List.of(), c.leftovers(h, java.time.Duration.ofSeconds(30)), "left on " + h.netns());
                }
            }
        }
    }
}
