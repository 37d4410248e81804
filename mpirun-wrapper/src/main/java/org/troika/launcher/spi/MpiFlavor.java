package org.troika.launcher.spi;

/** The MPI implementations troika plans launches for. Open MPI's major version lives in {@link MpiInstall}. */
public enum MpiFlavor {
    OPEN_MPI("Open MPI"),
    SPECTRUM_MPI("IBM Spectrum MPI"),
    MPICH("MPICH"),
    INTEL_MPI("Intel MPI");

    private final String displayName;

    MpiFlavor(String displayName) {
        this.displayName = displayName;
    }

    public String displayName() {
        return displayName;
    }

    /** MPICH and Intel MPI share the Hydra process manager and its flags. */
    public boolean isHydra() {
        return this == MPICH || this == INTEL_MPI;
    }

    /** Open MPI and Spectrum MPI (an Open MPI derivative) take the Open MPI launcher flags. */
    public boolean isOpenMpiFamily() {
        return this == OPEN_MPI || this == SPECTRUM_MPI;
    }
}
