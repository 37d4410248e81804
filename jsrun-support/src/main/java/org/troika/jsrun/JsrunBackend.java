package org.troika.jsrun;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.troika.common.UsageException;
import org.troika.common.exec.LaunchPlan;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.MpiFlavor;
import org.troika.launcher.spi.Allocation;
import org.troika.launcher.spi.BackendPlan;
import org.troika.launcher.spi.LaunchBackend;
import org.troika.launcher.spi.LaunchContext;

/**
 * The {@code jsrun} launch backend (IBM Job Step Manager, Spectrum MPI under LSF). Default inside an LSF job when
 * {@code jsrun} is on PATH and the MPI is Spectrum MPI; {@code troika run --jsrun} forces it.
 *
 * <p>Without binding arguments, ranks are placed by an ERF file ({@link ErfWriter}) named
 * {@code <scratch>/troika.erf}; the executor writes it owner-only before the launch and removes it afterwards.
 */
public final class JsrunBackend implements LaunchBackend {
    /** The ERF file's name inside the scratch directory. */
    public static final String ERF_NAME = "troika.erf";

    @Override
    public String name() {
        return "jsrun";
    }

    @Override
    public boolean isDefaultFor(LaunchContext ctx) {
        return ctx.allocation() != null && "lsf".equals(ctx.allocation().scheduler())
                && ctx.mpi() != null && ctx.mpi().flavor() == MpiFlavor.SPECTRUM_MPI
                && ctx.onPath() != null && ctx.onPath().test("jsrun");
    }

    @Override
    public BackendPlan plan(LaunchContext ctx) {
        RunSettings s = ctx.settings();
        if (s.command().isEmpty()) {
            throw new UsageException("no command given to run with jsrun");
        }
        Allocation a = ctx.allocation();
        List<HostSlots> allocated = a != null ? a.hosts() : ctx.hostPlan().hosts();
        int gpus = a != null ? a.gpusPerHost() : 0;
        if (gpus > 0 && ctx.hostPlan().size() > (long) gpus * allocated.size()) {
            throw new UsageException("-np " + ctx.hostPlan().size() + " needs more GPUs than the allocation's "
                    + allocated.size() + " hosts x " + gpus + " GPUs; lower -np or request more hosts");
        }
        Map<Path, String> files = Map.of();
        Path erf = null;
        if (s.launcher().bindingArgs().isEmpty()) {
            JsrunOptions opts = JsrunOptions.fromEnv(ctx.env());
            int cores = opts.coresPerHost() != null ? opts.coresPerHost() : ErfWriter.defaultCores(allocated);
            erf = ctx.scratchDir() == null ? Path.of(ERF_NAME) : ctx.scratchDir().resolve(ERF_NAME);
            List<String> names = allocated.stream().map(HostSlots::name).toList();
            files = Map.of(erf, ErfWriter.render(ctx.hostPlan(), names, gpus, cores, opts));
        }
        LaunchPlan launch = JsrunCommandBuilder.build(s, ctx.mpi(), erf, ctx.env());
        return new BackendPlan(launch, files, warnings(s), null); // jsrun writes its own output files
    }

    static List<String> warnings(RunSettings s) {
        List<String> w = new ArrayList<>();
        if (s.output().dir() != null) {
            w.add("jsrun writes all ranks' output to " + s.output().dir().resolve("stdout") + " and "
                    + s.output().dir().resolve("stderr") + ", not one file per rank");
        }
        if (s.output().prefixTimestamp()) {
            w.add("jsrun has no timestamp option; --prefix-output-with-timestamp is ignored");
        }
        if (s.remote().sshPort() != null || s.remote().sshIdentityFile() != null) {
            w.add("jsrun starts ranks through LSF/JSM, not ssh; --ssh-port/--ssh-identity-file are ignored");
        }
        if (Boolean.TRUE.equals(s.launcher().javaCds())) {
            w.add("jsrun starts the ranks without troika's rank wrapper (bin/troika-rankenv), which gives java ranks"
                    + " their class-data-sharing archive; --java-cds is ignored (use --launcher mpirun for it)");
        }
        return w;
    }
}
