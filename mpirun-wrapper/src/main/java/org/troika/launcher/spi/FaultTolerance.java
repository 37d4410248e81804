package org.troika.launcher.spi;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

    private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)\\.(\\d+)");

    /**
     * Whether revoking a communicator under {@code mpi}'s ULFM also revokes the sub-communicators its hierarchical
     * collectives ({@code coll/han}) run on (pure): Open MPI 5.0.10 and later (open-mpi/ompi#13420). Before, a survivor
     * blocked inside a HAN collective, waiting for a live peer on the same node that already saw the failure and went
     * on to shrink, is never interrupted: the survivors hang (issue 21's missed failure, 1 run in 3 to 10 here). An
     * unknown version counts as before.
     */
    public static boolean revokesHanSubcommunicators(MpiInstall mpi) {
        Matcher m = VERSION.matcher(mpi.versionText());
        if (mpi.flavor() != MpiFlavor.OPEN_MPI || !m.find()) {
            return false;
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        int patch = Integer.parseInt(m.group(3));
        return major > 5 || major == 5 && (minor > 0 || patch >= 10);
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
