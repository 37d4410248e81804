package org.troika.mpi;

import java.util.Locale;
import java.util.Map;
import org.troika.common.TroikaEnv;

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

    /**
     * The level named by {@value TroikaEnv#MPI_THREAD_LEVEL} ({@code single}, {@code funneled}, {@code serialized},
     * {@code multiple}, any case), or {@link #SINGLE} when it is unset or empty.
     *
     * @throws IllegalArgumentException for another value
     */
    public static ThreadLevel fromEnv(Map<String, String> env) {
        String v = env.getOrDefault(TroikaEnv.MPI_THREAD_LEVEL, "").strip();
        if (v.isEmpty()) {
            return SINGLE;
        }
        try {
            return valueOf(v.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(TroikaEnv.MPI_THREAD_LEVEL + "='" + v + "' is not a thread level; use"
                    + " single, funneled, serialized or multiple", e);
        }
    }
}
