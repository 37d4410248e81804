package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.testkit.NetnsCluster;
import org.troika.testkit.CPrograms;
import org.troika.testkit.Requires;

/**
 * The same three-namespace job over real ssh ({@code openssh-server} in each namespace) with {@code --launch-agent ssh}:
 * task services start over ssh (the secret travels on ssh's stdin) for network detection, and Open MPI's own ssh starts
 * the daemons.
 */
@Tag("integration")
class NetnsSshRunTest {
    @TempDir
    Path tmp;

    @Test
    void anMpiJobRunsOverSshWithDetectedNetworks() throws Exception {
        try (NetnsCluster c = sshHosts("nss", 224)) {
            Path sshConfig = c.startSshd();
            List<String> hosts = c.hosts().stream().map(NetnsCluster.Host::address).toList();
            // Open MPI's ssh needs the test's client config too
            Map<String, String> env = Map.of("OMPI_MCA_plm_rsh_args", "-F " + sshConfig);
            RunSupport.Result r;
            try (RunSupport run = RunSupport.start(tmp, env, "--verbose", "--launch-agent", "ssh", "--remote-shell",
                    "ssh -F " + sshConfig + " {host}", "-np", "3", "-H", RelayRunTest.hostList(hosts),
                    RelayRunTest.hello(c).toString())) {
                r = run.waitFor();
                run.assertNoSurvivors();
            }
            RelayRunTest.assertNothingLeft(c, c.hosts(), r);
            assertEquals(0, r.exitCode(), r.toString());
            TreeSet<String> seen = new TreeSet<>();
            for (String[] w : RelayRunTest.rankLines(r)) {
                seen.add(w[3]);
                assertEquals("sum=3", w[4], String.join(" ", w));
            }
            // the ranks ran on distinct hosts (each its own hostname)
            assertEquals(RelayRunTest.hostnames(c), seen, r.toString());
            assertTrue(r.err().contains("network " + c.subnet() + ": chosen"), r.err());
            assertTrue(r.err().contains("network " + c.decoySubnet() + ": not used"), r.err());
            assertTrue(!String.join(" ", r.err().lines().filter(l -> l.contains("plm_rsh_agent")).toList())
                    .contains("troika-rsh"), "--launch-agent ssh must keep Open MPI's ssh: " + r.err());
        }
    }

    /**
     * Issue 23: task services started over ssh leave their ssh session once registered (--detach), so that no ssh
     * client per host stays on the launch node for the whole job (8 MB and 7 descriptors each, measured): while the
     * ranks still run, no ssh client of the job is left, and the job still ends cleanly with nothing left on the hosts
     * (the services end with the driver's Shutdown, not with their ssh session).
     */
    @Test
    void relayServicesStartedOverSshLeaveNoSshClientOnTheLaunchNodeWhileTheJobRuns() throws Exception {
        try (NetnsCluster c = sshHosts("nsd", 225)) {
            Path sshConfig = c.startSshd();
            List<String> hosts = c.hosts().stream().map(NetnsCluster.Host::address).toList();
            RunSupport.Result r;
            int left;
            try (RunSupport run = RunSupport.start(tmp, Map.of(), "--verbose", "--remote-shell",
                    "ssh -F " + sshConfig + " {host}", "-np", "3", "-H", RelayRunTest.hostList(hosts),
                    "sh", "-c", "echo up; sleep 6")) {
                run.awaitOut(o -> o.lines().filter(l -> l.endsWith("up")).count() == 3, "three ranks up");
                long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(4);
                do {
                    left = sshClients(sshConfig);
                } while (left > 0 && System.nanoTime() < deadline && sleep());
                assertTrue(run.alive(), "the job ended before the check");
                r = run.waitFor();
                run.assertNoSurvivors();
            }
            assertEquals(0, left, "ssh clients of the job still on the launch node while its ranks run");
            assertEquals(0, r.exitCode(), r.toString());
            assertTrue(r.err().contains("task-service --host " + hosts.get(0) + " --driver "), r.err());
            assertTrue(r.err().contains(" --secret-stdin --detach"), r.err());
            RelayRunTest.assertNothingLeft(c, c.hosts(), r);
        }
    }

    private static boolean sleep() throws InterruptedException {
        Thread.sleep(100);
        return true;
    }

    /** ssh processes on this machine whose command line names {@code config} (this test's). */
    private static int sshClients(Path config) throws java.io.IOException {
        int n = 0;
        try (java.nio.file.DirectoryStream<Path> procs = java.nio.file.Files.newDirectoryStream(Path.of("/proc"),
                p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path p : procs) {
                String cmd;
                try {
                    cmd = new String(java.nio.file.Files.readAllBytes(p.resolve("cmdline")),
                            java.nio.charset.StandardCharsets.UTF_8);
                } catch (java.io.IOException gone) {
                    continue;
                }
                if (cmd.startsWith("ssh\0") && cmd.contains(config.toString())) {
                    n++;
                }
            }
        }
        return n;
    }

    /** Three fake hosts that will run sshd (needs root and an ssh client). */
    private static NetnsCluster sshHosts(String tag, int subnet) throws java.io.IOException {
        Requires.root();
        Requires.command("ssh");
        return NetnsCluster.create(tag, subnet, 3);
    }
}
