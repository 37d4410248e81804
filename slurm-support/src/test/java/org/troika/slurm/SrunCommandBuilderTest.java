package org.troika.slurm;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.launcher.options.RunOptionTable.BINDING_ARGS;
import static org.troika.launcher.options.RunOptionTable.HOSTS;
import static org.troika.launcher.options.RunOptionTable.HOST_DISCOVERY_SCRIPT;
import static org.troika.launcher.options.RunOptionTable.JAVA_CDS;
import static org.troika.launcher.options.RunOptionTable.LAUNCHER;
import static org.troika.launcher.options.RunOptionTable.LAUNCH_AGENT;
import static org.troika.launcher.options.RunOptionTable.MAX_NP;
import static org.troika.launcher.options.RunOptionTable.MIN_NP;
import static org.troika.launcher.options.RunOptionTable.MPI_ARGS;
import static org.troika.launcher.options.RunOptionTable.NETWORK_INTERFACES;
import static org.troika.launcher.options.RunOptionTable.NP;
import static org.troika.launcher.options.RunOptionTable.OUTPUT_FILENAME;
import static org.troika.launcher.options.RunOptionTable.PREFIX_TIMESTAMP;
import static org.troika.launcher.options.RunOptionTable.REMOTE_SHELL;
import static org.troika.launcher.options.RunOptionTable.SSH_PORT;
import static org.troika.launcher.options.RunOptionTable.TCP;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;
import org.troika.launcher.mpi.FlavorDetector;
import org.troika.launcher.mpi.MpirunCommandBuilder;
import org.troika.launcher.spi.Allocation;
import org.troika.launcher.spi.BackendPlan;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.LaunchContext;
import org.troika.launcher.spi.MpiInstall;
import org.troika.launcher.spi.RunSettings;

/** The srun plan as data: argv, environment and files for each option, MPI and placement (no process started). */
class SrunCommandBuilderTest {
    static final MpiInstall OMPI4 = FlavorDetector.forFlavorName("openmpi");
    static final MpiInstall OMPI5 = FlavorDetector.forFlavorName("openmpi5");
    static final MpiInstall MPICH = FlavorDetector.forFlavorName("mpich");
    static final MpiInstall INTEL = FlavorDetector.forFlavorName("intel");
    static final MpiInstall SPECTRUM = FlavorDetector.forFlavorName("spectrum");
    /** sbatch -N3 --ntasks-per-node=2: SLURM_TASKS_PER_NODE=2(x3). */
    static final Allocation N3X2 = new Allocation("slurm", "slurm job 42 (SLURM_JOB_NODELIST=n[1-3])",
            List.of(new HostSlots("n1", 2), new HostSlots("n2", 2), new HostSlots("n3", 2)), 0, "srun", true);
    static final Map<String, String> ENV = Map.of("PATH", "/usr/bin", "SLURM_JOB_ID", "42",
            "SLURM_NTASKS_PER_NODE", "2", "TROIKA_SECRET_KEY", "s3cret", "BASH_FUNC_x%%", "() { :; }");
    static final Path HOME = Path.of("/opt/troika");
    static final List<String> TAIL = List.of("/opt/troika/bin/troika-rankenv", "python", "train.py");

    static RunSettings settings() {
        return RunSettings.of(List.of("python", "train.py")).with(LAUNCHER, RunSettings.Backend.named("srun"));
    }

    static LaunchContext ctx(RunSettings s, MpiInstall mpi, Map<String, String> env, Allocation alloc) {
        List<HostSlots> hosts = s.hosts().list().isEmpty() ? alloc.hosts() : s.hosts().list();
        int np = s.hosts().np() != null ? s.hosts().np() : hosts.stream().mapToInt(HostSlots::slots).sum();
        return new LaunchContext(s, HostPlan.assign("test", hosts, np), mpi, env, alloc, Path.of("/tmp/scratch"),
                name -> true, HOME);
    }

    static BackendPlan plan(RunSettings s, MpiInstall mpi) {
        return SrunCommandBuilder.build(ctx(s, mpi, ENV, N3X2));
    }

