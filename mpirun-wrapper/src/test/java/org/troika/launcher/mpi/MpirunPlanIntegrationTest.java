package org.troika.launcher.mpi;

import org.troika.launcher.spi.MpiFlavor;
import org.troika.launcher.spi.MpiInstall;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.launcher.options.RunOptionTable.BINDING_ARGS;
import static org.troika.launcher.options.RunOptionTable.HOSTS;
import static org.troika.launcher.options.RunOptionTable.MPI_ARGS;
import static org.troika.launcher.options.RunOptionTable.NETWORK_INTERFACES;
import static org.troika.launcher.options.RunOptionTable.OUTPUT_FILENAME;
import static org.troika.launcher.options.RunOptionTable.PREFIX_TIMESTAMP;
import static org.troika.launcher.options.RunOptionTable.SSH_IDENTITY_FILE;
import static org.troika.launcher.options.RunOptionTable.SSH_PORT;
import static org.troika.launcher.options.RunOptionTable.TCP;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.troika.common.exec.CommandRunner;
import org.troika.common.exec.CommandRunner.ProbeResult;
import org.troika.common.exec.LaunchPlan;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.LaunchContext;
import org.troika.launcher.spi.RankOutput;
import org.troika.launcher.spi.BackendPlan;
import org.troika.testkit.MpiJob.Launcher;
import org.troika.testkit.NetnsCluster;
import org.troika.testkit.Requires;

/** Detects the real MPIs of this machine and runs planned commands on localhost (2 ranks, no binding). */
@Tag("integration")
class MpirunPlanIntegrationTest {
    /** {@code dist/src} has {@code bin/troika-rankenv}, the layout of an installed troika. */
    static final Path HOME = Path.of("..", "dist", "src").toAbsolutePath().normalize();

    record Output(int exit, String text) {}

