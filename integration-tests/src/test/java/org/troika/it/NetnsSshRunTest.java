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
        Requires.root();
        Requires.command("ssh");
        try (NetnsCluster c = NetnsCluster.create("nss", 224, 3)) {
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
}
