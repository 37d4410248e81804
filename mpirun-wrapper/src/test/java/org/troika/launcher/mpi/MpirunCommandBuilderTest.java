package org.troika.launcher.mpi;

import org.troika.launcher.options.RunOptionTable;
import org.troika.launcher.spi.MpiFlavor;
import org.troika.launcher.spi.MpiInstall;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.launcher.options.RunOptionTable.BINDING_ARGS;
import static org.troika.launcher.options.RunOptionTable.FAULT_TOLERANCE;
import static org.troika.launcher.options.RunOptionTable.HOSTS;
import static org.troika.launcher.options.RunOptionTable.LAUNCH_AGENT;
import static org.troika.launcher.options.RunOptionTable.MPI_ARGS;
import static org.troika.launcher.options.RunOptionTable.NETWORK_INTERFACES;
import static org.troika.launcher.options.RunOptionTable.NP;
import static org.troika.launcher.options.RunOptionTable.OUTPUT_FILENAME;
import static org.troika.launcher.options.RunOptionTable.PREFIX_TIMESTAMP;
import static org.troika.launcher.options.RunOptionTable.REMOTE_SHELL;
import static org.troika.launcher.options.RunOptionTable.SSH_IDENTITY_FILE;
import static org.troika.launcher.options.RunOptionTable.SSH_PORT;
import static org.troika.launcher.options.RunOptionTable.TCP;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.troika.common.UsageException;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.Allocation;
import org.troika.launcher.spi.BackendPlan;
import org.troika.launcher.spi.LaunchAgent;
import org.troika.launcher.spi.LaunchContext;
import org.troika.launcher.spi.RankOutput;

class MpirunCommandBuilderTest {
    static final MpiInstall OMPI4 = FlavorDetector.forFlavorName("openmpi");
    static final MpiInstall OMPI5 = FlavorDetector.forFlavorName("openmpi5");
    static final MpiInstall SPECTRUM = FlavorDetector.forFlavorName("spectrum");
    static final MpiInstall MPICH = FlavorDetector.forFlavorName("mpich");
    static final MpiInstall INTEL = FlavorDetector.forFlavorName("intel");
    static final List<HostSlots> TWO_BY_TWO = List.of(new HostSlots("a", 2), new HostSlots("b", 2));
    static final Map<String, String> ENV = Map.of("PATH", "/usr/bin", "HOME", "/root");
    static final MpirunCommandBuilder USER = new MpirunCommandBuilder(false);

    static RunSettings settings() {
        return RunSettings.of(List.of("python", "train.py")).with(HOSTS, new RunSettings.Hosts(null, TWO_BY_TWO, "-H"));
    }

    static RunSettings allOptions() {
        return settings().with(SSH_PORT, 2222).with(SSH_IDENTITY_FILE, Path.of("/k/id"))
                .with(NETWORK_INTERFACES, List.of("eth0", "ib0"))
                .with(TCP, true).with(OUTPUT_FILENAME, Path.of("/out")).with(PREFIX_TIMESTAMP, true)
                        .with(MPI_ARGS, List.of("--report-bindings"));
    }

    static LaunchContext ctx(RunSettings s, MpiInstall mpi, Map<String, String> env) {
        return ctx(s, mpi, env, null, null);
    }

    static LaunchContext ctx(RunSettings s, MpiInstall mpi, Map<String, String> env, Allocation alloc, Path home) {
        List<HostSlots> hosts = s.hosts().list().isEmpty() ? alloc.hosts() : s.hosts().list();
        int np = s.hosts().np() != null ? s.hosts().np() : hosts.stream().mapToInt(HostSlots::slots).sum();
        HostPlan plan = HostPlan.assign("test", hosts, np);
        return new LaunchContext(s, plan, mpi, env, alloc, Path.of("/tmp/scratch"), name -> true, home);
    }

    static List<String> argv(RunSettings s, MpiInstall mpi) {
        return USER.build(ctx(s, mpi, ENV)).launch().argv();
    }

    static void assertContains(List<String> argv, String... words) {
        assertTrue(Collections.indexOfSubList(argv, List.of(words)) >= 0, () -> List.of(words) + " not in " + argv);
    }

    static void assertLacks(List<String> argv, String word) {
        assertFalse(argv.contains(word), () -> word + " unexpectedly in " + argv);
    }

