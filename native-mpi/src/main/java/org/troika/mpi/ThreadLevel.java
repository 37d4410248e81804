package org.troika.mpi;

/** MPI thread support levels, in increasing order; {@link #value()} is the C constant (the same in Open MPI and MPICH). */
public enum ThreadLevel {
    SINGLE,
    FUNNELED,
    SERIALIZED,
    MULTIPLE;

    /** The {@code MPI_THREAD_*} value. */
    public int value() {
        return ordinal();
    }

    /** The level for an {@code MPI_THREAD_*} value. */
    public static ThreadLevel of(int value) {
        if (value < 0 || value >= values().length) {
            throw new IllegalArgumentException("unknown MPI thread level " + value);
        }
        return values()[value];
    }
}