    static List<String> argv(String... words) {
        List<String> all = new ArrayList<>(List.of(words));
        all.addAll(TAIL);
        return all;
    }

    /** One row: what is asked, and the whole argv srun gets. */
    static Stream<Arguments> argvTable() {
        return Stream.of(
                Arguments.of("whole allocation, Open MPI 4: block placement of the allocation's own hosts",
                        settings(), OMPI4, argv("srun", "--mpi=pmix", "--label", "--ntasks=6", "--nodes=3",
                                "--ntasks-per-node=2", "--nodelist=n1,n2,n3", "--distribution=block",
                                "--cpu-bind=none", "--kill-on-bad-exit=1", "--quit-on-interrupt")),
                Arguments.of("-np 4: the first two nodes, still uniform",
                        settings().with(NP, 4), OMPI5, argv("srun", "--mpi=pmix", "--label", "--ntasks=4", "--nodes=2",
                                "--ntasks-per-node=2", "--nodelist=n1,n2", "--distribution=block",
                                "--cpu-bind=none", "--kill-on-bad-exit=1", "--quit-on-interrupt")),
                Arguments.of("-np 3: uneven, one node name per rank",
                        settings().with(NP, 3), OMPI4, argv("srun", "--mpi=pmix", "--label", "--ntasks=3", "--nodes=2",
                                "--distribution=arbitrary", "--nodelist=n1,n1,n2",
                                "--cpu-bind=none", "--kill-on-bad-exit=1", "--quit-on-interrupt")),
                Arguments.of("-H in another order than Slurm's: arbitrary keeps the rank table",
                        settings().with(HOSTS, new RunSettings.Hosts(null, List.of(new HostSlots("n3", 1),
                                new HostSlots("n1", 2)), "-H")), OMPI4,
                        argv("srun", "--mpi=pmix", "--label", "--ntasks=3", "--nodes=2", "--distribution=arbitrary",
                                "--nodelist=n3,n1,n1", "--cpu-bind=none", "--kill-on-bad-exit=1",
                                "--quit-on-interrupt")),
                Arguments.of("-H with more slots than allocated: --overcommit",
                        settings().with(HOSTS, new RunSettings.Hosts(null, List.of(new HostSlots("n2", 3)), "-H")),
                                OMPI4,
                        argv("srun", "--mpi=pmix", "--label", "--ntasks=3", "--nodes=1", "--distribution=arbitrary",
                                "--nodelist=n2,n2,n2", "--overcommit", "--cpu-bind=none", "--kill-on-bad-exit=1",
                                "--quit-on-interrupt")),
                Arguments.of("MPICH: PMI-2; binding args and mpi args are srun's words",
                        settings().with(BINDING_ARGS, List.of("--cpu-bind=cores"))
                                .with(MPI_ARGS, List.of("--exclusive")), MPICH,
                        argv("srun", "--mpi=pmi2", "--label", "--ntasks=6", "--nodes=3", "--ntasks-per-node=2",
                                "--nodelist=n1,n2,n3", "--distribution=block", "--cpu-bind=cores",
                                "--kill-on-bad-exit=1", "--quit-on-interrupt", "--exclusive")),
                Arguments.of("--mpi in --mpi-args replaces troika's choice",
                        settings().with(MPI_ARGS, List.of("--mpi=pmix_v4")), SPECTRUM,
                        argv("srun", "--label", "--ntasks=6", "--nodes=3", "--ntasks-per-node=2",
                                "--nodelist=n1,n2,n3", "--distribution=block", "--cpu-bind=none",
                                "--kill-on-bad-exit=1", "--quit-on-interrupt", "--mpi=pmix_v4")),
                Arguments.of("--output-filename: troika writes the files, srun's argv is unchanged",
                        settings().with(OUTPUT_FILENAME, Path.of("/out")), OMPI4,
                        argv("srun", "--mpi=pmix", "--label", "--ntasks=6", "--nodes=3", "--ntasks-per-node=2",
                                "--nodelist=n1,n2,n3", "--distribution=block", "--cpu-bind=none",
                                "--kill-on-bad-exit=1", "--quit-on-interrupt")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("argvTable")
    void argvFor(String what, RunSettings s, MpiInstall mpi, List<String> expected) {
        assertEquals(expected, plan(s, mpi).launch().argv());
    }

    @Test
    void environmentCarriesTheRankVariablesAndNicsButNotTheSecret() {
        RunSettings s = settings().with(NP, 3).with(TCP, true).with(NETWORK_INTERFACES, List.of("eth0", "10.1.0.0/16"));
        Map<String, String> env = plan(s, OMPI4).launch().env();
        assertAll(
                () -> assertEquals("n1:2,n2:1", env.get("TROIKA_HOSTS")),
                () -> assertEquals("2,1", env.get("TROIKA_HOST_SLOTS")),
                () -> assertEquals("3", env.get("TROIKA_SIZE")),
                () -> assertEquals("1", env.get("NCCL_IB_DISABLE")),
                () -> assertEquals("eth0", env.get("NCCL_SOCKET_IFNAME")),
                () -> assertEquals("eth0,10.1.0.0/16", env.get("OMPI_MCA_btl_tcp_if_include")),
                () -> assertEquals("42", env.get("SLURM_JOB_ID"), "srun needs the allocation's variables"),
                () -> assertFalse(env.containsKey("TROIKA_SECRET_KEY")),
                () -> assertFalse(env.containsKey("BASH_FUNC_x%%")),
                () -> assertFalse(env.containsKey("SLURM_NTASKS_PER_NODE"),
                        "sbatch's --ntasks-per-node would contradict an arbitrary placement"));
        assertEquals("2", plan(settings(), OMPI4).launch().env().get("SLURM_NTASKS_PER_NODE"),
                "kept for a block placement (the argv sets the same count)");
    }

    @Test
    void javaCdsReachesTheRanksBehindTheRankWrapper() {
        BackendPlan on = plan(settings().with(JAVA_CDS, true), OMPI4);
        assertEquals("1", on.launch().env().get("TROIKA_JAVA_CDS"), "srun forwards its environment to the ranks");
        assertEquals(TAIL, on.launch().argv().subList(on.launch().argv().size() - 3, on.launch().argv().size()));
        assertEquals(List.of(), on.warnings());
        assertEquals("0", SrunCommandBuilder.build(ctx(settings().with(JAVA_CDS, false), MPICH,
                Map.of("SLURM_JOB_ID", "42", "TROIKA_JAVA_CDS", "1"), N3X2)).launch().env().get("TROIKA_JAVA_CDS"),
                "--no-java-cds wins over the caller's variable");
        assertFalse(plan(settings(), OMPI4).launch().env().containsKey("TROIKA_JAVA_CDS"));
    }

    @Test
    void warningsForWhatSrunCannotDo() {
        RunSettings s = settings().with(PREFIX_TIMESTAMP, true).with(SSH_PORT, 2222)
                .with(OUTPUT_FILENAME, Path.of("/out"))
                .with(NETWORK_INTERFACES, List.of("eth0"));
        List<String> ompi = plan(s, OMPI4).warnings();
        assertEquals(2, ompi.size(), ompi::toString);
        assertTrue(ompi.stream().anyMatch(w -> w.contains("--prefix-output-with-timestamp is ignored")), ompi::toString);
        assertTrue(ompi.stream().anyMatch(w -> w.contains("--ssh-port")), ompi::toString);
        List<String> mpich = plan(settings().with(NETWORK_INTERFACES, List.of("eth0")), MPICH).warnings();
        assertTrue(mpich.stream().anyMatch(w -> w.contains("-iface")), mpich::toString);
        List<String> intel = plan(settings(), INTEL).warnings();
        assertTrue(intel.stream().anyMatch(w -> w.contains("I_MPI_PMI_LIBRARY")), intel::toString);
        assertEquals(List.of(), plan(settings(), OMPI4).warnings());
    }

    @Test
    void outputFilenameFilesComeFromTheLabelledLines() {
        org.troika.launcher.spi.RankOutput out = plan(settings().with(NP, 3)
                .with(OUTPUT_FILENAME, Path.of("/out")), OMPI4)
                .rankOutput();
        assertEquals(new org.troika.launcher.spi.RankOutput(Path.of("/out"), 3,
                org.troika.launcher.spi.RankOutput.TagFormat.SRUN, null), out);
        assertNull(plan(settings(), OMPI4).rankOutput().dir());
        assertEquals(org.troika.launcher.spi.RankOutput.TagFormat.SRUN,
                plan(settings(), OMPI4).rankOutput().format(), "the labels are read without files too");
    }

    @Test
    void pluginFromTheEnvironmentOverride() {
        Map<String, String> env = new HashMap<>(ENV);
        env.put(SrunCommandBuilder.SRUN_MPI_ENV, "pmix_v4");
        assertEquals("--mpi=pmix_v4",
                SrunCommandBuilder.build(ctx(settings(), MPICH, env, N3X2)).launch().argv().get(1));
        env.put(SrunCommandBuilder.SRUN_MPI_ENV, "pmix;rm");
        UsageException e = assertThrows(UsageException.class,
                () -> SrunCommandBuilder.build(ctx(settings(), OMPI4, env, N3X2)));
        assertTrue(e.getMessage().startsWith(SrunCommandBuilder.SRUN_MPI_ENV + "='pmix;rm'"), e.getMessage());
    }

    @Test
    void aVeryLongRankTableGoesToAHostfile() {
        Allocation big = numberedNodes("node%05d", 3000, 3);
        RunSettings s = settings().with(NP, 8999);
        BackendPlan p = SrunCommandBuilder.build(ctx(s, OMPI4, ENV, big));
        Path file = Path.of("/tmp/scratch", SrunCommandBuilder.HOSTFILE_NAME);
        assertTrue(p.launch().argv().contains("--distribution=arbitrary"));
        assertTrue(p.launch().argv().stream().noneMatch(w -> w.startsWith("--nodelist")));
        assertTrue(p.launch().argv().stream().allMatch(w -> w.length() <= MpirunCommandBuilder.HOST_ARG_LIMIT));
        assertEquals(file.toString(), p.launch().env().get("SLURM_HOSTFILE"));
        List<String> lines = p.files().get(file).lines().toList();
        assertEquals(8999, lines.size());
        assertEquals(List.of("node00000", "node00000", "node00000", "node00001"), lines.subList(0, 4));
        assertEquals("node02999", lines.get(8998));
    }

    /**
     * Issue 23: the allocation's own 10,000 nodes with long names in block placement: one name each is over Linux's
     * 128 KiB for one argument, so the node list goes to srun as a file (a --nodelist value with a '/').
     */
    @Test
    void tenThousandLongNodeNamesInBlockPlacementGoToANodeListFile() {
        Allocation big = numberedNodes("compute-node-%05d.cluster", 10_000, 8);
        BackendPlan p = SrunCommandBuilder.build(ctx(settings(), OMPI4, ENV, big));
        Path file = Path.of("/tmp/scratch", SrunCommandBuilder.NODELIST_NAME);
        List<String> argv = p.launch().argv();
        assertTrue(argv.contains("--distribution=block"), argv.toString());
        assertTrue(argv.contains("--nodelist=" + file), argv.toString());
        assertTrue(argv.stream().allMatch(w -> w.length() <= MpirunCommandBuilder.HOST_ARG_LIMIT));
        List<String> lines = p.files().get(file).lines().toList();
        assertEquals(10_000, lines.size());
        assertEquals("compute-node-00000.cluster", lines.get(0));
        assertEquals("compute-node-09999.cluster", lines.get(9_999));
        // a short list stays on the command line
        BackendPlan small = SrunCommandBuilder.build(ctx(settings(), OMPI4, ENV, N3X2));
        assertTrue(small.launch().argv().contains("--nodelist=n1,n2,n3"), small.launch().argv().toString());
        assertTrue(small.files().isEmpty(), small.files().toString());
    }

    /** A Slurm allocation of {@code count} nodes named by {@code format} from 0, {@code slots} each. */
    private static Allocation numberedNodes(String format, int count, int slots) {
        List<HostSlots> nodes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            nodes.add(new HostSlots(String.format(format, i), slots));
        }
        return new Allocation("slurm", "big", nodes, 0, "srun", true);
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of(settings(), null, "--launcher srun needs a Slurm allocation"),
                Arguments.of(settings().with(new RunSettings.Hosts(null, List.of(new HostSlots("n9", 1)), "-H")),
                        N3X2, "host n9 is not in the Slurm allocation (n1,n2,n3)"),
                Arguments.of(settings().with(REMOTE_SHELL, "ssh"), N3X2,
                        "--remote-shell and --launch-agent"),
                Arguments.of(settings().with(LAUNCH_AGENT, RunSettings.LaunchAgent.SSH), N3X2,
                        "--remote-shell and --launch-agent"),
                Arguments.of(settings().withCommand(List.of()), N3X2, "nothing to run"));
    }

    /** A bad network interface never reaches srun's planning: the settings refuse it (one rule for every launcher). */
    @Test
    void aBadNetworkInterfaceIsRefusedBeforePlanning() {
        UsageException e = assertThrows(UsageException.class,
                () -> settings().with(NETWORK_INTERFACES, List.of("eth 0")));
        assertTrue(e.getMessage().startsWith("bad network interface"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
    }

    @ParameterizedTest
    @MethodSource("refusals")
    void refusesWithOneLine(RunSettings s, Allocation alloc, String start) {
        Allocation a = alloc != null ? alloc : N3X2;
        LaunchContext c = ctx(s, OMPI4, ENV, a);
        LaunchContext given = alloc != null ? c : new LaunchContext(c.settings(), c.hostPlan(), c.mpi(), c.env(), null,
                c.scratchDir(), c.onPath(), c.troikaHome());
        UsageException e = assertThrows(UsageException.class, () -> SrunCommandBuilder.build(given));
        assertTrue(e.getMessage().startsWith(start), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
    }

    /** When --launcher auto picks srun, and the reason --verbose prints. */
    static Stream<Arguments> autoTable() {
        return Stream.of(
                Arguments.of("plain run inside Slurm with Open MPI", settings(), OMPI4, N3X2, true, null),
                Arguments.of("MPICH", settings(), MPICH, N3X2, true, null),
                Arguments.of("Intel MPI", settings(), INTEL, N3X2, false, "Intel MPI needs site-specific PMI settings"),
                Arguments.of("outside Slurm", settings(), OMPI4, null, false, "not inside a Slurm allocation"),
                Arguments.of("LSF", settings(), OMPI4, new Allocation("lsf", "lsf", N3X2.hosts(), 0, "blaunch", false),
                        false, "not inside a Slurm allocation"),
                Arguments.of("mpirun's words", settings().with(MPI_ARGS, List.of("-x", "A"))
                        .with(BINDING_ARGS, List.of("--bind-to", "core")),
                        OMPI4, N3X2, false, "--mpi-args, --binding-args given"),
                Arguments.of("relay", settings()
                        .with(REMOTE_SHELL, "srun"), OMPI4, N3X2, false, "--remote-shell given"),
                Arguments.of("elastic", settings().with(MIN_NP, 2), OMPI4, N3X2, false, "elastic jobs"),
                Arguments.of("-H outside the allocation", settings()
                        .with(HOSTS, new RunSettings.Hosts(null, List.of(new HostSlots("gpu7", 2)), "-H")),
                        OMPI4, N3X2, false, "hosts gpu7 are not Slurm nodes"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("autoTable")
    void autoChoice(String what, RunSettings s, MpiInstall mpi, Allocation alloc, boolean chosen, String why) {
        RunSettings rs = s.with(LAUNCHER, RunSettings.Backend.AUTO);
        Allocation forPlan = alloc != null ? alloc : N3X2;
        LaunchContext c = ctx(rs, mpi, ENV, forPlan);
        LaunchContext given = new LaunchContext(rs, c.hostPlan(), mpi, ENV, alloc, c.scratchDir(), c.onPath(),
                c.troikaHome());
        SrunBackend b = new SrunBackend();
        assertEquals(chosen, b.isDefaultFor(given));
        String reason = b.reason(given);
        if (chosen) {
            assertTrue(reason.startsWith("inside slurm job 42"), reason);
        } else {
            assertTrue(reason.startsWith(why), reason);
        }
    }

    /** Issue 21.4: srun declares elastic generations, and neither relayed daemons nor ULFM. */
    @Test
    void srunRunsElasticGenerationsButRelaysNoDaemonsAndHasNoUlfm() {
        assertEquals(java.util.Set.of(org.troika.launcher.spi.LaunchBackend.Capability.ELASTIC),
                new SrunBackend().capabilities());
    }

    /**
     * An elastic job's generation with {@code --launcher srun}: one srun step over the generation's nodes in rank
     * order (here n1 and n3, n2 having left), the generation's variables in srun's environment (which it passes to
     * every rank), and the worker key there too, never in argv.
     */
    @Test
    void anElasticGenerationIsOneSrunStepOverItsNodesWithTheKeyInTheEnvironment() {
        RunSettings base = settings().with(MIN_NP, 2).with(MAX_NP, 6)
                .with(HOST_DISCOVERY_SCRIPT, Path.of("/bin/discover"));
        HostPlan hosts = HostPlan.assign("elastic generation 2", List.of(new HostSlots("n1", 2),
                new HostSlots("n3", 2)), 4);
        RunSettings gen = org.troika.launcher.exec.MpirunGenerationLauncher.generationSettings(base,
                new org.troika.launcher.elastic.Generation(2, org.troika.launcher.elastic.Generation.Reason.HOSTS_UPDATED,
                        hosts));
        Map<String, String> env = org.troika.launcher.exec.MpirunGenerationLauncher.rankEnv(ENV, "e7-1", 2,
                "10.0.0.1:4000");
        BackendPlan p = new SrunBackend().plan(new LaunchContext(gen, hosts, OMPI4, env, N3X2, Path.of("/tmp/scratch"),
                name -> true, HOME));
        assertEquals(argv("srun", "--mpi=pmix", "--label", "--ntasks=4", "--nodes=2", "--distribution=arbitrary",
                "--nodelist=n1,n1,n3,n3", "--cpu-bind=none", "--kill-on-bad-exit=1", "--quit-on-interrupt"),
                p.launch().argv());
        assertEquals("1", p.launch().env().get("TROIKA_ELASTIC"));
        assertEquals("2", p.launch().env().get("TROIKA_ELASTIC_GENERATION"));
        assertEquals("10.0.0.1:4000", p.launch().env().get("TROIKA_WORKER_ADDR"));
        assertEquals("e7-1", p.launch().env().get("TROIKA_JOB_ID"));
        org.troika.wire.Secret key = org.troika.wire.Secret.generate();
        BackendPlan keyed = org.troika.launcher.exec.MpirunGenerationLauncher.withWorkerKeyInEnvironment(p, key);
        assertEquals(key.encode(), keyed.launch().env().get("TROIKA_WORKER_KEY"));
        assertEquals(p.launch().argv(), keyed.launch().argv());
        assertEquals(p.rankOutput(), keyed.rankOutput());
    }

    @Test
    void notChosenWithoutSrunOnPath() {
        LaunchContext c = ctx(settings(), OMPI4, ENV, N3X2);
        LaunchContext noSrun = new LaunchContext(c.settings(), c.hostPlan(), c.mpi(), c.env(), c.allocation(),
                c.scratchDir(), name -> !name.equals("srun"), c.troikaHome());
        assertFalse(new SrunBackend().isDefaultFor(noSrun));
        assertEquals("srun is not on PATH", new SrunBackend().reason(noSrun));
        assertNull(SrunBackend.whyNot(c));
    }
}
