package org.troika.mpi;

import java.util.List;
import java.util.Map;
import org.troika.common.TroikaEnv;
import org.troika.common.UsageException;

/**
 * Which MPI library a Java rank binds to: the one its launcher belongs to, since a rank started by Hydra
 * ({@code mpirun.mpich}) cannot wire up through Open MPI's library, nor the reverse.
 *
 * <p>Precedence, first match wins:
 * <ol>
 *   <li>{@code TROIKA_LIBMPI} (a path or soname);</li>
 *   <li>Open MPI's launcher variables ({@code OMPI_COMM_WORLD_SIZE}, {@code OMPI_COMM_WORLD_RANK}) → {@code libmpi.so.40};</li>
 *   <li>Hydra's / PMI's ({@code PMI_RANK}, {@code PMI_SIZE}, {@code MPI_LOCALRANKID}) → {@code libmpich.so.12};</li>
 *   <li>otherwise (a singleton, or an {@code srun} launch) each is tried in turn: Open MPI, then MPICH.</li>
 * </ol>
 */
public final class MpiLibrary {
    /** Open MPI 3.x–5.x's soname (Debian: /usr/lib/x86_64-linux-gnu/libmpi.so.40). */
    public static final String OPEN_MPI = "libmpi.so.40";
    /** MPICH 3.x–4.x's soname (Debian: /usr/lib/x86_64-linux-gnu/libmpich.so.12). */
    public static final String MPICH = "libmpich.so.12";

    /**
     * {@code TROIKA_MPI_HEAP}: {@code copy} sends Java arrays through a native staging copy in every call; unset (or
     * {@code pin}) lets the FFM backend hand arrays of blocking collectives to MPI directly, in critical downcalls
     * during which this JVM cannot garbage-collect.
     */
    public static final String HEAP = "TROIKA_MPI_HEAP";

    /** UCX's variable naming the signals it takes over: troika-mpi sets it empty before any MPI library loads. */
    public static final String UCX_ERROR_SIGNALS = "UCX_ERROR_SIGNALS";
    /** UCX's core library (MPICH's ch4:ucx, Open MPI's pml ucx), which reads UCX's variables once, when it loads. */
    public static final String UCX = "libucs.so.0";
    /** {@code dlopen} flags that find a library already loaded without loading it: {@code RTLD_LAZY | RTLD_NOLOAD}. */
    public static final int RTLD_LAZY_NOLOAD = 0x1 | 0x4;

    private static final List<String> OPEN_MPI_VARS = List.of("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK");
    private static final List<String> HYDRA_VARS = List.of("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID");

    private MpiLibrary() {}

    /**
     * Why a backend refuses to load MPI when UCX is in the process already and {@code UCX_ERROR_SIGNALS} is unset:
     * UCX then read its defaults and puts its own SIGSEGV handler over the JVM's when MPI starts it, and the JVM's
     * next implicit null check kills the rank (seen here: MPICH 4.0.2, a program that loaded a library linking MPI
     * before {@code Mpi.init}).
     */
    public static IllegalStateException ucxLoadedFirst() {
        return new IllegalStateException(UCX + " (UCX) was loaded into this JVM before troika-mpi loaded MPI, with "
                + UCX_ERROR_SIGNALS + " unset: UCX would put its SIGSEGV handler over the JVM's and crash the rank. "
                + "Call Mpi.init() before loading any library that links MPI or UCX, or start the ranks with "
                + UCX_ERROR_SIGNALS + "= (empty)");
    }

    /** How Java calls the library. */
    public enum Backend {
        /** JNA direct mapping: any JDK 17+. */
        JNA,
        /** Foreign Function &amp; Memory API: JDK 22+, troika-mpi's multi-release jar, native access enabled. */
        FFM
    }

    /**
     * {@code TROIKA_MPI_BACKEND}: {@code jna}, {@code ffm}, or {@code auto}/unset, which picks FFM on JDK 22+ when
     * native access is enabled ({@code --enable-native-access=ALL-UNNAMED}, which also silences the JDK's warning
     * about restricted methods) and JNA otherwise.
     */
    public static Backend backend(Map<String, String> env, int jdkFeature, boolean nativeAccessEnabled) {
        String value = env.getOrDefault(TroikaEnv.MPI_BACKEND, "auto").strip();
        return switch (value) {
            case "jna" -> Backend.JNA;
            case "ffm" -> Backend.FFM;
            case "auto", "" -> jdkFeature >= 22 && nativeAccessEnabled ? Backend.FFM : Backend.JNA;
            default -> throw new UsageException(TroikaEnv.MPI_BACKEND + "='" + value + "' is unknown: use jna, ffm "
                    + "or auto");
        };
    }

    /** The libraries to try, in order, for a rank with this environment. */
    public static List<String> candidates(Map<String, String> env) {
        String override = env.get(TroikaEnv.LIBMPI);
        if (override != null) {
            if (override.isBlank()) {
                throw new UsageException(TroikaEnv.LIBMPI + " is empty: set it to an MPI library path or soname, "
                        + "e.g. " + MPICH + ", or unset it");
            }
            return List.of(override.strip());
        }
        if (OPEN_MPI_VARS.stream().anyMatch(env::containsKey)) {
            return List.of(OPEN_MPI);
        }
        if (HYDRA_VARS.stream().anyMatch(env::containsKey)) {
            return List.of(MPICH);
        }
        return List.of(OPEN_MPI, MPICH);
    }
}
