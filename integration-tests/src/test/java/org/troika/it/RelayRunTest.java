package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.troika.common.exec.ProcessTable;
import org.troika.testkit.MpiJob.Launcher;
import org.troika.testkit.NetnsCluster;
import org.troika.testkit.CPrograms;
import org.troika.testkit.Requires;

/**
 * {@code troika run} across three network-namespace hosts through the relay, with no sshd anywhere: task services are
 * started with {@code --remote-shell 'ip netns exec {host}'}, Open MPI's daemons go through bin/troika-rsh, the network
 * is detected (the decoy docker0 on every host is not chosen), and the job's secret never shows up in any process's
 * command line or in a rank's environment. The relayed job runs on Open MPI 4 and 5 (troika and mpirun inside the
 * trixie root for 5: prted through troika-rsh, {@code --prtemca plm_ssh_agent}, {@code --prtemca oob_tcp_if_include}).
 */
@Tag("integration")
class RelayRunTest {
    static final String HELLO_C = """
            #include <mpi.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <string.h>
            #include <unistd.h>
            extern char **environ;
            int main(int argc, char **argv) {
              MPI_Init(&argc, &argv);
              int r, s; char h[256]; gethostname(h, sizeof h);
              MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &s);
              int v = r, sum = 0;
              MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
              int leaked = 0; const char *secret = getenv("IT_SECRET_PROBE");
              for (char **e = environ; *e; e++) if (secret && strstr(*e, secret) && strncmp(*e, "IT_SECRET_PROBE=", 16)) leaked = 1;
              const char *nccl = getenv("NCCL_SOCKET_IFNAME");
              printf("rank %d/%d on %s sum=%d leaked=%d nccl=%s\\n", r, s, h, sum, leaked, nccl ? nccl : "-");
              if (argc > 1) sleep(atoi(argv[1]));
              MPI_Barrier(MPI_COMM_WORLD);
              MPI_Finalize();
              return 0;
            }
            """;

    @TempDir
    Path tmp;

    /** The test program, compiled into the cluster's shared home (each host's /tmp is its own). */
    static Path hello(NetnsCluster c) throws Exception {
        CPrograms.compile(c.sharedHome(), "hello", HELLO_C);
        return c.sharedHome().resolve("hello");
    }

    /**
     * The words of every {@code rank R/N on HOST sum=S ...} line the test program printed: {@code [rank, R/N, on, HOST,
     * sum=S, leaked=L, nccl=N]}.
     */
    static List<String[]> rankLines(RunSupport.Result r) {
        List<String[]> out = new ArrayList<>();
        for (String line : r.outLines()) {
            int at = line.indexOf("rank ");
            if (at >= 0) {
                out.add(line.substring(at).split(" "));
            }
        }
        return out;
    }

    /** The hostnames (UTS) of {@code c}'s hosts. */
    static TreeSet<String> hostnames(NetnsCluster c) {
        return new TreeSet<>(c.hosts().stream().map(NetnsCluster.Host::hostname).toList());
    }

    /** Nothing of the job on {@code hosts}: processes, files in their private /tmp and /dev/shm. */
    static void assertNothingLeft(NetnsCluster c, List<NetnsCluster.Host> hosts, RunSupport.Result r) throws Exception {
        for (NetnsCluster.Host h : hosts) {
            assertEquals(List.of(), c.leftovers(h, java.time.Duration.ofSeconds(30)), "left on " + h.netns() + "\n" + r);
        }
    }

    static Stream<Arguments> relayedMpis() {
        return Stream.of(Launcher.OPEN_MPI, Launcher.OPEN_MPI_5)
                .flatMap(mpi -> Stream.of(Arguments.of(mpi, true), Arguments.of(mpi, false)));
    }

