package org.troika.launcher.spi;

import java.util.Objects;

/**
 * The MPI found on this machine (or named by {@code --mpi-flavor}).
 *
 * @param flavor the implementation
 * @param majorVersion major version when known (Open MPI 4 = ORTE, 5 = PRRTE), else 0
 * @param versionText what {@code mpirun --version} printed (empty for an override)
 */
public record MpiInstall(MpiFlavor flavor, int majorVersion, String versionText) {
    public MpiInstall {
        Objects.requireNonNull(flavor, "flavor");
        versionText = versionText == null ? "" : versionText;
    }

    /** Open MPI 5 and later run PRRTE: {@code plm_ssh_*} names, {@code --prtemca}. */
    public boolean usesPrrte() {
        return flavor == MpiFlavor.OPEN_MPI && majorVersion >= 5;
    }
}
