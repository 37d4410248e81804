package org.troika.slurm;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.troika.launcher.spi.Allocation;
import org.troika.launcher.spi.BackendPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.LaunchBackend;
import org.troika.launcher.spi.LaunchContext;
import org.troika.launcher.spi.MpiFlavor;
import org.troika.launcher.spi.RunSettings;

/**
 * The {@code srun} launch backend: direct launch inside a Slurm allocation ({@link SrunCommandBuilder}).
 * {@code troika run --launcher srun} forces it; {@code --launcher auto} (the default) chooses it inside a Slurm job
 * when {@code srun} is on PATH, the MPI is Open MPI (PMIx) or MPICH (PMI-2), and no option written for mpirun is
 * given. {@link #reason} says which condition decided, for {@code --verbose}.
 */
public final class SrunBackend implements LaunchBackend {
    @Override
    public String name() {
        return "srun";
    }

    /**
     * Elastic generations (each one an srun step over the generation's nodes; the ranks get the worker key with
     * srun's environment), but no relayed daemons (srun starts every rank itself) and no ULFM (no PRRTE to run it).
     */
    @Override
    public Set<Capability> capabilities() {
        return Set.of(Capability.ELASTIC);
    }

    @Override
    public boolean isDefaultFor(LaunchContext ctx) {
        return whyNot(ctx) == null;
    }

    @Override
    public String reason(LaunchContext ctx) {
        String no = whyNot(ctx);
        if (no != null) {
            return no;
        }
        return "inside " + ctx.allocation().description() + " with " + ctx.mpi().flavor().displayName()
                + ", srun starts, binds and cleans up every rank itself (--launcher mpirun uses mpirun instead)";
    }

    @Override
    public BackendPlan plan(LaunchContext ctx) {
        return SrunCommandBuilder.build(ctx);
    }

    /** Why srun is not the default here, or {@code null} when it is. */
    static String whyNot(LaunchContext ctx) {
        Allocation a = ctx.allocation();
        if (a == null || !"slurm".equals(a.scheduler())) {
            return "not inside a Slurm allocation";
        }
        if (ctx.onPath() == null || !ctx.onPath().test("srun")) {
            return "srun is not on PATH";
        }
        MpiFlavor flavor = ctx.mpi().flavor();
        if (flavor != MpiFlavor.OPEN_MPI && flavor != MpiFlavor.MPICH) {
            return flavor.displayName() + " needs site-specific PMI settings under srun (try --launcher srun)";
        }
        RunSettings s = ctx.settings();
        if (s.elastic().enabled()) {
            return "elastic jobs start each generation with mpirun unless --launcher srun is given";
        }
        List<String> mpirunOnly = new ArrayList<>();
        if (!s.launcher().mpiArgs().isEmpty()) {
            mpirunOnly.add("--mpi-args");
        }
        if (!s.launcher().bindingArgs().isEmpty()) {
            mpirunOnly.add("--binding-args");
        }
        if (s.remote().shell() != null) {
            mpirunOnly.add("--remote-shell");
        }
        if (s.remote().launchAgent() != RunSettings.LaunchAgent.AUTO) {
            mpirunOnly.add("--launch-agent");
        }
        if (s.output().prefixTimestamp()) {
            mpirunOnly.add("--prefix-output-with-timestamp");
        }
        if (!mpirunOnly.isEmpty()) {
            return String.join(", ", mpirunOnly) + " given, which mean mpirun's behaviour (--launcher srun passes"
                    + " --mpi-args/--binding-args to srun instead)";
        }
        Set<String> allocated = a.hosts().stream().map(HostSlots::name).collect(Collectors.toSet());
        List<String> outside = ctx.hostPlan().hostNames().stream().filter(h -> !allocated.contains(h)).toList();
        if (!outside.isEmpty()) {
            return "hosts " + String.join(",", outside) + " are not Slurm nodes of this allocation";
        }
        return null;
    }
}