    /**
     * On Open MPI 4 and 5, with the daemons' tree spawn on (the default for a few hosts) and off (the words troika
     * plans for large clusters, given here through {@code --mpi-args}): every daemon is told to spawn the tree, or
     * none is.
     */
    // Stays on shared-file hosts (`ip netns exec`): Open MPI 5 runs inside the trixie root, which a share-nothing
    // host's nsenter would leave, and the daemons are found by the run's marker variable, which a share-nothing host's
    // login-like environment drops. aRelayJobOnHostsThatShareNothing... below is the same job on such hosts.
    @ParameterizedTest(name = "{0} tree spawn {1}")
    @MethodSource("relayedMpis")
    void anMpiJobRunsAcrossNamespacesThroughTheRelayWithoutSshd(Launcher mpi, boolean treeSpawn) throws Exception {
        Requires.root();
        Requires.command("unshare");
        Path hello = CPrograms.compile(mpi, tmp, "hello", HELLO_C);
        String secret = java.util.Base64.getEncoder().encodeToString("relay-run-test-secret-0123456789".getBytes());
        try (NetnsCluster c = NetnsCluster.create("rrt", 220, 3)) {
            List<String> hosts = c.hosts().stream().map(NetnsCluster.Host::address).toList();
            // the secret is given (not generated) so the test can look for it; ranks see it only under the probe name.
            // ssh options for Open MPI's ssh in the environment must not reach the relay agent
            Map<String, String> env = Map.of("TROIKA_SECRET_KEY", secret, "IT_SECRET_PROBE", secret,
                    "OMPI_MCA_plm_rsh_args", "-o BatchMode=yes");
            List<String> args = new ArrayList<>(List.of("--verbose", "-np", "3", "-H", hostList(hosts),
                    "--remote-shell", "ip netns exec {host}"));
            if (!treeSpawn) {
                args.addAll(List.of("--mpi-args", mpi == Launcher.OPEN_MPI_5
                        ? "--prtemca plm_ssh_no_tree_spawn true" : "--mca plm_rsh_no_tree_spawn true"));
            }
            args.addAll(List.of(hello.toString(), "3"));
            try (RunSupport run = RunSupport.start(mpi, tmp, env, args.toArray(String[]::new))) {
                run.awaitOut(o -> o.lines().filter(l -> l.contains("rank ")).count() == 3, "three ranks running");
                List<String> holders = processesWithInCmdline(secret);
                assertNoLauncherGuardOutlivesItsCommand(run);
                String daemon = mpi == Launcher.OPEN_MPI_5 ? "prted" : "orted";
                List<String> daemons = ProcessTable.withEnv(RunSupport.MARKER, run.marker).stream()
                        .map(h -> cmdline(h.pid())).filter(cmd -> cmd.split(" ")[0].endsWith(daemon)).toList();
                RunSupport.Result r = run.waitFor();
                run.assertNoSurvivors();
                assertEquals(0, r.exitCode(), r.toString());
                assertEquals(List.of(), holders, "the secret appeared on a command line");
                // prted forks once (two processes of one daemon): a daemon is its vpid
                Map<String, String> byVpid = new java.util.TreeMap<>();
                for (String d : daemons) {
                    java.util.regex.Matcher m = java.util.regex.Pattern.compile("ess_base_vpid\\S* (\\d+)").matcher(d);
                    byVpid.put(m.find() ? m.group(1) : d, d);
                }
                assertEquals(3, byVpid.size(), "one daemon per host: " + daemons);
                assertEquals(treeSpawn ? 3 : 0, byVpid.values().stream().filter(d -> d.contains("--tree-spawn")).count(),
                        "tree spawn " + treeSpawn + ": " + daemons);
                TreeSet<String> seen = new TreeSet<>();
                for (String line : r.outLines()) {
                    int at = line.indexOf("rank ");
                    if (at >= 0) {
                        String[] w = line.substring(at).split(" ");
                        seen.add(w[3]);
                        assertEquals("sum=3", w[4], line);
                        assertEquals("leaked=0", w[5], "the secret reached a rank's environment: " + line);
                        // each host's own name for the data network (nic1, nic2, nic3), never the decoy
                        String nic = c.hosts().stream().filter(h -> h.address().equals(w[3])).findFirst().orElseThrow()
                                .ifname();
                        assertEquals("nccl=" + nic, w[6], line);
                    }
                }
                assertEquals(new TreeSet<>(hosts), seen, r.toString());
                assertTrue(r.err().contains("network " + c.subnet() + ": chosen"), r.err());
                assertTrue(r.err().contains("network " + c.decoySubnet() + ": not used"), r.err());
                assertTrue(r.out().contains("rank") && !r.err().contains("lost"), r.toString());
            }
        }
    }

