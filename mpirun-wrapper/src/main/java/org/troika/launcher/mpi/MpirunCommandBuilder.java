package org.troika.launcher.mpi;

import org.troika.launcher.spi.FaultTolerance;
import org.troika.launcher.spi.MpiFlavor;
import org.troika.launcher.spi.MpiInstall;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.troika.common.SpawnCommand;
import org.troika.common.TroikaEnv;
import org.troika.common.UsageException;
import org.troika.common.exec.LaunchPlan;
import org.troika.common.exec.PrtedGuard;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.BackendPlan;
import org.troika.launcher.spi.LaunchAgent;
import org.troika.launcher.spi.LaunchContext;
import org.troika.launcher.spi.RankOutput;

/**
 * Plans the {@code mpirun} command for Open MPI (4 = ORTE, 5 = PRRTE), Spectrum MPI, MPICH and Intel MPI. Pure: the
 * result depends only on the {@link LaunchContext} and on whether troika runs as root (given at construction).
 *
 * <p>Part order: launcher, basic (output tagging), {@code -np}, hosts, binding, implementation flags
 * (+ large-cluster flags, + timestamps), ssh options, NICs, NCCL NIC, environment exports,
 * the user's {@code --mpi-args} verbatim, then the command (behind {@code troika-rankenv} when troika is installed).
 * Per-rank output files are not the launcher's: the plan's {@link RankOutput} has troika write them.
 * Every choice and the flags left out on purpose are explained in {@code docs/mpirun-flags.md}.
 */
public final class MpirunCommandBuilder {
    /** At this many host entries and more, Open MPI's own ssh launches every daemon itself (no tree spawn). */
    public static final int LARGE_CLUSTER_HOSTS = 64;
    /**
     * The relay's tree: each daemon (mpirun's included) starts at most this many children, with as many launches in
     * flight. Through the relay a daemon's agent reaches the target host's task service from any host, so tree spawn
     * needs no ssh between compute nodes, and the agents hand their daemons over once they run: the launch node starts
     * only this many agents, whatever the host count (docs/launch-agent.md, "Large clusters").
     */
    public static final int RELAY_RADIX = 16;
    /**
     * Host lists longer than this many characters go into a hostfile in the scratch directory instead of one argv
     * word (Linux refuses any single argument over 128 KiB).
     */
    public static final int HOST_ARG_LIMIT = 32 * 1024;

    private final boolean asRoot;
    private final int exportBudget;

    /** @param asRoot whether mpirun will run as root (Open MPI then needs the two {@code OMPI_ALLOW_RUN_AS_ROOT*} vars) */
    public MpirunCommandBuilder(boolean asRoot) {
        this(asRoot, EnvExport.DEFAULT_BUDGET);
    }

    MpirunCommandBuilder(boolean asRoot, int exportBudget) {
        this.asRoot = asRoot;
        this.exportBudget = exportBudget;
    }

    /** A builder for the user this JVM runs as. */
    public static MpirunCommandBuilder forCurrentUser() {
        return new MpirunCommandBuilder("root".equals(System.getProperty("user.name")));
    }

    /**
     * Plans the launch.
     *
     * @throws UsageException when the request cannot be expressed for this MPI (one line naming problem and fix)
     */
    public BackendPlan build(LaunchContext ctx) {
        RunSettings s = ctx.settings();
        if (s.command().isEmpty()) {
            throw new UsageException("nothing to run: put the command after troika's options, e.g. troika run -np 2 hostname");
        }
        List<String> nics = s.remote().networkInterfaces();
        // checked for every flavour: an explicit shrink on an MPI without fault tolerance is an error
        s.launcher().faultTolerance().shrinks(ctx.mpi(), elasticGeneration(ctx));
        return ctx.mpi().flavor().isHydra() ? hydra(ctx, nics) : openMpi(ctx, nics);
    }

