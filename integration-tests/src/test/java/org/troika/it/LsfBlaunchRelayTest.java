package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.testkit.NetnsCluster;
import org.troika.testkit.Requires;

/**
 * Inside an LSF job (LSF cannot exist here: a recorded environment, {@code LSB_JOBID} and {@code LSB_MCPU_HOSTS},
 * and a fake {@code blaunch} first on PATH) a relay job starts its task services with {@code blaunch}, the
 * allocation's own launcher, not ssh. The fake blaunch checks its argv ({@code blaunch HOST <dist>/bin/troika-rsh
 * task-service --host HOST --driver ADDR --secret-stdin [--agent-label L]}), logs it, and runs the words on that fake host (which
 * shares nothing with the launcher), as LSF's would on a compute node.
 */
@Tag("integration")
class LsfBlaunchRelayTest {
    @TempDir
    Path tmp;

    @Test
    void aRelayJobInsideLsfStartsItsTaskServicesWithBlaunch() throws Exception {
        Requires.root();
        Requires.command("mpirun");
        try (NetnsCluster c = NetnsCluster.create("lsfb", 152, 2)) {
            List<String> hosts = c.hosts().stream().map(NetnsCluster.Host::address).toList();
            Path fakeBin = Files.createDirectories(tmp.resolve("fakebin"));
            Path log = tmp.resolve("blaunch.log");
            Path blaunch = fakeBin.resolve("blaunch");
            Files.writeString(blaunch, String.join("\n",
                    "#!/bin/sh",
                    "# fake LSF blaunch: blaunch HOST CMD...; only troika's task service for that very host is expected",
                    "printf '%s\\n' \"$*\" >> '" + log + "'",
                    "host=$1; shift",
                    "case \"$1\" in */bin/troika-rsh) ;; *) echo \"fake blaunch: unexpected command $1\" >&2; exit 97;; esac",
                    "if [ \"$2\" != task-service ] || [ \"$3\" != --host ] || [ \"$4\" != \"$host\" ] || [ \"$5\" != --driver ]"
                            + " || [ \"$7\" != --secret-stdin ] || ! { [ $# -eq 7 ] || { [ $# -eq 9 ]"
                            + " && [ \"$8\" = --agent-label ]; }; }; then",
                    "  echo \"fake blaunch: bad argv: $host $*\" >&2; exit 98",
                    "fi",
                    "exec " + c.remoteShell().replace("{host}", "\"$host\"") + " \"$@\"",
                    ""));
            Files.setPosixFilePermissions(blaunch, PosixFilePermissions.fromString("rwx------"));
            Map<String, String> env = Map.of("PATH", fakeBin + ":" + System.getenv("PATH"), "LSB_JOBID", "4242",
                    "LSB_MCPU_HOSTS", hosts.get(0) + " 1 " + hosts.get(1) + " 1",
                    "OMPI_MCA_hwloc_base_binding_policy", "none");
            RunSupport.Result r;
            try (RunSupport run = RunSupport.start(tmp, env, "--verbose", "--launch-agent", "relay",
                    "--network-interface", c.subnet(), RelayRunTest.hello(c).toString())) {
                r = run.waitFor();
                run.assertNoSurvivors();
            }
            assertEquals(0, r.exitCode(), r.toString());
            TreeSet<String> seen = new TreeSet<>();
            for (String[] w : RelayRunTest.rankLines(r)) {
                seen.add(w[3]);
                assertEquals("sum=1", w[4], String.join(" ", w));
            }
            // the ranks ran on distinct hosts (each its own hostname)
            assertEquals(RelayRunTest.hostnames(c), seen, r.toString());
            List<String> launches = Files.readAllLines(log);
            assertEquals(2, launches.size(), launches.toString());
            for (String h : hosts) {
                assertTrue(launches.stream().anyMatch(l -> l.startsWith(h + " ") && l.contains(" task-service --host "
                        + h + " --driver ") && l.contains(" --secret-stdin")), launches.toString());
                assertTrue(r.err().contains("troika: starting the task service of " + h + ": blaunch " + h + " "),
                        r.err());
            }
            RelayRunTest.assertNothingLeft(c, c.hosts(), r);
        }
    }
}