    /**
     * Issue 10's static relay job on hosts that share nothing (Open MPI 4): each host's own hostname, /tmp and
     * /dev/shm; the program in the shared home; nothing of the job left on any host.
     */
    @Test
    void aRelayJobOnHostsThatShareNothingRunsAndLeavesNothingOnThem() throws Exception {
        Requires.root();
        Requires.command("unshare");
        String secret = java.util.Base64.getEncoder().encodeToString("relay-run-test-secret-0123456789".getBytes());
        try (NetnsCluster c = NetnsCluster.create("rrs", 162, 3)) {
            List<String> hosts = c.hosts().stream().map(NetnsCluster.Host::address).toList();
            // the secret is given (not generated) so the test can look for it; ranks see it only under the probe name.
            // ssh options for Open MPI's ssh in the environment must not reach the relay agent
            Map<String, String> env = Map.of("TROIKA_SECRET_KEY", secret, "IT_SECRET_PROBE", secret,
                    "OMPI_MCA_plm_rsh_args", "-o BatchMode=yes");
            try (RunSupport run = RunSupport.start(tmp, env, "--verbose", "-np", "3", "-H", hostList(hosts),
                    "--remote-shell", c.remoteShell(), hello(c).toString(), "3")) {
                run.awaitOut(o -> o.lines().filter(l -> l.contains("rank ")).count() == 3, "three ranks running");
                List<String> holders = processesWithInCmdline(secret);
                assertNoLauncherGuardOutlivesItsCommand(run);
                RunSupport.Result r = run.waitFor();
                run.assertNoSurvivors();
                assertEquals(0, r.exitCode(), r.toString());
                assertEquals(List.of(), holders, "the secret appeared on a command line");
                TreeSet<String> seen = new TreeSet<>();
                for (String[] w : rankLines(r)) {
                    String line = String.join(" ", w);
                    seen.add(w[3]);
                    assertEquals("sum=3", w[4], line);
                    assertEquals("leaked=0", w[5], "the secret reached a rank's environment: " + line);
                    // each host's own name for the data network (nic1, nic2, nic3), never the decoy
                    String nic = c.hosts().stream().filter(h -> h.hostname().equals(w[3])).findFirst().orElseThrow()
                            .ifname();
                    assertEquals("nccl=" + nic, w[6], line);
                }
                // each host's own hostname (its UTS namespace), so the ranks ran on three distinct hosts
                assertEquals(hostnames(c), seen, r.toString());
                assertTrue(r.err().contains("network " + c.subnet() + ": chosen"), r.err());
                assertTrue(r.err().contains("network " + c.decoySubnet() + ": not used"), r.err());
                assertTrue(r.out().contains("rank") && !r.err().contains("lost"), r.toString());
                assertNothingLeft(c, c.hosts(), r);
            }
        }
    }

    @Test
    void aHostWhoseServiceNeverStartsIsNamedAtOnceOrAfterTheStartTimeout() throws Exception {
        Requires.root();
        try (NetnsCluster c = NetnsCluster.create("rrn", 222, 2)) {
            List<String> hosts = new ArrayList<>(c.hosts().stream().map(NetnsCluster.Host::address).toList());
            hosts.add("10.222.0.99");
            // no such host: its remote shell fails at once, and so does the job, naming the host and the shell's exit
            // (before issue 14 it waited the whole start timeout)
            long t0 = System.nanoTime();
            RunSupport.Result r = RunSupport.run(tmp, "--start-timeout", "60", "-np", "3", "-H", hostList(hosts),
                    "--remote-shell", c.remoteShell(), "hostname");
            long tookS = java.util.concurrent.TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
            assertTrue(r.exitCode() != 0, r.toString());
            assertTrue(r.err().contains("did not come up on: 10.222.0.99 (exit "), r.toString());
            assertFalse(r.err().contains("10.222.0.2,"), r.toString());
            assertTrue(tookS < 50, "waited " + tookS + " s for a remote shell that had ended\n" + r);
            // a remote shell that hangs without starting the service: named after the start timeout
            RunSupport.Result hung = RunSupport.run(tmp, "--start-timeout", "2", "-np", "1", "-H", "10.222.0.2:1",
                    "--remote-shell", "sh -c 'sleep 60' {host}", "hostname");
            assertTrue(hung.exitCode() != 0, hung.toString());
            assertTrue(hung.err().contains("did not come up within 2 s on: 10.222.0.2"), hung.toString());
        }
    }

    @Test
    void aHostKilledMidJobEndsTheJobNamingItAndLeavesNothingBehind() throws Exception {
        Requires.root();
        Requires.command("unshare");
        try (NetnsCluster c = NetnsCluster.create("rrk", 228, 3)) {
            List<String> hosts = c.hosts().stream().map(NetnsCluster.Host::address).toList();
            NetnsCluster.Host victim = c.hosts().get(1);
            try (RunSupport run = RunSupport.start(tmp, Map.of(), "-np", "3", "-H", hostList(hosts), "--remote-shell",
                    c.remoteShell(), hello(c).toString(), "600")) {
                run.awaitOut(o -> o.lines().filter(l -> l.contains("rank ")).count() == 3, "three ranks running");
                c.kill(victim);
                RunSupport.Result r = run.waitFor();
                assertTrue(r.exitCode() != 0, r.toString());
                assertTrue(r.err().contains(victim.address()), r.toString());
                run.assertNoSurvivors();
                // the victim is gone with its namespaces; the survivors clean up after themselves
                assertNothingLeft(c, List.of(c.hosts().get(0), c.hosts().get(2)), r);
            }
        }
    }

