package org.troika.launcher.mpi;

import org.troika.launcher.spi.MpiFlavor;
import org.troika.launcher.spi.MpiInstall;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.troika.common.TroikaEnv;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner;
import org.troika.common.exec.CommandRunner.ProbeResult;

/**
 * Finds out which MPI {@code mpirun} belongs to, from what {@code mpirun --version} prints.
 *
 * <p>Classification is a set of case-sensitive substring checks on stdout+stderr, most specific first:
 * <ol>
 *   <li>{@code IBM Spectrum MPI} → Spectrum MPI (its text may also say {@code Open MPI}, so it goes first);
 *   <li>{@code Open MPI} or {@code OpenRTE} → Open MPI ({@code OpenRTE} catches Debian/conda's
 *       {@code mpirun.real (OpenRTE) 4.0.x} wrapper);
 *   <li>{@code Intel(R) MPI} → Intel MPI (an MPICH derivative, so before the MPICH check);
 *   <li>{@code MPICH} or {@code HYDRA} → MPICH ({@code HYDRA build details:} is what MPICH 3/4 print);
 *   <li>anything else → {@link UsageException} echoing the first line.
 * </ol>
 */
public final class FlavorDetector {
    /** Environment variable naming the MPI launcher binary, e.g. {@code /usr/bin/mpirun.mpich}. */
    public static final String MPIRUN_ENV = TroikaEnv.MPIRUN;
    /** How long {@code mpirun --version} may take. */
    public static final Duration PROBE_TIMEOUT = Duration.ofSeconds(10);

    private static final List<String> FLAVOR_NAMES = List.of("openmpi", "openmpi5", "spectrum", "mpich", "intel");
    private static final Pattern OPEN_MPI_VERSION = Pattern.compile("\\((?:Open MPI|OpenRTE|IBM Spectrum MPI)\\)\\s+(\\d{1,6})\\.");
    private static final Pattern HYDRA_VERSION = Pattern.compile("(?m)^\\s*Version:\\s+(\\d{1,6})\\.");
    private static final Pattern INTEL_VERSION = Pattern.compile("Version\\s+(\\d{1,6})");
    private static final Pattern ANY_VERSION = Pattern.compile("(\\d{1,6})\\.\\d+");

    private FlavorDetector() {}

    /** The launcher binary: {@value #MPIRUN_ENV} when set and not blank, else {@code mpirun} from PATH. */
    public static String mpirunCommand(Map<String, String> env) {
        String v = env.get(MPIRUN_ENV);
        return v == null || v.isBlank() ? "mpirun" : v.strip();
    }

    /**
     * Runs {@code <mpirunCommand> --version} and classifies the output.
     *
     * @throws UsageException when the command cannot start, fails, or prints an unknown text
     */
    public static MpiInstall detect(CommandRunner runner, String mpirunCommand) {
        ProbeResult r = runner.run(List.of(mpirunCommand, "--version"), PROBE_TIMEOUT);
        if (r.exitCode() == ProbeResult.NOT_FOUND) {
            throw new UsageException("cannot run '" + mpirunCommand + "': install Open MPI (apt-get install openmpi-bin"
                    + " libopenmpi-dev) or another MPI, or put its mpirun on PATH or name it in " + MPIRUN_ENV);
        }
        if (!r.ok()) {
            throw new UsageException("'" + mpirunCommand + " --version' failed (exit " + r.exitCode() + ": "
                    + firstLine(r.output()) + "); fix the MPI installation, or name the flavour with --mpi-flavor "
                    + String.join("|", FLAVOR_NAMES));
        }
        MpiInstall found = classify(r.output());
        if (found == null) {
            throw new UsageException("unknown MPI: '" + mpirunCommand + " --version' printed '" + firstLine(r.output())
                    + "'; troika supports Open MPI, Spectrum MPI, MPICH and Intel MPI (set " + MPIRUN_ENV
                    + " to their mpirun, or --mpi-flavor " + String.join("|", FLAVOR_NAMES) + ")");
        }
        return found;
    }

    /** Classifies a version text; {@code null} when no known MPI is recognised. */
    public static MpiInstall classify(String text) {
        String t = text == null ? "" : text;
        MpiFlavor flavor;
        Pattern version;
        if (t.contains("IBM Spectrum MPI")) {
            flavor = MpiFlavor.SPECTRUM_MPI;
            version = OPEN_MPI_VERSION;
        } else if (t.contains("Open MPI") || t.contains("OpenRTE")) {
            flavor = MpiFlavor.OPEN_MPI;
            version = OPEN_MPI_VERSION;
        } else if (t.contains("Intel(R) MPI")) {
            flavor = MpiFlavor.INTEL_MPI;
            version = INTEL_VERSION;
        } else if (t.contains("MPICH") || t.contains("HYDRA")) {
            flavor = MpiFlavor.MPICH;
            version = HYDRA_VERSION;
        } else {
            return null;
        }
        return new MpiInstall(flavor, major(t, version), t.strip());
    }

    /**
     * The install named by {@code --mpi-flavor}: {@code openmpi} (4.x, ORTE names), {@code openmpi5} (PRRTE names),
     * {@code spectrum}, {@code mpich}, {@code intel}.
     *
     * @throws UsageException for any other name
     */
    public static MpiInstall forFlavorName(String name) {
        String n = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
        return switch (n) {
            case "openmpi" -> new MpiInstall(MpiFlavor.OPEN_MPI, 4, "");
            case "openmpi5" -> new MpiInstall(MpiFlavor.OPEN_MPI, 5, "");
            case "spectrum" -> new MpiInstall(MpiFlavor.SPECTRUM_MPI, 0, "");
            case "mpich" -> new MpiInstall(MpiFlavor.MPICH, 0, "");
            case "intel" -> new MpiInstall(MpiFlavor.INTEL_MPI, 0, "");
            default -> throw new UsageException("unknown --mpi-flavor '" + name + "': choose one of "
                    + String.join(", ", FLAVOR_NAMES));
        };
    }

    private static int major(String text, Pattern preferred) {
        Matcher m = preferred.matcher(text);
        if (m.find()) {
            return Integer.parseInt(m.group(1));
        }
        m = ANY_VERSION.matcher(text);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    private static String firstLine(String text) {
        if (text == null) {
            return "";
        }
        for (String line : text.split("\\R")) {
            if (!line.isBlank()) {
                return line.strip();
            }
        }
        return "";
    }
}
