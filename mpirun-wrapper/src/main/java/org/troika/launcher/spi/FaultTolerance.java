package org.troika.launcher.spi;

import java.util.Locale;
import org.troika.common.UsageException;

/**
 * What an elastic job does when a rank dies ({@code --fault-tolerance}).
 *
 * <ul>
 *   <li>{@link #RELAUNCH}: the generation ends and the driver starts the next one on the remaining hosts (every MPI).
 *   <li>{@link #SHRINK}: mpirun runs with fault tolerance on (Open MPI 5 and later: {@code --with-ft ulfm}); the
 *       survivors revoke and shrink their communicator and go on in the same processes
 *       ({@code org.troika.worker.elastic.ElasticWorld}); below {@code --min-np} the driver relaunches as before.
 *   <li>{@link #AUTO} (default): {@link #SHRINK} for elastic jobs on an MPI that supports it, else {@link #RELAUNCH}.
 * </ul>
 */
public enum FaultTolerance {
    RELAUNCH,
    SHRINK,
    AUTO;

    /**
     * Parses a {@code --fault-tolerance} value.
     *
     * @throws UsageException for an unknown value
     */
    public static FaultTolerance parse(String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "relaunch" -> RELAUNCH;
            case "shrink" -> SHRINK;
            case "auto" -> AUTO;
            default -> throw new UsageException("--fault-tolerance '" + value + "' is not known; use relaunch, shrink"
                    + " or auto");
        };
    }

    /** Whether {@code mpi} can run a job whose survivors shrink (ULFM: Open MPI 5 and later). */
    public static boolean supported(MpiInstall mpi) {
        return mpi.usesPrrte();
    }

    /**
     * Whether this launch runs with fault tolerance on: {@link #SHRINK}, or {@link #AUTO} for a generation of an
     * elastic job on an MPI that supports it (pure).
     *
     * @param elastic whether the launch is a generation of an elastic job
     * @throws UsageException for {@link #SHRINK} on an MPI without fault tolerance
     */
    public boolean shrinks(MpiInstall mpi, boolean elastic) {
        return switch (this) {
            case RELAUNCH -> false;
            case AUTO -> elastic && supported(mpi);
            case SHRINK -> {
                if (!supported(mpi)) {
                    throw new UsageException("--fault-tolerance shrink needs an MPI with fault tolerance (ULFM: Open MPI"
                            + " 5 or later), found " + mpi.flavor().displayName()
                            + (mpi.majorVersion() > 0 ? " " + mpi.majorVersion() : "")
                            + "; use --fault-tolerance relaunch or auto");
                }
                yield true;
            }
        };
    }
}