    /**
     * Issue 22: troika stopped for longer than the liveness timeout (Ctrl-Z, SIGSTOP) comes back to a job that still
     * runs. The task services see the driver's machine acknowledge their heartbeats and wait for it; the driver does not
     * count its own pause as the hosts' silence. Before, the task services gave up after the timeout, killed the job's
     * daemons, and troika blamed every healthy host ("lost: no heartbeat").
     */
    @Test
    void aLauncherStoppedLongerThanTheLivenessTimeoutComesBackToAJobThatStillRuns() throws Exception {
        Requires.root();
        Requires.command("unshare");
        try (NetnsCluster c = NetnsCluster.create("rrs", 244, 3)) {
            List<String> hosts = c.hosts().stream().map(NetnsCluster.Host::address).toList();
            try (RunSupport run = RunSupport.start(tmp, Map.of(), "-np", "3", "-H", hostList(hosts), "--remote-shell",
                    c.remoteShell(), hello(c).toString(), "14")) {
                run.awaitOut(o -> o.lines().filter(l -> l.contains("rank ")).count() == 3, "three ranks running");
                run.signal("STOP");
                Thread.sleep(8_000); // the liveness timeout is 5 s
                run.signal("CONT");
                RunSupport.Result r = run.waitFor();
                assertEquals(0, r.exitCode(), r.toString());
                assertFalse(r.err().contains(" lost"), r.toString());
                run.assertNoSurvivors();
                assertNothingLeft(c, c.hosts(), r);
            }
        }
    }

    @Test
    void aPartitionedHostEndsTheJobNamingItAndLeavesNothingBehind() throws Exception {
        Requires.root();
        Requires.command("unshare");
        try (NetnsCluster c = NetnsCluster.create("rrp", 226, 3)) {
            List<String> hosts = c.hosts().stream().map(NetnsCluster.Host::address).toList();
            NetnsCluster.Host victim = c.hosts().get(2);
            try (RunSupport run = RunSupport.start(tmp, Map.of(), "-np", "3", "-H", hostList(hosts), "--remote-shell",
                    c.remoteShell(), hello(c).toString(), "600")) {
                run.awaitOut(o -> o.lines().filter(l -> l.contains("rank ")).count() == 3, "three ranks running");
                c.linkDown(victim);
                // plain mpirun would hang forever; the liveness checks end the job
                RunSupport.Result r = run.waitFor();
                assertTrue(r.exitCode() != 0, r.toString());
                assertTrue(r.err().contains("host " + victim.address() + " lost"), r.toString());
                run.assertNoSurvivors();
                // the partitioned host's task service gave up on the driver and removed its files too
                assertNothingLeft(c, c.hosts(), r);
            }
        }
    }

    /** {@code host:1,...}. */
    static String hostList(List<String> hosts) {
        return String.join(",", hosts.stream().map(h -> h + ":1").toList());
    }

    /**
     * While {@code run}'s ranks run, the services detached from their remote shells long ago: none of the launcher's
     * guards outlives its command (a service that kept the launcher's command tag kept its remote shell's guard scanning
     * all of /proc every 2 s for the whole job). A guard's words: troika-guard PGID GRACE TAG JVM-PID.
     */
    static void assertNoLauncherGuardOutlivesItsCommand(RunSupport run) {
        List<String[]> guards = ProcessTable.withEnv(RunSupport.MARKER, run.marker).stream()
                .map(h -> cmdline(h.pid())).filter(cmd -> cmd.contains(" troika-guard "))
                .map(cmd -> cmd.substring(cmd.lastIndexOf(" troika-guard ") + 14).split(" "))
                .filter(w -> !cmdline(Long.parseLong(w[3])).contains("task-service")).toList();
        assertFalse(guards.isEmpty(), "no guard of the launcher found (mpirun has one): the check sees nothing");
        assertEquals(List.of(), guards.stream().filter(w -> cmdline(Long.parseLong(w[0])).isEmpty())
                .map(w -> String.join(" ", w)).toList(), "the launcher's guards of commands that ended");
    }

    /** The command line of {@code pid}, words joined by spaces ("" when it is gone). */
    static String cmdline(long pid) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"))).replace('\0', ' ');
        } catch (java.io.IOException gone) {
            return "";
        }
    }

    /** Pids whose /proc/PID/cmdline contains {@code text}. */
    static List<String> processesWithInCmdline(String text) throws Exception {
        List<String> found = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                try {
                    String cmd = new String(Files.readAllBytes(p.resolve("cmdline"))).replace('\0', ' ');
                    if (cmd.contains(text)) {
                        found.add(p.getFileName() + ": " + cmd);
                    }
                } catch (java.io.IOException gone) {
                    // exited meanwhile
                }
            }
        }
        return found;
    }
}