    static List<String> hosts(int n) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            names.add("n" + i);
        }
        return names;
    }

    static RunSettings onHosts(int n) {
        return settings()
                .with(HOSTS, new RunSettings.Hosts(null, hosts(n).stream().map(h -> new HostSlots(h, 1)).toList(),
                "-H"));
    }

    // ---- exact argv per flavour -------------------------------------------------------------------------------

    @Test
    void openMpi4Minimal() {
        BackendPlan plan = USER.build(ctx(settings(), OMPI4, ENV));
        assertEquals(List.of("mpirun", "--tag-output", "-np", "4", "-H", "a:2,b:2", "--bind-to", "none", "--map-by",
                "slot", "-x", "HOME", "-x", "PATH", "-x", "TROIKA_HOSTS", "-x", "TROIKA_HOST_SLOTS", "-x", "TROIKA_SIZE", "python", "train.py"),
                plan.launch().argv());
        assertEquals(Map.of("PATH", "/usr/bin", "HOME", "/root", "TROIKA_HOSTS", "a:2,b:2", "TROIKA_HOST_SLOTS", "2x2",
                "TROIKA_SIZE", "4"),
                plan.launch().env());
        assertEquals(List.of(), plan.warnings());
    }

    @Test
    void openMpi4AllOptions() {
        RunSettings s = allOptions().with(BINDING_ARGS, List.of("--bind-to", "core"));
        assertEquals(List.of("mpirun", "--tag-output", "-np", "4", "-H", "a:2,b:2", "--bind-to", "core",
                "--timestamp-output", "--mca", "plm_rsh_args", "-p 2222 -i /k/id",
                "--mca", "btl_tcp_if_include", "eth0,ib0", "--mca", "oob_tcp_if_include", "eth0,ib0",
                "-x", "NCCL_SOCKET_IFNAME=eth0,ib0",
                "-x", "HOME", "-x", "NCCL_IB_DISABLE", "-x", "PATH", "-x", "TROIKA_HOSTS", "-x", "TROIKA_HOST_SLOTS", "-x", "TROIKA_SIZE",
                "--report-bindings", "python", "train.py"), argv(s, OMPI4));
    }

    @Test
    void openMpi5UsesPrrteNames() {
        assertEquals(List.of("mpirun", "--output", "tag,timestamp", "-np", "4", "-H", "a:2,b:2",
                "--bind-to", "none", "--map-by", "slot", "--prtemca", "plm_ssh_args", "-p 2222 -i /k/id",
                "--mca", "btl_tcp_if_include", "eth0,ib0", "--prtemca", "oob_tcp_if_include", "eth0,ib0",
                "-x", "NCCL_SOCKET_IFNAME=eth0,ib0",
                "-x", "HOME", "-x", "NCCL_IB_DISABLE", "-x", "PATH", "-x", "TROIKA_HOSTS", "-x", "TROIKA_HOST_SLOTS", "-x", "TROIKA_SIZE",
                "--report-bindings", "python", "train.py"), argv(allOptions(), OMPI5));
    }

    @Test
    void openMpi5Minimal() {
        assertEquals(List.of("mpirun", "--output", "tag", "-np", "4", "-H", "a:2,b:2", "--bind-to", "none",
                "--map-by", "slot", "-x", "HOME", "-x", "PATH", "-x", "TROIKA_HOSTS", "-x", "TROIKA_HOST_SLOTS", "-x", "TROIKA_SIZE",
                "python", "train.py"), argv(settings(), OMPI5));
    }

    @Test
    void spectrumBindsToSocketsAndTakesTcp() {
        assertEquals(List.of("mpirun", "--tag-output", "-np", "4", "-H", "a:2,b:2", "--bind-to", "socket",
                "--map-by", "socket", "--rank-by", "core", "-tcp", "-x", "HOME", "-x", "NCCL_IB_DISABLE", "-x", "PATH",
                "-x", "TROIKA_HOSTS", "-x", "TROIKA_HOST_SLOTS", "-x", "TROIKA_SIZE", "python", "train.py"), argv(settings().with(TCP, true), SPECTRUM));
    }

    @Test
    void mpichMinimal() {
        BackendPlan plan = USER.build(ctx(settings().with(NP, 3), MPICH, ENV));
        assertEquals(List.of("mpirun", "-l", "-np", "3", "-ppn", "2", "-hosts", "a,b", "python", "train.py"),
                plan.launch().argv());
        assertEquals(Map.of("PATH", "/usr/bin", "HOME", "/root", "TROIKA_HOSTS", "a:2,b:1", "TROIKA_HOST_SLOTS", "2,1",
                "TROIKA_SIZE", "3"),
                plan.launch().env());
    }

    @Test
    void intelAllOptions() {
        RunSettings s = allOptions().with(NETWORK_INTERFACES, List.of("ib0")).with(PREFIX_TIMESTAMP, false);
        BackendPlan plan = USER.build(ctx(s, INTEL, ENV));
        // --output-filename: Hydra's own per-rank files in the launch's scratch folder instead of -l
        assertEquals(List.of("mpirun", "-outfile-pattern", "/tmp/scratch/rank-output/rank.%r.stdout",
                "-errfile-pattern", "/tmp/scratch/rank-output/rank.%r.stderr", "-np", "4", "-ppn", "2", "-hosts", "a,b",
                "-bootstrap", "ssh", "-bootstrap-exec-args", "-p 2222 -i /k/id", "-iface", "ib0",
                "-genv", "NCCL_SOCKET_IFNAME", "ib0", "--report-bindings", "python", "train.py"),
                plan.launch().argv());
        assertEquals("1", plan.launch().env().get("NCCL_IB_DISABLE"));
        assertEquals(List.of(), plan.warnings());
    }

    // ---- table: flags per flavour ----------------------------------------------------------------------------

    static Stream<Arguments> sshOptions() {
        return Stream.of(
                Arguments.of(settings().with(SSH_PORT, 2222), OMPI4, List.of("--mca", "plm_rsh_args", "-p 2222")),
                Arguments.of(settings()
                        .with(SSH_IDENTITY_FILE, Path.of("/id")), OMPI4, List.of("--mca", "plm_rsh_args", "-i /id")),
                Arguments.of(settings().with(SSH_PORT, 22).with(SSH_IDENTITY_FILE, Path.of("/id")), SPECTRUM,
                        List.of("--mca", "plm_rsh_args", "-p 22 -i /id")),
                Arguments.of(settings().with(SSH_PORT, 2222), OMPI5, List.of("--prtemca", "plm_ssh_args", "-p 2222")),
                Arguments.of(settings().with(SSH_IDENTITY_FILE, Path.of("/id")), INTEL,
                        List.of("-bootstrap", "ssh", "-bootstrap-exec-args", "-i /id")));
    }

    @ParameterizedTest
    @MethodSource("sshOptions")
    void sshOptionsPerFlavor(RunSettings s, MpiInstall mpi, List<String> expected) {
        assertContains(argv(s, mpi), expected.toArray(String[]::new));
    }

    @Test
    void noSshOptionWithoutPortOrIdentity() {
        for (MpiInstall mpi : List.of(OMPI4, OMPI5, SPECTRUM, MPICH, INTEL)) {
            List<String> argv = argv(settings(), mpi);
            assertAll(mpi.toString(), () -> assertLacks(argv, "plm_rsh_args"), () -> assertLacks(argv, "plm_ssh_args"),
                    () -> assertLacks(argv, "-bootstrap-exec-args"));
        }
    }

    @Test
    void mpichCannotTakeSshArguments() {
        UsageException e = assertThrows(UsageException.class, () -> argv(settings().with(SSH_PORT, 2222), MPICH));
        assertTrue(e.getMessage().contains("~/.ssh/config"), e.getMessage());
        FlavorDetectorTest.assertOneLine(e);
    }

    @Test
    void subnetsGoToMpiButNotToNccl() {
        BackendPlan plan = USER.build(ctx(settings().with(NETWORK_INTERFACES, List.of("10.1.0.0/16")), OMPI4, ENV));
        List<String> argv = plan.launch().argv();
        assertContains(argv, "--mca", "btl_tcp_if_include", "10.1.0.0/16", "--mca", "oob_tcp_if_include", "10.1.0.0/16");
        assertTrue(argv.stream().noneMatch(w -> w.startsWith("NCCL_SOCKET_IFNAME")), argv::toString);
        assertEquals(1, plan.warnings().size());
        assertTrue(plan.warnings().get(0).contains("10.1.0.0/16"));
    }

    @Test
    void ncclInterfaceIsNotExportedTwice() {
        Map<String, String> env = Map.of("PATH", "/bin", "NCCL_SOCKET_IFNAME", "eth9");
        List<String> argv = USER.build(ctx(settings().with(NETWORK_INTERFACES, List.of("eth0")), OMPI4, env))
                .launch().argv();
        assertContains(argv, "-x", "NCCL_SOCKET_IFNAME=eth0");
        assertLacks(argv, "NCCL_SOCKET_IFNAME");
    }

    @Test
    void tcpDisablesInfinibandForNcclEverywhere() {
        for (MpiInstall mpi : List.of(OMPI4, OMPI5, SPECTRUM, MPICH, INTEL)) {
            BackendPlan plan = USER.build(ctx(settings().with(TCP, true), mpi, ENV));
            assertEquals("1", plan.launch().env().get("NCCL_IB_DISABLE"), mpi::toString);
            assertEquals(mpi.flavor() == MpiFlavor.SPECTRUM_MPI, plan.launch().argv().contains("-tcp"), mpi::toString);
        }
    }

    @Test
    void userBindingArgsReplaceTheDefault() {
        List<String> argv = argv(settings().with(BINDING_ARGS, List.of("--map-by", "ppr:1:socket")), OMPI4);
        assertContains(argv, "-H", "a:2,b:2", "--map-by", "ppr:1:socket", "-x");
        assertLacks(argv, "--bind-to");
    }

    @Test
    void perRankFilesAreTroikasOwnForEveryFlavourAndFollowTheTagTroikaPlans() {
        RunSettings s = settings().with(OUTPUT_FILENAME, Path.of("logs"));
        Map<MpiInstall, RankOutput.TagFormat> formats = Map.of(OMPI4, RankOutput.TagFormat.ORTE,
                SPECTRUM, RankOutput.TagFormat.ORTE, OMPI5, RankOutput.TagFormat.PRRTE,
                MPICH, RankOutput.TagFormat.HYDRA, INTEL, RankOutput.TagFormat.HYDRA);
        formats.forEach((mpi, format) -> {
            BackendPlan plan = USER.build(ctx(s, mpi, ENV));
            Path own = format == RankOutput.TagFormat.HYDRA ? Path.of("/tmp/scratch/rank-output") : null;
            assertEquals(new RankOutput(Path.of("logs"), 4, format, own), plan.rankOutput(), mpi.toString());
            for (String word : own == null ? List.of("--output-filename", "-outfile-pattern", "-errfile-pattern")
                    : List.of("--output-filename", "-l")) {
                assertLacks(plan.launch().argv(), word);
            }
            assertTrue(plan.launch().argv().stream().noneMatch(w -> w.contains("logs")), plan.launch().render());
            if (own != null) {
                // Hydra writes into the launch's private scratch folder, made (0700) with the plan's files
                assertTrue(plan.files().containsKey(own.resolve(".troika")), plan.files().toString());
                assertEquals(List.of("-outfile-pattern", own + "/rank.%r.stdout", "-errfile-pattern",
                        own + "/rank.%r.stderr"), plan.launch().argv().subList(1, 5));
            }
        });
        // no files, but the tags are still read (hang watchdog, the launcher's own lines for the failure report)
        assertNull(USER.build(ctx(settings(), OMPI5, ENV)).rankOutput().dir());
        assertEquals(RankOutput.TagFormat.PRRTE, USER.build(ctx(settings(), OMPI5, ENV)).rankOutput().format());
    }

    /**
     * Open MPI 5's mpirun is a PRRTE daemon too (it hosts the launch node's ranks): with the guard built in the
     * installation, mpirun's own environment preloads it (before a user's preload), the ranks' exports are unchanged;
     * Open MPI 4, an installation without it and TROIKA_PRTED_GUARD=off get no preload.
     */
    @Test
    void openMpi5sMpirunPreloadsThePrrteGuardOfTheInstallation(@org.junit.jupiter.api.io.TempDir Path home)
            throws Exception {
        Path bare = java.nio.file.Files.createDirectories(home.resolve("bare"));
        Path built = home.resolve("built");
        java.nio.file.Files.createDirectories(built.resolve("lib"));
        java.nio.file.Files.writeString(built.resolve("lib/libtroika-prted-guard.so"), "");
        String lib = built.resolve("lib/libtroika-prted-guard.so").toString();
        RunSettings s = settings();
        BackendPlan guarded = USER.build(ctx(s, OMPI5, ENV, null, built));
        assertEquals(lib, guarded.launch().env().get("LD_PRELOAD"));
        assertFalse(guarded.launch().argv().contains("LD_PRELOAD"), guarded.launch().argv().toString());
        Map<String, String> mine = new java.util.HashMap<>(ENV);
        mine.put("LD_PRELOAD", "/opt/mine.so");
        assertEquals(lib + ":/opt/mine.so", USER.build(ctx(s, OMPI5, mine, null, built)).launch().env()
                .get("LD_PRELOAD"));
        Map<String, String> off = new java.util.HashMap<>(ENV);
        off.put("TROIKA_PRTED_GUARD", "off");
        assertNull(USER.build(ctx(s, OMPI5, off, null, built)).launch().env().get("LD_PRELOAD"));
        assertNull(USER.build(ctx(s, OMPI5, ENV, null, bare)).launch().env().get("LD_PRELOAD"));
        assertNull(USER.build(ctx(s, OMPI4, ENV, null, built)).launch().env().get("LD_PRELOAD"));
        assertNull(USER.build(ctx(s, OMPI5, ENV, null, null)).launch().env().get("LD_PRELOAD"));
    }

    @Test
    void timestampsForOpenMpiFamily() {
        RunSettings s = settings().with(PREFIX_TIMESTAMP, true);
        assertContains(argv(s, OMPI4), "--timestamp-output");
        assertContains(argv(s, SPECTRUM), "--timestamp-output");
        assertContains(argv(s, OMPI5), "--output", "tag,timestamp");
    }

    // ---- large clusters --------------------------------------------------------------------------------------

    @Test
    void largeClusterFlagsFromSixtyFourHosts() {
        assertContains(argv(onHosts(64), OMPI4), "--mca", "plm_rsh_no_tree_spawn", "true",
                "--mca", "plm_rsh_num_concurrent", "64");
        assertContains(argv(onHosts(65), SPECTRUM), "--mca", "plm_rsh_no_tree_spawn", "true",
                "--mca", "plm_rsh_num_concurrent", "65");
        assertContains(argv(onHosts(64), OMPI5), "--prtemca", "plm_ssh_no_tree_spawn", "true",
                "--prtemca", "plm_ssh_num_concurrent", "64");
        List<String> small = argv(onHosts(63), OMPI4);
        assertLacks(small, "plm_rsh_no_tree_spawn");
        assertLacks(small, "plm_rsh_num_concurrent");
    }

    @Test
    void throughTheRelayDaemonsStartInATreeOfRadixSixteenAtEverySizeWithOrteAndPrrteSpellings() {
        for (int n : List.of(17, 64, 10_000)) {
            RunSettings relay = onHosts(n).with(LAUNCH_AGENT, RunSettings.LaunchAgent.RELAY);
            List<String> ompi4 = argv(relay, OMPI4);
            assertContains(ompi4, "--mca", "routed_radix", "16", "--mca", "plm_rsh_num_concurrent", "16");
            assertLacks(ompi4, "plm_rsh_no_tree_spawn"); // the flat launch is ssh's, not the relay's
            List<String> ompi5 = argv(relay, OMPI5);
            // PRRTE ignores --mca routed_radix (OPENMPI5.md): its own option, and plm_ssh_*
            assertContains(ompi5, "--prtemca", "routed_radix", "16", "--prtemca", "plm_ssh_num_concurrent", "16");
            assertLacks(ompi5, "plm_ssh_no_tree_spawn");
            // a remote shell template means the relay too (--launch-agent auto), as does a planned agent
            assertContains(argv(onHosts(n).with(REMOTE_SHELL, "ip netns exec {host}"), OMPI4), "routed_radix", "16");
        }
        // up to 16 hosts Open MPI's default radix (64) already makes mpirun start every daemon itself: nothing added
        List<String> small = argv(onHosts(16).with(LAUNCH_AGENT, RunSettings.LaunchAgent.RELAY), OMPI4);
        assertLacks(small, "routed_radix");
        assertLacks(small, "plm_rsh_num_concurrent");
        // the user's own shape wins, in either spelling
        RunSettings own = onHosts(64).with(LAUNCH_AGENT, RunSettings.LaunchAgent.RELAY)
                .with(MPI_ARGS, List.of("--prtemca", "plm_ssh_no_tree_spawn", "true"));
        assertLacks(argv(own, OMPI5), "routed_radix");
        assertEquals(List.of(), MpirunCommandBuilder.launchShape(false, true, 64, List.of(),
                Map.of("OMPI_MCA_routed_radix", "4")));
        // --launch-agent ssh keeps Horovod's flat launch
        assertContains(argv(onHosts(64).with(LAUNCH_AGENT, RunSettings.LaunchAgent.SSH)
                .with(REMOTE_SHELL, "ip netns exec {host}"), OMPI4), "plm_rsh_no_tree_spawn", "true");
    }

    /**
     * The rule behind Open MPI 5.0.7's recorded hang (docs/launch-agent.md, "Large clusters"): a launcher (mpirun or a
     * tree-spawning daemon) keeps at most num_concurrent agents in flight and starts the next only when one exits, so
     * with agents that live as long as their daemons it deadlocks when it has more daemons to start than that. troika's
     * plans never ask for fewer launches in flight than a launcher has daemons to start: without tree spawn all hosts,
     * in a tree the radix (Open MPI's defaults: radix 64, 128 in flight).
     */
    @Test
    void noPlanLetsALauncherHaveMoreDaemonsToStartThanLaunchesInFlight() {
        for (MpiInstall mpi : List.of(OMPI4, OMPI5)) {
            String flag = mpi == OMPI5 ? "plm_ssh_" : "plm_rsh_";
            for (RunSettings.LaunchAgent mode : RunSettings.LaunchAgent.values()) {
                for (int n : List.of(1, 2, 15, 16, 17, 63, 64, 65, 200, 4096)) {
                    RunSettings s = onHosts(n).with(LAUNCH_AGENT, mode).with(REMOTE_SHELL, "ip netns exec {host}");
                    List<String> argv = argv(s, mpi);
                    boolean flat = argv.contains(flag + "no_tree_spawn");
                    int inFlight = argv.contains(flag + "num_concurrent")
                            ? Integer.parseInt(argv.get(argv.indexOf(flag + "num_concurrent") + 1)) : 128;
                    int radix = argv.contains("routed_radix")
                            ? Integer.parseInt(argv.get(argv.indexOf("routed_radix") + 1)) : 64;
                    int mostChildren = flat ? n : Math.min(n, radix);
                    assertTrue(inFlight >= mostChildren, mpi + " " + mode + " " + n + " hosts: " + argv);
                }
            }
        }
    }

    @Test
    void largeClusterFlagsComeAfterBindingAndBeforeTimestamp() {
        List<String> argv = argv(settings()
                .with(HOSTS, new RunSettings.Hosts(null, hosts(64).stream().map(h -> new HostSlots(h, 1)).toList(),
                "-H"))
                .with(PREFIX_TIMESTAMP, true), OMPI4);
        int binding = argv.indexOf("--map-by");
        int large = argv.indexOf("plm_rsh_no_tree_spawn");
        int stamp = argv.indexOf("--timestamp-output");
        assertTrue(binding < large && large < stamp, argv::toString);
    }

    // ---- very long host lists ------------------------------------------------------------------------------

    static RunSettings onLongNamedHosts(int n, int nameLength) {
        List<HostSlots> hosts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String num = Integer.toString(i);
            hosts.add(new HostSlots("h".repeat(nameLength - num.length()) + num, 2));
        }
        return settings().with(HOSTS, new RunSettings.Hosts(null, hosts, "hostfile"));
    }

    @Test
    void longHostListsGoToAHostfile() {
        RunSettings s = onLongNamedHosts(2000, 20); // 2000 x "name:2," = 46 000 characters
        BackendPlan ompi = USER.build(ctx(s, OMPI4, ENV));
        Path hostfile = Path.of("/tmp/scratch/hostfile");
        assertContains(ompi.launch().argv(), "-np", "4000", "--hostfile", hostfile.toString(), "--bind-to");
        assertLacks(ompi.launch().argv(), "-H");
        String text = ompi.files().get(hostfile);
        assertEquals(2000, text.lines().count());
        assertTrue(text.startsWith("hhhhhhhhhhhhhhhhhhh0 slots=2\n"), text.substring(0, 40));
        assertTrue(ompi.launch().argv().stream().allMatch(w -> w.length() < MpirunCommandBuilder.HOST_ARG_LIMIT));

        BackendPlan mpich = USER.build(ctx(onLongNamedHosts(2000, 20), MPICH, ENV));
        Path machinefile = Path.of("/tmp/scratch/machinefile");
        assertContains(mpich.launch().argv(), "-ppn", "2", "-f", machinefile.toString(), "python");
        assertTrue(mpich.files().get(machinefile).startsWith("hhhhhhhhhhhhhhhhhhh0\nhhhhhhhhhhhhhhhhhhh1\n"));
        assertEquals(List.of(), ompi.warnings());
    }

    @Test
    void spareHostsFollowTheRankedOnesWithoutSlotsOnTheCommandLineAndInAHostfile() {
        LaunchContext c = ctx(onHosts(2), OMPI5, ENV);
        LaunchContext spared = new LaunchContext(c.settings(), c.hostPlan().withSpares(List.of("s1", "s2")), c.mpi(),
                c.env(), c.allocation(), c.scratchDir(), name -> true, null);
        BackendPlan plan = USER.build(spared);
        assertContains(plan.launch().argv(), "-np", Integer.toString(c.hostPlan().size()), "-H",
                c.hostPlan().hostList() + ",s1:0,s2:0");
        assertEquals(c.hostPlan().layout(), plan.launch().env().get("TROIKA_HOST_SLOTS"),
                "the spares hold no rank: the ranks' layout is the plan's");
        assertFalse(plan.launch().env().getOrDefault("TROIKA_HOSTS", "").contains("s1"));

        LaunchContext big = ctx(onLongNamedHosts(2000, 20), OMPI5, ENV);
        BackendPlan file = USER.build(new LaunchContext(big.settings(), big.hostPlan().withSpares(List.of("spare")),
                big.mpi(), big.env(), big.allocation(), big.scratchDir(), name -> true, null));
        String text = file.files().get(Path.of("/tmp/scratch/hostfile"));
        assertEquals(2001, text.lines().count());
        assertTrue(text.endsWith("hhhhhhhhhhhhhhh1999 slots=2\nspare slots=0\n"), text.substring(text.length() - 60));
    }

    @Test
    void standbyRanksGetOneSlotAfterTheRankedHostsAndTheOtherSparesStayWithout() {
        LaunchContext c = ctx(onHosts(2), OMPI5, ENV);
        int n = c.hostPlan().size();
        LaunchContext standby = new LaunchContext(c.settings(), c.hostPlan().withSpares(List.of("s1", "s2", "u"))
                .withStandbyRanks(List.of("s1", "s2"), 1), c.mpi(), c.env(), c.allocation(), c.scratchDir(),
                name -> true, null);
        BackendPlan plan = USER.build(standby);
        assertContains(plan.launch().argv(), "-np", Integer.toString(n + 2), "-H",
                c.hostPlan().hostList() + ",s1:1,s2:1,u:0");
        assertEquals("1x2", c.hostPlan().layout());
        assertEquals("1x4", plan.launch().env().get("TROIKA_HOST_SLOTS"),
                "the standby ranks are ranks of the launch: the last two");
        BackendPlan two = USER.build(new LaunchContext(c.settings(), c.hostPlan().withStandbyRanks(List.of("s1"), 2),
                c.mpi(), c.env(), c.allocation(), c.scratchDir(), name -> true, null));
        assertContains(two.launch().argv(), "-np", Integer.toString(n + 2), "-H", c.hostPlan().hostList() + ",s1:2");
    }

    @Test
    void shortHostListsStayOnTheCommandLine() {
        BackendPlan plan = USER.build(ctx(onHosts(64), OMPI4, ENV));
        assertEquals(Map.of(), plan.files());
        assertContains(plan.launch().argv(), "-H");
    }

    @Test
    void hugeHostListIsNotExportedAsOneVariableButRanksKeepTheirPlace() {
        BackendPlan plan = USER.build(ctx(onLongNamedHosts(4000, 30), OMPI4, ENV)); // 136 000 characters
        assertFalse(plan.launch().env().containsKey("TROIKA_HOSTS"));
        assertLacks(plan.launch().argv(), "TROIKA_HOSTS");
        assertEquals("2x4000", plan.launch().env().get("TROIKA_HOST_SLOTS"), "what places each rank, at any size");
        assertTrue(exported(plan.launch().argv()).contains("TROIKA_HOST_SLOTS"));
        assertEquals(List.of(), plan.warnings());
        assertTrue(plan.launch().env().values().stream().allMatch(v -> v.length() < 128 * 1024));
    }

    @Test
    void slotCountsChangingTooOftenToExportAreAnErrorBeforeAnythingStarts() {
        List<HostSlots> hosts = new ArrayList<>();
        for (int i = 0; i < 60_000; i++) {
            hosts.add(new HostSlots("n" + i, 1 + i % 2)); // 1,2,1,2,...: 60,000 runs, 240 KB as slot counts
        }
        UsageException e = assertThrows(UsageException.class,
                () -> USER.build(ctx(settings().with(HOSTS, new RunSettings.Hosts(null, hosts, "hostfile")), OMPI4, ENV)));
        assertTrue(e.getMessage().contains("change their slot count 59999 times"), e.getMessage());
        assertTrue(e.getMessage().contains("list hosts with the same slots next to each other"), e.getMessage());
    }

    // ---- Hydra rules -----------------------------------------------------------------------------------------

    @Test
    void hydraAllowsAShorterLastHost() {
        RunSettings s = settings()
                .with(HOSTS, new RunSettings.Hosts(null, List.of(new HostSlots("a", 2), new HostSlots("b", 2),
                new HostSlots("c", 2)), "-H")).with(NP, 5);
        assertContains(argv(s, MPICH), "-np", "5", "-ppn", "2", "-hosts", "a,b,c");
    }

    @Test
    void hydraRejectsUnequalSlots() {
        RunSettings s = settings()
                .with(HOSTS, new RunSettings.Hosts(null, List.of(new HostSlots("a", 1), new HostSlots("b", 2)), "-H"));
        for (MpiInstall mpi : List.of(MPICH, INTEL)) {
            UsageException e = assertThrows(UsageException.class, () -> argv(s, mpi));
            assertTrue(e.getMessage().contains("a:1,b:2"), e.getMessage());
            assertTrue(e.getMessage().contains("-f FILE"), e.getMessage());
            FlavorDetectorTest.assertOneLine(e);
        }
    }

    @Test
    void hydraRejectsSeveralNicsOrSubnets() {
        for (List<String> nics : List.of(List.of("eth0", "ib0"), List.of("10.0.0.0/8"))) {
            UsageException e = assertThrows(UsageException.class,
                    () -> argv(settings().with(NETWORK_INTERFACES, nics), MPICH));
            assertTrue(e.getMessage().contains("-iface"), e.getMessage());
            FlavorDetectorTest.assertOneLine(e);
        }
    }

    @Test
    void hydraWarnsAboutWhatItCannotHonour() {
        RunSettings s = settings()
                .with(HOSTS, new RunSettings.Hosts(null, hosts(64).stream().map(h -> new HostSlots(h, 1)).toList(),
                "-H"))
                .with(BINDING_ARGS, List.of("--bind-to", "core")).with(PREFIX_TIMESTAMP, true);
        BackendPlan plan = USER.build(ctx(s, MPICH, ENV));
        assertEquals(3, plan.warnings().size(), plan.warnings()::toString);
        assertTrue(plan.warnings().stream().anyMatch(w -> w.contains("--binding-args")));
        assertTrue(plan.warnings().stream().anyMatch(w -> w.contains("large-cluster")));
        assertTrue(plan.warnings().stream().anyMatch(w -> w.contains("timestamp")));
        assertLacks(plan.launch().argv(), "--bind-to");
        assertLacks(plan.launch().argv(), "core");
        assertLacks(plan.launch().argv(), "--timestamp-output");
    }

    // ---- hosts from an allocation ----------------------------------------------------------------------------

    @Test
    void openMpiInsideSlurmReadsTheAllocationItself() {
        Allocation slurm = new Allocation("slurm", "slurm job 42", TWO_BY_TWO, 0, "srun", true);
        RunSettings s = settings().with(HOSTS, new RunSettings.Hosts(null, List.of(), null));
        List<String> argv = USER.build(ctx(s, OMPI4, ENV, slurm, null)).launch().argv();
        assertContains(argv, "--tag-output", "-np", "4", "--bind-to", "none");
        assertLacks(argv, "-H");
    }

    @Test
    void explicitHostsInsideSlurmAreStillPassed() {
        Allocation slurm = new Allocation("slurm", "slurm job 42", TWO_BY_TWO, 0, "srun", true);
        List<String> argv = USER.build(ctx(settings(), OMPI4, ENV, slurm, null)).launch().argv();
        assertContains(argv, "-H", "a:2,b:2");
    }

    @Test
    void allocationThatMpiDoesNotReadGetsHostArgument() {
        Allocation lsf = new Allocation("lsf", "lsf job 7", TWO_BY_TWO, 0, "blaunch", false);
        RunSettings s = settings().with(HOSTS, new RunSettings.Hosts(null, List.of(), null));
        assertContains(USER.build(ctx(s, OMPI4, ENV, lsf, null)).launch().argv(), "-H", "a:2,b:2");
    }

    // ---- environment -----------------------------------------------------------------------------------------

    @Test
    void rootUsesEnvironmentNotAFlag() {
        for (MpiInstall mpi : List.of(OMPI4, OMPI5, SPECTRUM)) {
            BackendPlan plan = new MpirunCommandBuilder(true).build(ctx(settings(), mpi, ENV));
            assertEquals("1", plan.launch().env().get("OMPI_ALLOW_RUN_AS_ROOT"));
            assertEquals("1", plan.launch().env().get("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"));
            assertLacks(plan.launch().argv(), "--allow-run-as-root");
            assertLacks(plan.launch().argv(), "OMPI_ALLOW_RUN_AS_ROOT");
        }
        for (MpiInstall mpi : List.of(MPICH, INTEL)) {
            BackendPlan plan = new MpirunCommandBuilder(true).build(ctx(settings(), mpi, ENV));
            assertFalse(plan.launch().env().containsKey("OMPI_ALLOW_RUN_AS_ROOT"));
        }
        assertFalse(USER.build(ctx(settings(), OMPI4, ENV)).launch().env().containsKey("OMPI_ALLOW_RUN_AS_ROOT"));
    }

    @Test
    void exclusionsNeverReachRanks() {
        Map<String, String> env = new TreeMap<>(ENV);
        env.put("TROIKA_SECRET_KEY", "c2VjcmV0");
        env.put("BASH_FUNC_module%%", "() { eval x; }");
        env.put("OLDPWD", "/prev");
        env.put("CUDA_VISIBLE_DEVICES", "0,1");
        env.put("ROCR_VISIBLE_DEVICES", "0");
        env.put("OMPI_MCA_pml", "ob1");
        env.put("MY_VAR", "x");
        BackendPlan ompi = USER.build(ctx(settings(), OMPI4, env));
        assertEquals(List.of("HOME", "MY_VAR", "PATH", "TROIKA_HOSTS", "TROIKA_HOST_SLOTS", "TROIKA_SIZE"), exported(ompi.launch().argv()));
        assertTrue(ompi.launch().argv().stream().noneMatch(w -> w.contains("c2VjcmV0")));
        // ranks on mpirun's host inherit mpirun's environment, so the secret leaves it too
        assertFalse(ompi.launch().env().containsKey("TROIKA_SECRET_KEY"));
        assertEquals("0,1", ompi.launch().env().get("CUDA_VISIBLE_DEVICES"), "local ranks keep the local GPU choice");

        BackendPlan mpich = USER.build(ctx(settings(), MPICH, env));
        Map<String, String> childEnv = mpich.launch().env();
        assertAll(() -> assertFalse(childEnv.containsKey("TROIKA_SECRET_KEY")),
                () -> assertFalse(childEnv.containsKey("BASH_FUNC_module%%")),
                () -> assertFalse(childEnv.containsKey("OLDPWD")),
                () -> assertFalse(childEnv.containsKey("CUDA_VISIBLE_DEVICES")),
                () -> assertEquals("x", childEnv.get("MY_VAR")),
                () -> assertEquals("ob1", childEnv.get("OMPI_MCA_pml")));
    }

    @Test
    void largeEnvironmentStaysWithinTheExportBudget() {
        Map<String, String> env = new TreeMap<>(ENV);
        for (int i = 0; i < 5000; i++) {
            env.put(String.format("BIG_VARIABLE_%05d", i), "v".repeat(1000));
        }
        BackendPlan plan = USER.build(ctx(settings(), OMPI4, env));
        List<String> argv = plan.launch().argv();
        int chars = argv.stream().mapToInt(w -> w.length() + 1).sum();
        assertTrue(chars < EnvExport.DEFAULT_BUDGET + 1024, "argv is " + chars + " characters");
        assertTrue(exported(argv).containsAll(List.of("PATH", "TROIKA_HOSTS", "TROIKA_SIZE")), argv::toString);
        assertTrue(exported(argv).contains("BIG_VARIABLE_00000"));
        assertFalse(exported(argv).contains("BIG_VARIABLE_04999"));
        assertEquals(1, plan.warnings().size());
        assertTrue(plan.warnings().get(0).contains("BIG_VARIABLE_04999") || plan.warnings().get(0).contains("..."));
        assertEquals("v".repeat(1000), plan.launch().env().get("BIG_VARIABLE_04999"), "values stay in the env");
    }

    @Test
    void callerEnvironmentIsNotModified() {
        Map<String, String> env = new TreeMap<>(ENV);
        LaunchContext c = ctx(settings().with(TCP, true), OMPI4, env);
        new MpirunCommandBuilder(true).build(c);
        assertEquals(ENV, c.env());
    }

    // ---- command, launcher binary, bad input ----------------------------------------------------------------

    @Test
    void installedTroikaWrapsTheCommandWithRankenv() {
        List<String> argv = USER.build(ctx(settings(), OMPI4, ENV, null, Path.of("/opt/troika")))
                .launch().argv();
        assertEquals(List.of("/opt/troika/bin/troika-rankenv", "python", "train.py"), argv.subList(argv.size() - 3, argv.size()));
        List<String> hydra = USER.build(ctx(settings(), MPICH, ENV, null, Path.of("/opt/troika"))).launch().argv();
        assertContains(hydra, "-hosts", "a,b", "/opt/troika/bin/troika-rankenv", "python", "train.py");
    }

    @Test
    void troikaMpirunNamesTheLauncher() {
        Map<String, String> env = Map.of("TROIKA_MPIRUN", "/usr/bin/mpirun.mpich");
        assertEquals("/usr/bin/mpirun.mpich", USER.build(ctx(settings(), MPICH, env)).launch().argv().get(0));
    }

    @Test
    void neverEmitsCostlyOrSiteOverridingDefaults() {
        for (MpiInstall mpi : List.of(OMPI4, OMPI5, SPECTRUM)) {
            List<String> argv = argv(allOptions(), mpi);
            assertAll(mpi.toString(), () -> assertLacks(argv, "btl"), () -> assertLacks(argv, "^openib"),
                    () -> assertLacks(argv, "pml"), () -> assertLacks(argv, "--allow-run-as-root"));
        }
    }

    @Test
    void badInputIsAOneLineUsageError() {
        List<Runnable> cases = List.of(
                () -> argv(settings().withCommand(List.of()), OMPI4),
                () -> argv(settings().with(NETWORK_INTERFACES, List.of("eth 0")), OMPI4),
                () -> argv(settings().with(SSH_IDENTITY_FILE, Path.of("/my keys/id")), OMPI4),
                () -> argv(settings(), new MpiInstall(MpiFlavor.OPEN_MPI, 3, "mpirun (Open MPI) 3.1.6")));
        for (Runnable r : cases) {
            UsageException e = assertThrows(UsageException.class, r::run);
            FlavorDetectorTest.assertOneLine(e);
        }
    }

    /**
     * {@code --fault-tolerance} as planned: MODE | MPI | elastic generation or static | what the plan holds
     * ({@code ft} = {@code --with-ft ulfm} and TROIKA_FAULT_TOLERANCE=shrink for the ranks, {@code -} = neither,
     * {@code error} = a one-line usage error).
     */
    @ParameterizedTest(name = "{0} on {1} ({2}) -> {3}")
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
        "auto     | openmpi5 | elastic | ft",
        "auto     | openmpi5 | static  | -",
        "auto     | openmpi  | elastic | -",
        "auto     | spectrum | elastic | -",
        "auto     | mpich    | elastic | -",
        "auto     | intel    | elastic | -",
        "relaunch | openmpi5 | elastic | -",
        "shrink   | openmpi5 | elastic | ft",
        "shrink   | openmpi5 | static  | ft",
        "shrink   | openmpi  | elastic | error",
        "shrink   | mpich    | elastic | error",
        "shrink   | intel    | static  | error"})
    void faultTolerance(String mode, String flavor, String kind, String expected) {
        Map<String, String> env = new TreeMap<>(ENV);
        env.put(org.troika.common.TroikaEnv.FAULT_TOLERANCE, "shrink"); // a stale value from the caller never leaks
        if (kind.equals("elastic")) {
            env.put(org.troika.common.TroikaEnv.ELASTIC, "1");
        }
        RunSettings s = settings()
                .with(RunOptionTable.FAULT_TOLERANCE, org.troika.launcher.spi.FaultTolerance.parse(mode));
        MpiInstall mpi = FlavorDetector.forFlavorName(flavor);
        if (expected.equals("error")) {
            UsageException e = assertThrows(UsageException.class, () -> USER.build(ctx(s, mpi, env)));
            FlavorDetectorTest.assertOneLine(e);
            assertTrue(e.getMessage().contains("--fault-tolerance shrink needs"), e.getMessage());
            return;
        }
        BackendPlan plan = USER.build(ctx(s, mpi, env));
        List<String> argv = plan.launch().argv();
        boolean ft = expected.equals("ft");
        assertEquals(ft, Collections.indexOfSubList(argv, List.of("--with-ft", "ulfm")) >= 0, argv::toString);
        assertEquals(ft ? "shrink" : null, plan.launch().env().get(org.troika.common.TroikaEnv.FAULT_TOLERANCE));
        if (ft) {
            assertTrue(exported(argv).contains(org.troika.common.TroikaEnv.FAULT_TOLERANCE), argv::toString);
        }
        List<String> detector = List.of("--mca", "mpi_ft_detector", "true", "--mca", "mpi_ft_detector_period", "3600",
                "--mca", "mpi_ft_detector_timeout", "86400");
        assertEquals(ft, Collections.indexOfSubList(argv, detector) >= 0, argv::toString);
    }

    /**
     * A spawned rank (a growth in place) gets the rank wrapper's switches in its command, not in the 255-byte info
     * value its parent's environment travels in, where class-data sharing's did not fit: measured, spawned ranks ran
     * without it. No switch, no {@code env} in front; without the wrapper (no installation) no CDS switch.
     */
    @Test
    void theSpawnCommandCarriesTheRankWrappersSwitches() {
        Map<String, String> env = new TreeMap<>(ENV);
        env.put(org.troika.common.TroikaEnv.ELASTIC, "1");
        env.put(org.troika.common.TroikaEnv.JAVA_CDS, "1");
        MpiInstall mpi = FlavorDetector.forFlavorName("openmpi5");
        RunSettings s = settings().with(FAULT_TOLERANCE, org.troika.launcher.spi.FaultTolerance.SHRINK);
        java.util.function.BiFunction<Map<String, String>, Path, List<String>> spawn = (e, home) ->
                org.troika.common.SpawnCommand.decode(USER.build(ctx(s, mpi, e, null, home)).launch().env()
                        .get(org.troika.common.TroikaEnv.ELASTIC_SPAWN_COMMAND)).stream()
                        .map(b -> new String(b, java.nio.charset.StandardCharsets.UTF_8)).toList();
        List<String> cmd = spawn.apply(env, Path.of("/opt/troika"));
        assertEquals(List.of("/usr/bin/env", "TROIKA_JAVA_CDS=1", "/opt/troika/bin/troika-rankenv"), cmd.subList(0, 3),
                cmd::toString);
        assertEquals(s.command(), cmd.subList(3, cmd.size()));
        Map<String, String> off = new TreeMap<>(env);
        off.remove(org.troika.common.TroikaEnv.JAVA_CDS);
        assertEquals("/opt/troika/bin/troika-rankenv", spawn.apply(off, Path.of("/opt/troika")).get(0));
        assertEquals(s.command(), spawn.apply(env, null), "no wrapper, no switch for it");
        RunSettings tcp = s.with(RunOptionTable.TCP, true);
        List<String> withTcp = org.troika.common.SpawnCommand.decode(USER.build(ctx(tcp, mpi, env, null,
                Path.of("/opt/troika"))).launch().env().get(org.troika.common.TroikaEnv.ELASTIC_SPAWN_COMMAND)).stream()
                .map(b -> new String(b, java.nio.charset.StandardCharsets.UTF_8)).toList();
        assertEquals(List.of("/usr/bin/env", "TROIKA_JAVA_CDS=1", "NCCL_IB_DISABLE=1"), withTcp.subList(0, 3));
    }

    /**
     * What a host's service hands ranks spawned into the world (TROIKA_SPAWN_ENV_FILE): mpirun's exports with the
     * launch's values, one NAME=value line each, without troika's own variables (a spawn brings its own) but the hang
     * watchdog's and the generation's shared ones (the spawn has no room for them all: a spawn onto two hosts lost the
     * driver's address) and without values a line cannot hold; nothing for a launch that cannot spawn.
     */
    @Test
    void theSpawnEnvironmentFileHoldsMpirunsExportsButTroikas() {
        Map<String, String> env = new TreeMap<>(ENV);
        env.put(org.troika.common.TroikaEnv.ELASTIC, "1");
        env.put(org.troika.common.TroikaEnv.PROGRESS_ADDR, "10.0.0.1:4000");
        env.put(org.troika.common.TroikaEnv.PROGRESS_KEY, "a2V5");
        env.put(org.troika.common.TroikaEnv.PROGRESS_INTERVAL_MS, "2000");
        env.put(org.troika.common.TroikaEnv.WORKER_ADDR, "10.0.0.1:4100");
        env.put(org.troika.common.TroikaEnv.JOB_ID, "e1-ab");
        env.put(org.troika.common.TroikaEnv.ELASTIC_GENERATION, "3");
        env.put("APP_SETTING", "x".repeat(300));
        env.put("APP_TWO_LINES", "a\nb");
        MpiInstall mpi = FlavorDetector.forFlavorName("openmpi5");
        RunSettings s = settings().with(FAULT_TOLERANCE, org.troika.launcher.spi.FaultTolerance.SHRINK);
        BackendPlan plan = USER.build(ctx(s, mpi, env, null, Path.of("/opt/troika")));
        Map<String, String> launchEnv = plan.launch().env();
        List<String> exports = exported(plan.launch().argv());
        String file = new String(RankLaunch.spawnEnvironmentFile(launchEnv), java.nio.charset.StandardCharsets.UTF_8);
        List<String> lines = List.of(file.split("\n"));
        assertTrue(lines.contains("APP_SETTING=" + "x".repeat(300)), file);
        assertTrue(lines.containsAll(List.of("TROIKA_PROGRESS_ADDR=10.0.0.1:4000", "TROIKA_PROGRESS_KEY=a2V5",
                "TROIKA_PROGRESS_INTERVAL_MS=2000", "TROIKA_WORKER_ADDR=10.0.0.1:4100", "TROIKA_JOB_ID=e1-ab",
                "TROIKA_ELASTIC_GENERATION=3", "TROIKA_ELASTIC=1", "TROIKA_FAULT_TOLERANCE=shrink")), file);
        assertTrue(lines.stream().noneMatch(l -> l.startsWith("TROIKA_")
                && !RankLaunch.SPAWN_FILE_OWN.contains(l.substring(0, l.indexOf('=')))), file);
        assertFalse(file.contains(org.troika.common.TroikaEnv.ELASTIC_SPAWN_COMMAND + "="), file);
        assertTrue(lines.stream().noneMatch(l -> l.startsWith("APP_TWO_LINES")), file);
        assertTrue(file.endsWith("\n"), file);
        for (String l : lines) {
            String name = l.substring(0, l.indexOf('='));
            assertTrue(exports.contains(name), name + " is not one of mpirun's exports");
        }
        // bounded under one relay frame: a variable that would pass the bound is left out, later ones still come
        // and the watchdog's variables come first, so a full file still carries them
        Map<String, String> big = Map.of(org.troika.common.TroikaEnv.ELASTIC_SPAWN_COMMAND, "x",
                org.troika.common.TroikaEnv.ELASTIC_SPAWN_ENV, "BIG1,BIG2,SMALL,TROIKA_PROGRESS_KEY,TROIKA_JOB_ID",
                "BIG1", "a".repeat(400_000), "BIG2", "b".repeat(400_000), "SMALL", "s", "TROIKA_PROGRESS_KEY", "k",
                "TROIKA_JOB_ID", "j");
        String bounded = new String(RankLaunch.spawnEnvironmentFile(big), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals("TROIKA_JOB_ID=j\nTROIKA_PROGRESS_KEY=k\nBIG1=" + "a".repeat(400_000) + "\nSMALL=s\n", bounded);
        RunSettings relaunch = settings().with(FAULT_TOLERANCE, org.troika.launcher.spi.FaultTolerance.RELAUNCH);
        assertEquals(null, RankLaunch.spawnEnvironmentFile(USER.build(ctx(relaunch, mpi, env, null,
                Path.of("/opt/troika"))).launch().env()), "a launch that cannot spawn needs none");
    }

    /**
     * ULFM's own failure detector is on wherever ULFM is (Open MPI 5.0.7 missed SIGKILLed ranks without it), with
     * heartbeats too rare to declare a busy rank dead, unless the user set any of its parameters, in {@code --mpi-args}
     * or the environment.
     */
    @Test
    void aFaultTolerantLaunchTurnsUlfmsDetectorOnUnlessTheUserSetIt() {
        Map<String, String> env = new TreeMap<>(ENV);
        env.put(org.troika.common.TroikaEnv.ELASTIC, "1");
        MpiInstall mpi = FlavorDetector.forFlavorName("openmpi5");
        RunSettings s = settings().with(FAULT_TOLERANCE, org.troika.launcher.spi.FaultTolerance.SHRINK);
        List<String> on = List.of("--mca", "mpi_ft_detector", "true", "--mca", "mpi_ft_detector_period", "3600",
                "--mca", "mpi_ft_detector_timeout", "86400");
        assertTrue(Collections.indexOfSubList(USER.build(ctx(s, mpi, env)).launch().argv(), on) >= 0);
        Map<String, String> off = new TreeMap<>(env);
        off.put("OMPI_MCA_mpi_ft_detector_timeout", "30");
        assertFalse(USER.build(ctx(s, mpi, off)).launch().argv().contains("mpi_ft_detector"));
        RunSettings given = s.with(MPI_ARGS, List.of("--mca", "mpi_ft_detector", "false"));
        List<String> argv = USER.build(ctx(given, mpi, env)).launch().argv();
        assertEquals(1, Collections.frequency(argv, "mpi_ft_detector"), argv::toString);
        assertFalse(argv.contains("mpi_ft_detector_period"), argv::toString);
    }

    /**
     * Issue 21's missed failure: before Open MPI 5.0.10 a revoke does not reach coll/han's sub-communicators, so a
     * fault-tolerant generation leaves HAN out, unless the user chose the collectives themselves. An elastic generation,
     * which ranks may be spawned into, leaves it out on every version (stop 53: HAN's wrong allreduce after a spawn).
     */
    @Test
    void aFaultTolerantGenerationLeavesHanOutWhereARevokeCannotReachItsSubcommunicators() {
        Map<String, String> env = new TreeMap<>(ENV);
        env.put(org.troika.common.TroikaEnv.ELASTIC, "1");
        RunSettings s = settings().with(FAULT_TOLERANCE, org.troika.launcher.spi.FaultTolerance.SHRINK);
        List<String> noHan = List.of("--mca", "coll", "^han");
        for (String version : List.of("", "mpirun (Open MPI) 5.0.7", "mpirun (Open MPI) 5.0.9")) {
            List<String> argv = USER.build(ctx(s, new MpiInstall(MpiFlavor.OPEN_MPI, 5, version), env)).launch().argv();
            assertTrue(Collections.indexOfSubList(argv, noHan) > argv.indexOf("ulfm"), version + ": " + argv);
        }
        Map<String, String> fixed = new TreeMap<>(ENV); // a static job: nothing is spawned into its world
        for (String version : List.of("mpirun (Open MPI) 5.0.10", "mpirun (Open MPI) 5.1.0", "mpirun (Open MPI) 6.0.0")) {
            MpiInstall later = new MpiInstall(MpiFlavor.OPEN_MPI, 6, version);
            List<String> argv = USER.build(ctx(s, later, fixed)).launch().argv();
            assertEquals(-1, Collections.indexOfSubList(argv, noHan), version + ": " + argv);
            assertTrue(argv.contains("ulfm"), argv::toString);
            List<String> elastic = USER.build(ctx(s, later, env)).launch().argv();
            assertTrue(Collections.indexOfSubList(elastic, noHan) > elastic.indexOf("ulfm"), version + ": " + elastic);
        }
        MpiInstall old = new MpiInstall(MpiFlavor.OPEN_MPI, 5, "mpirun (Open MPI) 5.0.7");
        Map<String, String> chosen = new TreeMap<>(env);
        chosen.put("OMPI_MCA_coll", "^tuned");
        assertEquals(-1, Collections.indexOfSubList(USER.build(ctx(s, old, chosen)).launch().argv(), noHan));
        RunSettings given = settings().with(FAULT_TOLERANCE, org.troika.launcher.spi.FaultTolerance.SHRINK)
                .with(MPI_ARGS, List.of("--mca", "coll", "basic,libnbc,self"));
        List<String> argv = USER.build(ctx(given, old, env)).launch().argv();
        assertEquals(-1, Collections.indexOfSubList(argv, noHan), argv::toString);
        assertTrue(Collections.indexOfSubList(argv, List.of("--mca", "coll", "basic,libnbc,self")) > 0);
        // without fault tolerance the collectives are the MPI's choice
        RunSettings relaunch = settings().with(FAULT_TOLERANCE, org.troika.launcher.spi.FaultTolerance.RELAUNCH);
        assertEquals(-1, Collections.indexOfSubList(USER.build(ctx(relaunch, old, env)).launch().argv(), noHan));
    }

    /**
     * Issue 21: MPICH over UCX failed in MPI_Init ("init_worker No such device") when a network device it had just
     * listed went away (other jobs' veths). Ranks all on this machine get loopback only, unless the user chose.
     */
    @Test
    void mpichRanksOnThisMachineAloneUseNoNetworkDeviceButLoopback() {
        List<HostSlots> local = List.of(new HostSlots("localhost", 2));
        Map<String, String> env = USER.build(ctx(settings().with(HOSTS, new RunSettings.Hosts(null, local, "-H")), MPICH, ENV)).launch().env();
        assertEquals("lo", env.get("UCX_NET_DEVICES"));
        Map<String, String> chosen = new TreeMap<>(ENV);
        chosen.put("UCX_NET_DEVICES", "mlx5_0:1");
        assertEquals("mlx5_0:1", USER.build(ctx(settings().with(HOSTS, new RunSettings.Hosts(null, local, "-H")), MPICH, chosen)).launch().env()
                .get("UCX_NET_DEVICES"));
        // hosts elsewhere, or an interface the user named: the network is theirs
        assertNull(USER.build(ctx(settings(), MPICH, ENV)).launch().env().get("UCX_NET_DEVICES"));
        assertNull(USER.build(ctx(settings().with(HOSTS, new RunSettings.Hosts(null, local, "-H")).with(NETWORK_INTERFACES, List.of("eth0")), MPICH, ENV))
                .launch().env().get("UCX_NET_DEVICES"));
        assertNull(USER.build(ctx(settings().with(HOSTS, new RunSettings.Hosts(null, local, "-H")), OMPI4, ENV)).launch().env()
                .get("UCX_NET_DEVICES"), "Open MPI's ranks use ob1 here; its pml ucx is for other fabrics");
    }

    @Test
    void buildIsRepeatable() {
        LaunchContext c = ctx(allOptions(), OMPI4, ENV);
        assertEquals(USER.build(c), USER.build(c));
        assertNotEquals(USER.build(c).launch().argv(), argv(allOptions(), OMPI5));
    }

    /** The NAMEs of {@code -x NAME} words (not {@code -x NAME=VALUE}). */
    static List<String> exported(List<String> argv) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i + 1 < argv.size(); i++) {
            if (argv.get(i).equals("-x") && !argv.get(i + 1).contains("=")) {
                names.add(argv.get(i + 1));
            }
        }
        return names;
    }

    @Test
    void theRelayAgentIsAPlanningInputEmittedForEachFlavourWithItsVariablesOnlyInMpirunsEnvironment() {
        LaunchAgent agent = new LaunchAgent(Path.of("/opt/troika/bin/troika-rsh"), Map.of("TROIKA_DRIVER_ADDR",
                "10.0.0.1:4000", "TROIKA_SECRET_FILE", "/tmp/troika-1/secret"), false);
        Map<String, String> env = Map.of("PATH", "/usr/bin", "TROIKA_SECRET_KEY", "c2VjcmV0",
                "OMPI_MCA_plm_rsh_args", "-p 2222");
        RunSettings s = settings().with(SSH_PORT, 2222);
        LaunchContext c = ctx(s, OMPI4, env);
        BackendPlan p = USER.build(new LaunchContext(c.settings(), c.hostPlan(), OMPI4, env, null, c.scratchDir(),
                c.onPath(), null, agent));
        List<String> argv = p.launch().argv();
        assertEquals(List.of("mpirun", "--mca", "plm_rsh_agent", "/opt/troika/bin/troika-rsh", "--tag-output"),
                argv.subList(0, 5));
        assertLacks(argv, "plm_rsh_args"); // ssh options are not for the agent
        assertLacks(argv, "TROIKA_SECRET_FILE"); // never exported to ranks: hosts have their own copy
        assertLacks(argv, "TROIKA_DRIVER_ADDR");
        assertEquals("/tmp/troika-1/secret", p.launch().env().get("TROIKA_SECRET_FILE"));
        assertEquals(null, p.launch().env().get("TROIKA_SECRET_KEY"));
        assertEquals(null, p.launch().env().get("OMPI_MCA_plm_rsh_args"));
        // Open MPI 5 (PRRTE) names the agent its own way; inside an allocation the rsh/ssh component is named too
        LaunchAgent inAllocation = new LaunchAgent(agent.program(), agent.env(), true);
        assertEquals(List.of("--prtemca", "plm", "ssh", "--prtemca", "plm_ssh_agent", "/opt/troika/bin/troika-rsh"),
                MpirunCommandBuilder.agentArgs(true, inAllocation));
        assertEquals(List.of("--mca", "plm", "rsh", "--mca", "plm_rsh_agent", "/opt/troika/bin/troika-rsh"),
                MpirunCommandBuilder.agentArgs(false, inAllocation));
        // Hydra has no agent option: a usage error, not a silently ignored relay
        assertThrows(org.troika.common.UsageException.class, () -> USER.build(new LaunchContext(c.settings(),
                c.hostPlan(), MPICH, env, null, c.scratchDir(), c.onPath(), null, agent)));
    }
}