    private BackendPlan openMpi(LaunchContext ctx, List<String> nics) {
        RunSettings s = ctx.settings();
        MpiInstall mpi = ctx.mpi();
        if (mpi.flavor() == MpiFlavor.OPEN_MPI && mpi.majorVersion() > 0 && mpi.majorVersion() < 4) {
            throw new UsageException("Open MPI " + mpi.majorVersion() + " is not supported (troika needs 4.0 or later for"
                    + " -H name:slots); install Open MPI 4 or 5, or name another mpirun in " + FlavorDetector.MPIRUN_ENV);
        }
        boolean prrte = mpi.usesPrrte();
        List<String> warnings = new ArrayList<>();
        Map<Path, String> files = new LinkedHashMap<>();
        Map<String, String> env = RankLaunch.rankEnv(ctx, warnings);
        if (asRoot) {
            env.putIfAbsent("OMPI_ALLOW_RUN_AS_ROOT", "1");
            env.putIfAbsent("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        }
        List<String> argv = new ArrayList<>();
        argv.add(FlavorDetector.mpirunCommand(ctx.env()));
        if (ctx.agent() != null) {
            argv.addAll(agentArgs(prrte, ctx.agent()));
        }
        if (prrte) {
            argv.addAll(List.of("--output", prrteOutput(s)));
        } else {
            argv.add("--tag-output");
        }
        argv.addAll(List.of("-np", Integer.toString(ctx.hostPlan().size())));
        // Open MPI inside Slurm reads the allocation itself; -H would only conflict with it
        boolean hostArg = !(ctx.allocation() != null && ctx.allocation().mpiReadsAllocation()
                && s.hosts().list().isEmpty());
        if (hostArg) {
            argv.addAll(openMpiHosts(ctx, files));
        }
        argv.addAll(s.launcher().bindingArgs().isEmpty() ? defaultBinding(mpi.flavor()) : s.launcher().bindingArgs());
        if (s.launcher().faultTolerance().shrinks(mpi, elasticGeneration(ctx))) {
            // ULFM: a dead rank does not end the job; the survivors' calls fail and they shrink (docs/elastic.md)
            argv.addAll(List.of("--with-ft", "ulfm"));
            env.put(TroikaEnv.FAULT_TOLERANCE, "shrink");
            if (prrte) {
                // growth in place (issue 25): the ranks spawn this command onto added hosts (worker's RankSpawner)
                env.put(TroikaEnv.ELASTIC_SPAWN_COMMAND, SpawnCommand.encode(RankLaunch.spawnCommand(ctx, env)));
            }
            if (DETECTOR_PARAMS.stream().noneMatch(p -> setsMca(s.launcher().mpiArgs(), ctx.env(), p))) {
                argv.addAll(DETECTOR_ARGS);
            }
            boolean spawnsInto = prrte && elasticGeneration(ctx); // ranks may be spawned into this world (issue 25)
            if ((spawnsInto || !FaultTolerance.revokesHanSubcommunicators(mpi))
                    && !setsMca(s.launcher().mpiArgs(), ctx.env(), "coll")) {
                // a revoke does not reach coll/han's sub-communicators before Open MPI 5.0.10: survivors hang there;
                // and in a world grown by a spawn HAN gave a wrong allreduce on 5.0.7 (stop 53, a C program: ones
                // summed to 2 over the 3 ranks after a growth, then the next growth hung; ompi#11724: HAN's view of
                // which processes share a node is wrong for spawned ones), which no later version is known to fix
                argv.addAll(List.of("--mca", "coll", "^han"));
            }
        }
        if (s.launcher().tcp() && mpi.flavor() == MpiFlavor.SPECTRUM_MPI) {
            argv.add("-tcp");
        }
        int hostCount = ctx.hostPlan().hosts().size();
        if (hostArg) {
            argv.addAll(launchShape(prrte, relayed(ctx), hostCount, s.launcher().mpiArgs(), ctx.env()));
        }
        if (!prrte && s.output().prefixTimestamp()) {
            argv.add("--timestamp-output");
        }
        // ssh options are for Open MPI's ssh; a launch agent takes none (they would reach it as words before the host)
        String ssh = ctx.agent() == null ? sshWords(s) : null;
        if (ssh != null) {
            plm(argv, prrte, "args", ssh);
        }
        if (!nics.isEmpty()) {
            String list = String.join(",", nics);
            argv.addAll(List.of("--mca", "btl_tcp_if_include", list));
            argv.addAll(List.of(prrte ? "--prtemca" : "--mca", "oob_tcp_if_include", list));
        }
        String nccl = RankLaunch.ncclInterfaces(nics, warnings);
        if (nccl != null) {
            argv.addAll(List.of("-x", "NCCL_SOCKET_IFNAME=" + nccl));
        }
        EnvExport.Selection exports = EnvExport.select(env,
                nccl == null ? Set.of() : Set.of("NCCL_SOCKET_IFNAME"), exportBudget);
        for (String name : exports.names()) {
            argv.addAll(List.of("-x", name));
        }
        if (env.containsKey(TroikaEnv.ELASTIC_SPAWN_COMMAND)) {
            // what a spawned rank gets of its parent's environment: the same exports
            env.put(TroikaEnv.ELASTIC_SPAWN_ENV, String.join(",", exports.names()));
            argv.addAll(List.of("-x", TroikaEnv.ELASTIC_SPAWN_ENV));
        }
        String dropped = exports.warning(exportBudget);
        if (dropped != null) {
            warnings.add(dropped);
        }
        argv.addAll(s.launcher().mpiArgs());
        argv.addAll(RankLaunch.rankCommand(ctx));
        if (ctx.agent() != null) {
            // mpirun's own environment only (after the -x selection): ranks never get the agent's variables
            env.remove("OMPI_MCA_plm_rsh_args");
            env.remove("PRTE_MCA_plm_ssh_args");
            env.putAll(ctx.agent().env());
        }
        Path guard = prrte ? PrtedGuard.installed(ctx.troikaHome(), env) : null;
        if (guard != null) {
            // mpirun's PRRTE is a daemon too (the ranks of the launch node are its children): the guard goes into
            // mpirun's environment only, after the -x selection, and takes itself out of LD_PRELOAD in prterun
            env = PrtedGuard.preloaded(env, guard.toString());
        }
        return new BackendPlan(new LaunchPlan(argv, env), files, warnings,
                rankOutput(ctx, prrte ? RankOutput.TagFormat.PRRTE : RankOutput.TagFormat.ORTE));
    }

    /** UCX's list of the network devices it may use (MPICH's ch4:ucx device, Open MPI's pml ucx). */
    static final String UCX_NET_DEVICES = "UCX_NET_DEVICES";

    /** Whether every host of {@code plan} is this machine by a loopback name or address (pure). */
    static boolean onLoopbackOnly(HostPlan plan) {
        for (String h : plan.hostNames()) {
            if (!h.equalsIgnoreCase("localhost") && !h.startsWith("127.") && !h.equals("::1")) {
                return false;
            }
        }
        return true;
    }

    /**
     * ULFM's failure detector (Open MPI 5), on in every fault-tolerant launch unless the user set any of its parameters:
     * without it Open MPI 5.0.7's survivors at times never learn of a SIGKILLed rank (4 hosts x 1 rank: 0 of 5 in place,
     * a 20 s report timeout and a relaunch each; with it 6 of 6 in place within 220 ms: the death is then spread among
     * the survivors as soon as one of them sees it). Its heartbeats are made too rare to matter (every hour, a rank
     * suspected after a day of silence): with the defaults (3 s, 10 s) a rank that spends 10 s outside MPI is declared
     * dead and aborts, and the detector's own thread ({@code mpi_ft_detector_thread}), which would keep beating,
     * hangs MPI_Finalize in 5.0.7. docs/elastic.md "SIGKILL".
     */
    static final List<String> DETECTOR_ARGS = List.of("--mca", "mpi_ft_detector", "true",
            "--mca", "mpi_ft_detector_period", "3600", "--mca", "mpi_ft_detector_timeout", "86400");

    /** The detector's parameters: a user who sets any of them chooses the detector. */
    static final List<String> DETECTOR_PARAMS = List.of("mpi_ft_detector", "mpi_ft_detector_thread",
            "mpi_ft_detector_period", "mpi_ft_detector_timeout", "mpi_ft_detector_rdma_heartbeat");

    /**
     * Whether the user chose the MCA parameter {@code name} for the ranks: {@code OMPI_MCA_<name>} in the environment,
     * or {@code --mca}/{@code -mca}/{@code --omca}/{@code --gmca} {@code name} among the extra mpirun arguments (pure).
     */
    static boolean setsMca(List<String> mpiArgs, Map<String, String> env, String name) {
        if (env.containsKey("OMPI_MCA_" + name)) {
            return true;
        }
        for (int i = 1; i < mpiArgs.size(); i++) {
            if (mpiArgs.get(i).equals(name) && mpiArgs.get(i - 1).matches("--?[og]?mca")) {
                return true;
            }
        }
        return false;
    }

    /**
     * How Open MPI starts its daemons on {@code hosts} hosts (pure; docs/launch-agent.md, "Large clusters").
     * <ul>
     *   <li>Relay: tree spawn at every size, each daemon starting at most {@link #RELAY_RADIX} children with as many
     *       launches in flight ({@code routed_radix}, {@code plm_rsh_num_concurrent}; PRRTE: {@code --prtemca
     *       routed_radix}, {@code plm_ssh_num_concurrent}). Up to {@value #RELAY_RADIX} hosts Open MPI's default radix
     *       (64) already makes that tree, so nothing is added. Left alone when the user sets the radix, the concurrency
     *       or tree spawn ({@code --mpi-args} or {@code OMPI_MCA_}/{@code PRTE_MCA_} variables).</li>
     *   <li>Open MPI's own ssh: at {@link #LARGE_CLUSTER_HOSTS} hosts and more Horovod's flat launch ({@code
     *       no_tree_spawn}, {@code num_concurrent} = hosts), so compute nodes need no ssh to each other; below it Open
     *       MPI's default.</li>
     * </ul>
     */
    static List<String> launchShape(boolean prrte, boolean relay, int hosts, List<String> mpiArgs,
            Map<String, String> env) {
        List<String> argv = new ArrayList<>();
        if (relay) {
            boolean userShape = java.util.stream.Stream.of("routed_radix", "rml_base_radix", "plm_rsh_num_concurrent",
                    "plm_ssh_num_concurrent", "plm_rsh_no_tree_spawn", "plm_ssh_no_tree_spawn")
                    .anyMatch(n -> setsAnyMca(mpiArgs, env, n));
            if (hosts > RELAY_RADIX && !userShape) {
                argv.addAll(List.of(prrte ? "--prtemca" : "--mca", "routed_radix", Integer.toString(RELAY_RADIX)));
                plm(argv, prrte, "num_concurrent", Integer.toString(RELAY_RADIX));
            }
        } else if (hosts >= LARGE_CLUSTER_HOSTS) {
            plm(argv, prrte, "no_tree_spawn", "true");
            plm(argv, prrte, "num_concurrent", Integer.toString(hosts));
        }
        return argv;
    }

    /** Whether the daemons start through troika's relay: its agent is planned, or the settings ask for it. */
    static boolean relayed(LaunchContext ctx) {
        RunSettings.Remote r = ctx.settings().remote();
        return ctx.agent() != null || r.launchAgent() == RunSettings.LaunchAgent.RELAY
                || (r.launchAgent() == RunSettings.LaunchAgent.AUTO && r.shell() != null);
    }

    /** {@link #setsMca} for ORTE's and PRRTE's spellings: {@code --mca}, {@code --prtemca}, {@code PRTE_MCA_}. */
    static boolean setsAnyMca(List<String> mpiArgs, Map<String, String> env, String name) {
        if (env.containsKey("OMPI_MCA_" + name) || env.containsKey("PRTE_MCA_" + name)) {
            return true;
        }
        for (int i = 1; i < mpiArgs.size(); i++) {
            if (mpiArgs.get(i).equals(name) && mpiArgs.get(i - 1).matches("--?([og]|prte)?mca")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The options that make Open MPI start its daemons with {@code agent} (pure): {@code --mca plm_rsh_agent PROGRAM}
     * (PRRTE: {@code --prtemca plm_ssh_agent PROGRAM}), preceded by {@code --mca plm rsh} ({@code --prtemca plm ssh})
     * when the agent asks for the component to be named (inside a batch allocation).
     */
    public static List<String> agentArgs(boolean prrte, LaunchAgent agent) {
        List<String> a = new ArrayList<>();
        String flag = prrte ? "--prtemca" : "--mca";
        if (agent.namePlmComponent()) {
            a.addAll(List.of(flag, "plm", prrte ? "ssh" : "rsh"));
        }
        a.addAll(List.of(flag, prrte ? "plm_ssh_agent" : "plm_rsh_agent", agent.program().toString()));
        return a;
    }

    private BackendPlan hydra(LaunchContext ctx, List<String> nics) {
        RunSettings s = ctx.settings();
        if (ctx.agent() != null) {
            throw new UsageException("a launch agent (the relay) works with Open MPI only; "
                    + ctx.mpi().flavor().displayName() + " has no plm_rsh_agent: drop --launch-agent relay / --remote-shell"
                    + " or use Open MPI");
        }
        String mpiName = ctx.mpi().flavor().displayName();
        List<String> warnings = new ArrayList<>();
        Map<Path, String> files = new LinkedHashMap<>();
        // Hydra forwards mpirun's whole environment to every rank, so exclusions are applied to the child env itself
        Map<String, String> env = new TreeMap<>(EnvExport.withoutExcluded(RankLaunch.rankEnv(ctx, warnings)));
        List<String> argv = new ArrayList<>();
        argv.add(FlavorDetector.mpirunCommand(ctx.env()));
        Path own = hydraFiles(ctx, files);
        if (own == null) {
            argv.add("-l");
        } else {
            // Hydra tags every read of a rank's output ("[R] " also inside a line), which is common text too
            // ("a[3] = 5"): with --output-filename its own per-rank files, written by mpiexec on this machine, are
            // exact; troika follows them into DIR and onto the console (docs/mpirun-flags.md)
            String pattern = own.toString().replace("%", "%%") + "/rank.%r.";
            argv.addAll(List.of("-outfile-pattern", pattern + "stdout", "-errfile-pattern", pattern + "stderr"));
        }
        argv.addAll(List.of("-np", Integer.toString(ctx.hostPlan().size())));
        argv.addAll(List.of("-ppn", Integer.toString(processesPerNode(ctx, mpiName))));
        argv.addAll(hydraHosts(ctx, files));
        if (!s.launcher().bindingArgs().isEmpty()) {
            warnings.add(mpiName + " (Hydra): --binding-args are not applied; pass Hydra's own -bind-to/-map-by with"
                    + " --mpi-args");
        }
        if (ctx.hostPlan().hosts().size() >= LARGE_CLUSTER_HOSTS) {
            warnings.add(mpiName + " (Hydra): the large-cluster flags (no tree spawn, launch concurrency) exist only"
                    + " for Open MPI and are not applied to these " + ctx.hostPlan().hosts().size() + " hosts");
        }
        if (s.output().prefixTimestamp()) {
            warnings.add(mpiName + " (Hydra) cannot timestamp output lines; --prefix-timestamp is ignored");
        }
        // ssh options are for Open MPI's ssh; a launch agent takes none (they would reach it as words before the host)
        String ssh = ctx.agent() == null ? sshWords(s) : null;
        if (ssh != null) {
            if (ctx.mpi().flavor() == MpiFlavor.MPICH) {
                throw new UsageException("MPICH's mpirun has no option for ssh arguments (" + ssh + "); put Port/"
                        + "IdentityFile for these hosts in ~/.ssh/config instead of --ssh-port/--ssh-identity-file");
            }
            argv.addAll(List.of("-bootstrap", "ssh", "-bootstrap-exec-args", ssh));
        }
        List<String> userNics = nics.stream().filter(n -> !RunSettings.Remote.isSubnet(n)).toList();
        if (nics.size() > 1 || userNics.size() != nics.size()) {
            throw new UsageException(mpiName + " (Hydra) takes one network interface by name (-iface), got "
                    + String.join(",", nics) + "; give a single interface name such as --network-interfaces eth0");
        }
        if (!nics.isEmpty()) {
            argv.addAll(List.of("-iface", nics.get(0)));
            argv.addAll(List.of("-genv", "NCCL_SOCKET_IFNAME", nics.get(0)));
        } else if (onLoopbackOnly(ctx.hostPlan())) {
            // UCX (MPICH's ch4:ucx) lists the network devices at MPI_Init and opens them a moment later: one that went
            // away in between (a container's or another job's veth) fails MPI_Init with "init_worker No such device"
            // (issue 21). Ranks all on this machine need no network device but loopback.
            env.putIfAbsent(UCX_NET_DEVICES, "lo");
        }
        argv.addAll(s.launcher().mpiArgs());
        argv.addAll(RankLaunch.rankCommand(ctx));
        return new BackendPlan(new LaunchPlan(argv, env), files, warnings,
                new RankOutput(s.output().dir(), ctx.hostPlan().size(), RankOutput.TagFormat.HYDRA, own));
    }

    /**
     * With {@code --output-filename}: the private folder (in the launch's scratch folder, 0700, made with the plan's
     * files and removed with them) where Hydra writes each rank's output; {@code null} without.
     */
    private static Path hydraFiles(LaunchContext ctx, Map<Path, String> files) {
        if (ctx.settings().output().dir() == null || ctx.scratchDir() == null) {
            return null;
        }
        Path own = ctx.scratchDir().resolve("rank-output");
        files.put(own.resolve(".troika"), ""); // makes the folder before the launch
        return own;
    }

    /** v5 deprecates --tag-output/--timestamp-output in favour of one {@code --output} list. */
    private static String prrteOutput(RunSettings s) {
        return s.output().prefixTimestamp() ? "tag,timestamp" : "tag";
    }

    /**
     * {@code --output-filename DIR}: troika writes the per-rank files from the tagged output (Open MPI 5.0.7's
     * {@code --output-filename} writes no or one file, its {@code --output dir=D} one stream per rank and mixes ranks'
     * unfinished lines; Open MPI 4 writes its files on each rank's host). The launcher always tags (see the tagging
     * part above).
     */
    private static RankOutput rankOutput(LaunchContext ctx, RankOutput.TagFormat format) {
        return new RankOutput(ctx.settings().output().dir(), ctx.hostPlan().size(), format, null);
    }

    /**
     * {@code -H host:slots,...}, or a scratch hostfile ({@code name slots=N} lines) when the list is too long. The plan's
     * spare hosts follow with 0 slots: PRRTE starts its daemon on every host of the list and maps no rank where there
     * is no slot (measured with Open MPI 5.0.7: {@code -H a:1,b:0 -np 1} starts a daemon on b), so a rank spawned there
     * later needs no daemon start.
     */
    private static List<String> openMpiHosts(LaunchContext ctx, Map<Path, String> files) {
        StringBuilder list = new StringBuilder(ctx.hostPlan().hostList());
        ctx.hostPlan().spares().forEach(h -> list.append(',').append(h).append(":0"));
        String hostList = list.toString();
        if (hostList.length() <= HOST_ARG_LIMIT || ctx.scratchDir() == null) {
            return List.of("-H", hostList);
        }
        Path hostfile = ctx.scratchDir().resolve("hostfile");
        StringBuilder text = new StringBuilder();
        ctx.hostPlan().hosts().forEach(h -> text.append(h.name()).append(" slots=").append(h.slots()).append('\n'));
        ctx.hostPlan().spares().forEach(h -> text.append(h).append(" slots=0\n"));
        files.put(hostfile, text.toString());
        return List.of("--hostfile", hostfile.toString());
    }

    /** {@code -hosts a,b}, or a scratch machinefile (one name per line; {@code -ppn} still sets the count). */
    private static List<String> hydraHosts(LaunchContext ctx, Map<Path, String> files) {
        String hostNames = String.join(",", ctx.hostPlan().hostNames());
        if (hostNames.length() <= HOST_ARG_LIMIT || ctx.scratchDir() == null) {
            return List.of("-hosts", hostNames);
        }
        Path machinefile = ctx.scratchDir().resolve("machinefile");
        files.put(machinefile, String.join("\n", ctx.hostPlan().hostNames()) + "\n");
        return List.of("-f", machinefile.toString());
    }

    /**
     * Hydra's {@code -ppn}: every host but the last must run the same number of ranks and the last no more (the
     * fill order {@code -np} with {@code -ppn} produces, matching the rank table).
     */
    private static int processesPerNode(LaunchContext ctx, String mpiName) {
        List<HostSlots> hosts = ctx.hostPlan().hosts();
        int ppn = hosts.get(0).slots();
        for (int i = 0; i < hosts.size(); i++) {
            int slots = hosts.get(i).slots();
            boolean last = i == hosts.size() - 1;
            if (last ? slots > ppn : slots != ppn) {
                throw new UsageException(mpiName + " (Hydra) needs the same slot count on every host, got "
                        + ctx.hostPlan().hostList() + "; give every host the same slots, or pass a machinefile with"
                        + " --mpi-args '-f FILE'");
            }
        }
        return ppn;
    }

    /** Open MPI and MPICH: no binding, ranks fill hosts slot by slot; Spectrum: Horovod's socket default; Intel: none. */
    private static List<String> defaultBinding(MpiFlavor flavor) {
        return switch (flavor) {
            case OPEN_MPI -> List.of("--bind-to", "none", "--map-by", "slot");
            case SPECTRUM_MPI -> List.of("--bind-to", "socket", "--map-by", "socket", "--rank-by", "core");
            case MPICH, INTEL_MPI -> List.of();
        };
    }

    /** Appends an rsh/ssh launcher parameter under its ORTE ({@code plm_rsh_*}) or PRRTE ({@code plm_ssh_*}) name. */
    private static void plm(List<String> argv, boolean prrte, String param, String value) {
        argv.addAll(prrte ? List.of("--prtemca", "plm_ssh_" + param, value) : List.of("--mca", "plm_rsh_" + param, value));
    }

    /** {@code -p PORT -i FILE} (whichever are set) as one word, or {@code null}. */
    private static String sshWords(RunSettings s) {
        List<String> words = new ArrayList<>();
        if (s.remote().sshPort() != null) {
            words.addAll(List.of("-p", Integer.toString(s.remote().sshPort())));
        }
        if (s.remote().sshIdentityFile() != null) {
            String file = s.remote().sshIdentityFile().toString();
            if (file.chars().anyMatch(Character::isWhitespace)) {
                throw new UsageException("ssh identity file '" + file + "' contains whitespace, which mpirun splits"
                        + " into separate ssh arguments; move the key to a path without spaces");
            }
            words.addAll(List.of("-i", file));
        }
        return words.isEmpty() ? null : String.join(" ", words);
    }

    /** Whether this launch is a generation of an elastic job (its driver sets {@link TroikaEnv#ELASTIC}). */
    private static boolean elasticGeneration(LaunchContext ctx) {
        return "1".equals(ctx.env().get(TroikaEnv.ELASTIC));
    }
}
