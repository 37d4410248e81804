package org.troika.jsrun;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.troika.common.ShellQuote;
import org.troika.common.exec.LaunchPlan;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.MpiFlavor;
import org.troika.launcher.spi.MpiInstall;

/**
 * Builds the {@code jsrun} command. Pure.
 *
 * <p>Order: {@code jsrun}; placement (the user's binding arguments verbatim, else {@code --erf_input FILE});
 * output ({@code --stdio_stderr DIR/stderr --stdio_stdout DIR/stdout} from {@code --output-filename DIR}: all ranks
 * share the two files, as jsrun's per-task file naming is not relied on); {@code --smpiargs "<args>"}
 * with the flavour's flags ({@code -tcp} for Spectrum MPI with {@code --tcp}) and the user's {@code --mpi-args},
 * shell-quoted into one word, only when non-empty; then the command words.
 *
 * <p>Environment: the caller's, plus {@code NCCL_IB_DISABLE=1} with {@code --tcp}, and for {@code --network-interface}
 * values {@code NCCL_SOCKET_IFNAME} (interface names only) and {@code OMPI_MCA_btl_tcp_if_include} (names and
 * subnets), each only when the caller has not set it. jsrun forwards its environment to the ranks.
 */
public final class JsrunCommandBuilder {
    private JsrunCommandBuilder() {}

    /**
     * @param erfFile the ERF file, or {@code null} when the user's binding arguments place the ranks
     */
    public static LaunchPlan build(RunSettings s, MpiInstall mpi, Path erfFile, Map<String, String> callerEnv) {
        List<String> argv = new ArrayList<>();
        argv.add("jsrun");
        if (!s.launcher().bindingArgs().isEmpty()) {
            argv.addAll(s.launcher().bindingArgs());
        } else {
            argv.add("--erf_input");
            argv.add(erfFile.toString());
        }
        if (s.output().dir() != null) {
            argv.add("--stdio_stderr");
            argv.add(s.output().dir().resolve("stderr").toString());
            argv.add("--stdio_stdout");
            argv.add(s.output().dir().resolve("stdout").toString());
        }
        List<String> smpi = new ArrayList<>();
        if (s.launcher().tcp() && mpi.flavor() == MpiFlavor.SPECTRUM_MPI) {
            smpi.add("-tcp");
        }
        smpi.addAll(s.launcher().mpiArgs());
        if (!smpi.isEmpty()) {
            argv.add("--smpiargs");
            argv.add(ShellQuote.join(smpi));
        }
        argv.addAll(s.command());
        return new LaunchPlan(argv, env(s, callerEnv));
    }

    static Map<String, String> env(RunSettings s, Map<String, String> callerEnv) {
        Map<String, String> env = new HashMap<>(callerEnv);
        if (s.launcher().tcp()) {
            env.put("NCCL_IB_DISABLE", "1");
        }
        if (!s.remote().networkInterfaces().isEmpty()) {
            List<String> names = s.remote().networkInterfaces().stream().filter(n -> !n.contains("/")).toList();
            if (!names.isEmpty()) {
                env.putIfAbsent("NCCL_SOCKET_IFNAME", String.join(",", names));
            }
            env.putIfAbsent("OMPI_MCA_btl_tcp_if_include", String.join(",", s.remote().networkInterfaces()));
        }
        return env;
    }
}
