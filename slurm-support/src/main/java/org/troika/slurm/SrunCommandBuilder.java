package org.troika.slurm;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.troika.common.UsageException;
import org.troika.common.exec.LaunchPlan;
import org.troika.launcher.mpi.EnvExport;
import org.troika.launcher.mpi.MpirunCommandBuilder;
import org.troika.launcher.mpi.RankLaunch;
import org.troika.launcher.spi.Allocation;
import org.troika.launcher.spi.BackendPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.LaunchContext;
import org.troika.launcher.spi.MpiFlavor;
import org.troika.launcher.spi.RankOutput;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.SlotInfo;

/**
 * Plans {@code srun} direct launch inside a Slurm allocation: Slurm starts, binds, accounts for and cleans up every
 * rank (under {@code slurmstepd}), the MPI wires up through Slurm's PMI plugin, and no {@code mpirun} runs. Pure.
 *
 * <p>Parts, in order, with the {@code mpirun} semantics they carry over:
 * <ol>
 *   <li>{@code srun --mpi=TYPE}: {@code pmix} for Open MPI and Spectrum MPI, {@code pmi2} for MPICH and Intel MPI
 *       (measured with Debian's Slurm 22.05: Open MPI 4.1.4 fails under {@code pmi2}, MPICH 4.0 runs as singletons
 *       under {@code pmix}); {@value #SRUN_MPI_ENV} overrides it, an {@code --mpi} word in {@code --mpi-args} drops it;
 *   <li>{@code --label}: every output line starts with {@code RANK: } (mpirun's {@code --tag-output}); with
 *       {@code --output-filename DIR} troika writes {@code DIR/rank.N.stdout|stderr} from these lines
 *       ({@link RankOutput.TagFormat#SRUN}), as it does for every mpirun;
 *   <li>{@code --ntasks=NP --nodes=K} and the placement of the rank table: {@code --ntasks-per-node=C
 *       --nodelist=h1,h2 --distribution=block} when the hosts are the allocation's own (in its order) with the same
 *       count each (a list over {@value MpirunCommandBuilder#HOST_ARG_LIMIT} characters as {@code --nodelist=FILE},
 *       a scratch file of names, which srun reads as such), else {@code --distribution=arbitrary --nodelist=h1,h1,h2} (one name per rank, in rank order;
 *       over {@value MpirunCommandBuilder#HOST_ARG_LIMIT} characters in a scratch file named by
 *       {@code SLURM_HOSTFILE}); {@code --overcommit} when a host gets more ranks than Slurm allocated there;
 *   <li>binding: the user's {@code --binding-args} (srun's words, e.g. {@code --cpu-bind=cores}), else
 *       {@code --cpu-bind=none} (mpirun's {@code --bind-to none});
 *   <li>{@code --kill-on-bad-exit=1} (one failed rank ends the job, as with mpirun) and {@code --quit-on-interrupt}
 *       (one Ctrl-C ends the step; plain srun wants two within a second);
 *   <li>the user's {@code --mpi-args} verbatim, then the command behind {@code troika-rankenv}.
 * </ol>
 * An elastic job's generation ({@code --launcher srun}) is planned the same way from the generation's host plan and
 * environment: one srun step per generation.
 *
 * <p>Long options use srun's {@code --name=value} form: srun's optional-argument options ({@code --kill-on-bad-exit})
 * take their value only that way, and one form for all keeps each option one argv word.
 *
 * <p>Environment: srun forwards its whole environment to the ranks, so it is the caller's without the excluded
 * names ({@link EnvExport#isExcluded}), plus {@code TROIKA_HOSTS}/{@code TROIKA_HOST_SLOTS}/{@code TROIKA_SIZE}, {@code NCCL_IB_DISABLE=1}
 * for {@code --tcp}, and for {@code --network-interface}: {@code NCCL_SOCKET_IFNAME} (names) and, for Open MPI,
 * {@code OMPI_MCA_btl_tcp_if_include} (names and subnets). {@code SLURM_NTASKS_PER_NODE} (set by
 * {@code sbatch --ntasks-per-node}, and read by srun) is dropped for an arbitrary placement.
 */