    static Output run(List<String> argv, Map<String, String> env, Duration timeout) {
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        if (env != null) {
            pb.environment().clear();
            pb.environment().putAll(env);
        }
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            return new Output(ProbeResult.NOT_FOUND, e.getMessage());
        }
        // read on another thread: a hung launcher must end in the timeout, not block the read forever
        java.util.concurrent.CompletableFuture<String> out = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        }, r -> new Thread(r, "plan-output").start());
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                return new Output(ProbeResult.TIMED_OUT, out.getNow("(output still open)"));
            }
            return new Output(p.exitValue(), out.get(30, TimeUnit.SECONDS));
        } catch (InterruptedException | java.util.concurrent.ExecutionException
                | java.util.concurrent.TimeoutException e) {
            throw new AssertionError(e);
        } finally {
            p.destroyForcibly();
        }
    }

    static final CommandRunner RUNNER = (argv, timeout) -> {
        Output o = run(argv, null, timeout);
        return new ProbeResult(o.exit(), o.text());
    };

    @Test
    void detectsDebiansOpenMpi() {
        Requires.command("mpirun.openmpi");
        MpiInstall mpi = FlavorDetector.detect(RUNNER, "mpirun.openmpi");
        assertEquals(MpiFlavor.OPEN_MPI, mpi.flavor());
        assertTrue(mpi.majorVersion() >= 4, mpi::toString);
    }

    @Test
    void detectsDebiansMpich() {
        Requires.command("mpirun.mpich");
        MpiInstall mpi = FlavorDetector.detect(RUNNER, "mpirun.mpich");
        assertEquals(MpiFlavor.MPICH, mpi.flavor());
        assertEquals(4, mpi.majorVersion());
    }

    @Test
    void missingLauncherIsAUsageError() {
        org.junit.jupiter.api.Assertions.assertThrows(org.troika.common.UsageException.class,
                () -> FlavorDetector.detect(RUNNER, "/nonexistent/troika-test-mpirun"));
    }

    @Test
    void openMpiPlanRunsTwoRanksWithRankEnvironment() {
        Requires.command("mpirun.openmpi");
        assertRanksRun("mpirun.openmpi", FlavorDetector.forFlavorName("openmpi"), "[1,0]<stdout>:", "[1,1]<stdout>:");
    }

    @Test
    void mpichPlanRunsTwoRanksWithRankEnvironment() {
        Requires.command("mpirun.mpich");
        assertRanksRun("mpirun.mpich", FlavorDetector.forFlavorName("mpich"), "[0] ", "[1] ");
    }

    /** Every option troika plans for Open MPI 4 at once, run by the real mpirun: it must accept them all. */
    @Test
    void openMpiAcceptsAllPlannedOptions(@TempDir Path tmp) throws IOException {
        Requires.command("mpirun.openmpi");
        Path out = tmp.resolve("out");
        Output o = runAllOptions("mpirun.openmpi", FlavorDetector.forFlavorName("openmpi"),
                allOptions(out).with(SSH_PORT, 22));
        assertEquals(0, o.exit(), o.text());
        assertTrue(o.text().contains("<stdout>:nic=lo ib=1"), o.text());
        assertTaggedAs(RankOutput.TagFormat.ORTE, o.text(), "nic=lo ib=1\n");
    }

    @Test
    void mpichAcceptsAllPlannedOptions(@TempDir Path tmp) throws IOException {
        Requires.command("mpirun.mpich");
        Path out = tmp.resolve("out");
        RunSettings s = allOptions(out);
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("TROIKA_MPIRUN", "mpirun.mpich");
        LaunchContext ctx = new LaunchContext(s, HostPlan.assign("-H", s.hosts().list(), 2),
                FlavorDetector.forFlavorName("mpich"), env, null, tmp.resolve("scratch"), n -> true, null);
        BackendPlan plan = new MpirunCommandBuilder("root".equals(System.getProperty("user.name"))).build(ctx);
        for (Map.Entry<Path, String> f : plan.files().entrySet()) {
            Files.createDirectories(f.getKey().getParent());
            Files.writeString(f.getKey(), f.getValue());
        }
        Output o = run(plan.launch().argv(), plan.launch().env(), Duration.ofSeconds(120));
        assertEquals(0, o.exit(), o.text());
        // with --output-filename Hydra writes each rank's output into its own file (troika follows them)
        assertEquals("nic=lo ib=1\n", Files.readString(plan.rankOutput().launcherFile(1, false)), o.text());
    }

    /**
     * Open MPI 5.0.7 (in the trixie root) runs what troika plans for it: {@code --output tag,timestamp} gives
     * {@code [date][1,R]<stdout>: text}, the lines troika's per-rank files parse. No NIC here: PRRTE refuses
     * {@code lo} for its daemons (the namespace-host tests give it a real one).
     */
    @Test
    void openMpi5AcceptsAllPlannedOptions(@TempDir Path tmp) {
        Launcher v5 = Launcher.OPEN_MPI_5;
        v5.require();
        RunSettings s = allOptions(tmp.resolve("out")).with(NETWORK_INTERFACES, List.of());
        Map<String, String> env = rootEnv(v5);
        LaunchContext ctx = new LaunchContext(s, HostPlan.assign("-H", s.hosts().list(), 2), detect(v5), env, null,
                Path.of("/tmp"), n -> true, null);
        LaunchPlan plan = new MpirunCommandBuilder(true).build(ctx).launch();
        Output o = run(v5.wrap(plan.argv()), withRoot(v5, plan.env()), Duration.ofSeconds(120));
        assertEquals(0, o.exit(), o.text());
        assertTrue(o.text().matches("(?s).*\\[\\w{3} \\w{3} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d \\d{4}\\]\\[1,1\\]<stdout>: "
                + "nic= ib=1\n.*"), o.text());
        assertTaggedAs(RankOutput.TagFormat.PRRTE, o.text(), "nic= ib=1\n");
    }

    @Test
    void detectsOpenMpi5InTheRoot() {
        MpiInstall mpi = detect(Launcher.OPEN_MPI_5);
        assertEquals(MpiFlavor.OPEN_MPI, mpi.flavor());
        assertEquals(5, mpi.majorVersion());
        assertTrue(mpi.usesPrrte());
    }

    @Test
    void openMpi5PlanRunsTwoRanksWithRankEnvironment() {
        Launcher.OPEN_MPI_5.require();
        assertRanksRun(Launcher.OPEN_MPI_5, "mpirun", detect(Launcher.OPEN_MPI_5), "[1,0]<stdout>: ", "[1,1]<stdout>: ");
    }

    /**
     * The large-cluster flags troika plans at {@value MpirunCommandBuilder#LARGE_CLUSTER_HOSTS} hosts take effect:
     * with them the launch agent starts every daemon itself (no {@code --tree-spawn} in any daemon's command), without
     * them the daemons are told to spawn the tree. Four network-namespace hosts reached by a recording agent
     * ({@code ip netns exec}). Open MPI 4 only: with an agent that starts prted itself, Open MPI 5.0.7's start-up hung
     * in 1-3 runs of 6-8 (namespace or local hosts, tree spawn on or off), so the PRRTE words
     * ({@code --prtemca plm_ssh_no_tree_spawn true}) are seen taking effect through troika's relay instead
     * ({@code RelayRunTest}, tree spawn off).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Launcher.class, names = {"OPEN_MPI"})
    void theLargeClusterFlagsTurnTreeSpawnOff(Launcher mpi, @TempDir Path tmp) throws IOException {
        mpi.require();
        Requires.root();
        Requires.command("unshare");
        MpiInstall install = detect(mpi);
        List<HostSlots> many = new ArrayList<>();
        for (int i = 0; i < MpirunCommandBuilder.LARGE_CLUSTER_HOSTS; i++) {
            many.add(new HostSlots("h" + i, 1));
        }
        List<String> large = largeClusterWords(install, many);
        assertEquals(6, large.size(), large::toString);
        Path log = tmp.resolve("agent.log");
        Path agent = recordingAgent(tmp, log);
        try (NetnsCluster c = NetnsCluster.create("ltree", 100, 4)) {
            String hosts = String.join(",", c.hosts().stream().map(h -> h.address() + ":1").toList());
            for (boolean largeFlags : new boolean[] {false, true}) {
                Files.deleteIfExists(log);
                List<String> argv = new ArrayList<>(List.of("mpirun"));
                argv.addAll(install.usesPrrte() ? List.of("--prtemca", "plm_ssh_agent", agent.toString(),
                        "--prtemca", "oob_tcp_if_include", c.subnet()) : List.of("--mca", "plm_rsh_agent",
                        agent.toString(), "--mca", "oob_tcp_if_include", c.subnet()));
                if (largeFlags) {
                    argv.addAll(large);
                }
                argv.addAll(List.of("--bind-to", "none", "-np", "4", "-H", hosts, "true"));
                Map<String, String> env = new HashMap<>(System.getenv());
                env.put("OMPI_ALLOW_RUN_AS_ROOT", "1");
                env.put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
                Output o = run(mpi.wrap(argv), withRoot(mpi, env), Duration.ofSeconds(120));
                assertEquals(0, o.exit(), o.text());
                List<String> launches = Files.readAllLines(log);
                assertEquals(4, launches.size(), launches::toString);
                long tree = launches.stream().filter(l -> l.contains("--tree-spawn")).count();
                assertEquals(largeFlags ? 0 : 4, tree, (largeFlags ? "with " : "without ") + large + ": " + launches);
            }
        }
    }

    /**
     * troika's default {@code --bind-to none --map-by slot} leaves every rank free to run on every CPU (Open MPI
     * would pin each to one core); replaced by {@code --binding-args}, Open MPI's binding applies again.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Launcher.class, names = {"OPEN_MPI", "OPEN_MPI_5"})
    void defaultBindingLeavesRanksUnpinned(Launcher mpi) throws IOException {
        MpiInstall install = detect(mpi);
        String all = Files.readAllLines(Path.of("/proc/self/status")).stream()
                .filter(l -> l.startsWith("Cpus_allowed_list:")).findFirst().orElseThrow().split("\\s+")[1];
        Requires.check(!all.matches("\\d+"), "one CPU: binding cannot be told from no binding");
        for (boolean pinned : new boolean[] {false, true}) {
            RunSettings b = RunSettings.of(List.of("sh", "-c", "grep Cpus_allowed_list: /proc/self/status"))
                    .with(HOSTS, new RunSettings.Hosts(null, List.of(new HostSlots("localhost", 2)), "-H"));
            if (pinned) {
                b = b.with(BINDING_ARGS, List.of("--bind-to", "core", "--map-by", "core"));
            }
            RunSettings s = b;
            LaunchContext ctx = new LaunchContext(s, HostPlan.assign("-H", s.hosts().list(), 2), install, rootEnv(mpi),
                    null,
                    Path.of("/tmp"), n -> true, null);
            LaunchPlan plan = new MpirunCommandBuilder("root".equals(System.getProperty("user.name"))).build(ctx)
                    .launch();
            Output o = run(mpi.wrap(plan.argv()), plan.env(), Duration.ofSeconds(120));
            assertEquals(0, o.exit(), o.text());
            List<String> lists = o.text().lines().filter(l -> l.contains("Cpus_allowed_list:"))
                    .map(l -> l.substring(l.indexOf("Cpus_allowed_list:") + 18).strip()).toList();
            assertEquals(2, lists.size(), o.text());
            for (String l : lists) {
                assertEquals(!pinned, l.equals(all), (pinned ? "pinned" : "unpinned") + " rank on " + l + " of " + all);
            }
        }
    }

    /** The no-tree-spawn and concurrency words of troika's plan for {@code hosts}. */
    private static List<String> largeClusterWords(MpiInstall mpi, List<HostSlots> hosts) {
        RunSettings s = RunSettings.of(List.of("true")).with(new RunSettings.Hosts(null, hosts, "-H"));
        LaunchContext ctx = new LaunchContext(s, HostPlan.assign("-H", hosts, hosts.size()), mpi, Map.of(), null,
                Path.of("/tmp"), n -> true, null);
        List<String> argv = new MpirunCommandBuilder(false).build(ctx).launch().argv();
        int at = 0;
        while (at < argv.size() && !argv.get(at).contains("no_tree_spawn")) {
            at++;
        }
        // flag, name, value twice: no tree spawn, then the launch concurrency
        return at < argv.size() ? argv.subList(at - 1, Math.min(argv.size(), at + 5)) : List.of();
    }

    /**
     * The planned ssh words ({@code plm_rsh_args}; Open MPI 5: {@code --prtemca plm_ssh_args}) reach Open MPI's launch
     * agent as separate words before the host name.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Launcher.class, names = {"OPEN_MPI", "OPEN_MPI_5"})
    void sshPortAndIdentityReachTheLaunchAgent(Launcher mpi, @TempDir Path tmp) throws IOException {
        MpiInstall install = detect(mpi);
        Path argsFile = tmp.resolve("args");
        Path agent = tmp.resolve("agent");
        // records its argv and fails, so mpirun stops without starting anything remote
        Files.writeString(agent, "#!/bin/sh\nprintf '%s\\n' \"$@\" > '" + argsFile + "'\nexit 1\n");
        agent.toFile().setExecutable(true);
        RunSettings s = RunSettings.of(List.of("hostname"))
                .with(new RunSettings.Hosts(null, List.of(new HostSlots("127.0.0.2", 1)), "-H")).with(SSH_PORT, 2222)
                .with(SSH_IDENTITY_FILE, Path.of("/k/id"))
                .with(MPI_ARGS, install.usesPrrte() ? List.of("--prtemca", "plm_ssh_agent", agent.toString())
                        : List.of("--mca", "plm_rsh_agent", agent.toString()));
        Map<String, String> env = rootEnv(mpi);
        LaunchContext ctx = new LaunchContext(s, HostPlan.assign("-H", s.hosts().list(), 1), install, env, null, tmp,
                n -> true, null);
        LaunchPlan plan = new MpirunCommandBuilder("root".equals(System.getProperty("user.name"))).build(ctx).launch();
        Output o = run(mpi.wrap(plan.argv()), plan.env(), Duration.ofSeconds(120));
        assertTrue(o.exit() != 0, "the recording agent fails the launch: " + o.text());
        List<String> words = Files.readAllLines(argsFile);
        assertEquals(List.of("-p", "2222", "-i", "/k/id", "127.0.0.2"), words.subList(0, 5), words::toString);
    }

    private static RunSettings allOptions(Path out) {
        return RunSettings.of(List.of("sh", "-c", "echo nic=$NCCL_SOCKET_IFNAME ib=$NCCL_IB_DISABLE"))
                .with(HOSTS, new RunSettings.Hosts(null, List.of(new HostSlots("localhost", 2)), "-H"))
                .with(NETWORK_INTERFACES, List.of("lo")).with(TCP, true).with(OUTPUT_FILENAME, out)
                        .with(PREFIX_TIMESTAMP, true);
    }

    private static Output runAllOptions(String mpirun, MpiInstall mpi, RunSettings s) {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("TROIKA_MPIRUN", mpirun);
        env.put("OMPI_MCA_hwloc_base_binding_policy", "none");
        LaunchContext ctx = new LaunchContext(s, HostPlan.assign("-H", s.hosts().list(), 2), mpi, env, null,
                Path.of("/tmp"), n -> true, null);
        boolean root = "root".equals(System.getProperty("user.name"));
        LaunchPlan plan = new MpirunCommandBuilder(root).build(ctx).launch();
        return run(plan.argv(), plan.env(), Duration.ofSeconds(120));
    }

    private static void assertRanksRun(String mpirun, MpiInstall mpi, String tag0, String tag1) {
        assertRanksRun(Launcher.OPEN_MPI, mpirun, mpi, tag0, tag1);
    }

    private static void assertRanksRun(Launcher where, String mpirun, MpiInstall mpi, String tag0, String tag1) {
        RunSettings s = RunSettings.of(List.of("sh", "-c", "echo \"r=$TROIKA_RANK/$TROIKA_SIZE l=$TROIKA_LOCAL_RANK"
                        + " c=$TROIKA_CROSS_RANK/$TROIKA_CROSS_SIZE h=$TROIKA_HOSTNAME s=${TROIKA_SECRET_KEY:-none}\""))
                                .with(new RunSettings.Hosts(null, List.of(new HostSlots("localhost", 2)), "-H"));
        Map<String, String> env = rootEnv(where);
        env.put("TROIKA_MPIRUN", mpirun);
        env.put("TROIKA_SECRET_KEY", "not-for-ranks");
        env.put("OMPI_MCA_hwloc_base_binding_policy", "none");
        LaunchContext ctx = new LaunchContext(s, HostPlan.assign("-H", s.hosts().list(), 2), mpi, env, null,
                Path.of("/tmp"), n -> true, HOME);
        boolean root = "root".equals(System.getProperty("user.name"));
        LaunchPlan plan = new MpirunCommandBuilder(root).build(ctx).launch();
        Output o = run(where.wrap(plan.argv()), plan.env(), Duration.ofSeconds(120));
        assertEquals(0, o.exit(), o.text());
        assertTrue(o.text().contains(tag0 + "r=0/2 l=0 c=0/1 h=localhost"), o.text());
        assertTrue(o.text().contains(tag1 + "r=1/2 l=1 c=0/1 h=localhost"), o.text());
        assertTrue(o.text().contains("s=none"), "ranks must not see the secret: " + o.text());
    }

    /** The MPI under test's own flavour, probed through its launcher (inside the root for Open MPI 5). */
    private static MpiInstall detect(Launcher mpi) {
        mpi.require();
        CommandRunner runner = (argv, timeout) -> {
            Output o = run(mpi.wrap(argv), withRoot(mpi, new HashMap<>(System.getenv())), timeout);
            return new ProbeResult(o.exit(), o.text());
        };
        return FlavorDetector.detect(runner, mpi.command());
    }

    /** The caller's environment as a command of {@code mpi} sees it (the root's PATH, JDK, HOME for Open MPI 5). */
    private static Map<String, String> rootEnv(Launcher mpi) {
        return withRoot(mpi, new HashMap<>(System.getenv()));
    }

    private static Map<String, String> withRoot(Launcher mpi, Map<String, String> env) {
        Map<String, String> out = new HashMap<>(env);
        mpi.applyEnvironment(out);
        return out;
    }

    /**
     * An agent that appends its argv (one launch per line) to {@code log}, then runs the daemon command in the network
     * namespace named like the host, in a UTS namespace with the host's name.
     */
    private static Path recordingAgent(Path dir, Path log) throws IOException {
        Path agent = dir.resolve("agent");
        Files.writeString(agent, "#!/bin/sh\necho \"$*\" >> '" + log + "'\nhost=$1\nshift\nexec ip netns exec \"$host\" "
                + "unshare --uts sh -c 'hostname \"$0\" && exec sh -c \"$1\"' \"$host\" \"$*\"\n");
        agent.toFile().setExecutable(true);
        return agent;
    }

    /** Some line of {@code output} is a rank line of {@code format} whose text is {@code text}. */
    private static void assertTaggedAs(RankOutput.TagFormat format, String output, String text) {
        RankOutput parser = new RankOutput(Path.of("unused"), 2, format, null);
        assertTrue(output.lines().map(l -> parser.parse(l + "\n", false)).flatMap(java.util.Optional::stream)
                .anyMatch(l -> l.text().equals(text)), format + " lines with " + text + " in:\n" + output);
    }
}
