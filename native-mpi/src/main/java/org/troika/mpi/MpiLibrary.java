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

    private static final List<String> OPEN_MPI_VARS = List.of("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK");
    private static final List<String> HYDRA_VARS = List.of("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID");

    private MpiLibrary() {}

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