public final class SrunCommandBuilder {
    /** Overrides the {@code --mpi} plugin type, e.g. {@code pmix_v4}. */
    public static final String SRUN_MPI_ENV = "TROIKA_SRUN_MPI";
    /** The per-rank host file's name in the scratch directory, for rank tables too long for one argv word. */
    public static final String HOSTFILE_NAME = "srun-hostfile";
    /** The node list's file in the scratch directory, for a block placement over too many names for one argv word. */
    public static final String NODELIST_NAME = "srun-nodelist";

    private SrunCommandBuilder() {}

    /**
     * Plans the launch.
     *
     * @throws UsageException outside a Slurm allocation, for options srun cannot honour, for hosts outside the
     *     allocation (one line naming problem and fix)
     */
    public static BackendPlan build(LaunchContext ctx) {
        RunSettings s = ctx.settings();
        if (s.command().isEmpty()) {
            throw new UsageException("nothing to run: put the command after troika's options, e.g. troika run --launcher srun hostname");
        }
        Allocation a = ctx.allocation();
        if (a == null || !"slurm".equals(a.scheduler())) {
            throw new UsageException("--launcher srun needs a Slurm allocation (no SLURM_JOB_ID here); run troika inside"
                    + " sbatch or salloc, or use --launcher mpirun");
        }
        if (s.remote().shell() != null || s.remote().launchAgent() != RunSettings.LaunchAgent.AUTO) {
            throw new UsageException("--remote-shell and --launch-agent choose how mpirun starts its daemons, and srun"
                    + " starts the ranks itself; drop them or use --launcher mpirun");
        }
        List<String> nics = s.remote().networkInterfaces();
        List<String> warnings = new ArrayList<>();
        Map<Path, String> files = new LinkedHashMap<>();
        Map<String, String> env = new TreeMap<>(EnvExport.withoutExcluded(RankLaunch.rankEnv(ctx, warnings)));

        List<String> argv = new ArrayList<>();
        argv.add("srun");
        String plugin = mpiPlugin(ctx, warnings);
        if (plugin != null) {
            argv.add("--mpi=" + plugin);
        }
        argv.add("--label");
        argv.add("--ntasks=" + ctx.hostPlan().size());
        argv.addAll(placement(ctx, env, files));
        argv.addAll(s.launcher().bindingArgs().isEmpty() ? List.of("--cpu-bind=none") : s.launcher().bindingArgs());
        argv.add("--kill-on-bad-exit=1");
        argv.add("--quit-on-interrupt");
        nicEnv(ctx, nics, env, warnings);
        if (s.output().prefixTimestamp()) {
            warnings.add("srun has no timestamp option; --prefix-output-with-timestamp is ignored");
        }
        if (s.remote().sshPort() != null || s.remote().sshIdentityFile() != null) {
            warnings.add("srun starts ranks through slurmd, not ssh; --ssh-port/--ssh-identity-file are ignored");
        }
        argv.addAll(s.launcher().mpiArgs());
        argv.addAll(RankLaunch.rankCommand(ctx));
        // --output-filename: troika writes DIR/rank.N.stdout|stderr from the labelled lines, as for every mpirun
        RankOutput rankOutput = new RankOutput(s.output().dir(), ctx.hostPlan().size(), RankOutput.TagFormat.SRUN, null);
        return new BackendPlan(new LaunchPlan(argv, env), files, warnings, rankOutput);
    }

    /** The {@code --mpi} plugin type for this MPI, or {@code null} when the user's {@code --mpi-args} name one. */
    static String mpiPlugin(LaunchContext ctx, List<String> warnings) {
        if (ctx.settings().launcher().mpiArgs().stream().anyMatch(w -> w.equals("--mpi") || w.startsWith("--mpi="))) {
            return null;
        }
        String forced = ctx.env().getOrDefault(SRUN_MPI_ENV, "").strip();
        if (!forced.isEmpty()) {
            if (!forced.matches("[A-Za-z0-9_]+")) {
                throw new UsageException(SRUN_MPI_ENV + "='" + forced + "' is not an srun --mpi type; use one that"
                        + " srun --mpi=list prints, e.g. pmix");
            }
            return forced;
        }
        MpiFlavor flavor = ctx.mpi().flavor();
        if (flavor == MpiFlavor.INTEL_MPI && !ctx.env().containsKey("I_MPI_PMI_LIBRARY")) {
            warnings.add("Intel MPI under srun needs I_MPI_PMI_LIBRARY set to Slurm's libpmi2.so; it is not set");
        }
        return flavor.isOpenMpiFamily() ? "pmix" : "pmi2";
    }

    /** {@code --nodes}, {@code --nodelist}, distribution and overcommit for the rank table. */
    private static List<String> placement(LaunchContext ctx, Map<String, String> env, Map<Path, String> files) {
        List<HostSlots> hosts = ctx.hostPlan().hosts();
        Map<String, Integer> allocated = new LinkedHashMap<>();
        ctx.allocation().hosts().forEach(h -> allocated.put(h.name(), h.slots()));
        boolean overcommit = false;
        for (HostSlots h : hosts) {
            Integer slots = allocated.get(h.name());
            if (slots == null) {
                throw new UsageException("host " + h.name() + " is not in the Slurm allocation (" + String.join(",",
                        allocated.keySet()) + "); srun runs ranks on allocated nodes only, so name them by their Slurm"
                        + " node names");
            }
            overcommit |= h.slots() > slots;
        }
        List<String> out = new ArrayList<>();
        out.add("--nodes=" + hosts.size());
        boolean uniform = hosts.stream().allMatch(h -> h.slots() == hosts.get(0).slots());
        if (uniform && ctx.settings().hosts().list().isEmpty()) {
            // the allocation's own hosts, in its order: block placement fills them in rank order
            out.add("--ntasks-per-node=" + hosts.get(0).slots());
            String names = String.join(",", ctx.hostPlan().hostNames());
            if (names.length() <= MpirunCommandBuilder.HOST_ARG_LIMIT || ctx.scratchDir() == null) {
                out.add("--nodelist=" + names);
            } else {
                // srun reads a --nodelist value with a '/' as a file of names (one argv word stays under Linux's 128 KiB)
                Path file = ctx.scratchDir().resolve(NODELIST_NAME);
                files.put(file, String.join("\n", ctx.hostPlan().hostNames()) + "\n");
                out.add("--nodelist=" + file);
            }
            out.add("--distribution=block");
        } else {
            env.remove("SLURM_NTASKS_PER_NODE");
            List<String> perRank = ctx.hostPlan().slots().stream().map(SlotInfo::host).toList();
            String list = String.join(",", perRank);
            out.add("--distribution=arbitrary");
            if (list.length() <= MpirunCommandBuilder.HOST_ARG_LIMIT || ctx.scratchDir() == null) {
                out.add("--nodelist=" + list);
            } else {
                Path file = ctx.scratchDir().resolve(HOSTFILE_NAME);
                files.put(file, String.join("\n", perRank) + "\n");
                env.put("SLURM_HOSTFILE", file.toString());
            }
        }
        if (overcommit) {
            out.add("--overcommit");
        }
        return out;
    }

    private static void nicEnv(LaunchContext ctx, List<String> nics, Map<String, String> env, List<String> warnings) {
        if (nics.isEmpty()) {
            return;
        }
        String nccl = RankLaunch.ncclInterfaces(nics, warnings);
        if (nccl != null) {
            env.put("NCCL_SOCKET_IFNAME", nccl);
        }
        if (ctx.mpi().flavor().isOpenMpiFamily()) {
            // direct launch has no ORTE/PRRTE daemons, so only the MPI traffic (btl) needs a choice
            env.put("OMPI_MCA_btl_tcp_if_include", String.join(",", nics));
        } else {
            warnings.add(ctx.mpi().flavor().displayName() + " takes its interface from Hydra's -iface, which srun does"
                    + " not have; only NCCL_SOCKET_IFNAME is set (set your MPI's own variable, e.g. FI_TCP_IFACE)");
        }
    }
}
