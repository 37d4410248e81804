package org.troika.mpi.spi;

/**
 * A native function pointer that calls back into Java ({@link NativeMpi#reductionFunction}). It stays valid until
 * {@link #close()}; keep this object reachable as long as MPI may call it.
 */
public interface Upcall extends AutoCloseable {
    /** The C function pointer. */
    long address();

    /** Frees the native stub; MPI must not call it afterwards. */
    @Override
    void close();

    /**
     * The body of an {@code MPI_User_function}: {@code void f(void *in, void *inout, int *len, MPI_Datatype *type)},
     * all four as addresses. It must not throw: a backend catches what it throws (a Java exception crossing into C
     * would end the JVM) and hands it to {@link #failed}.
     */
    interface Reduction {
        void reduce(long in, long inout, long len, long datatype);

        /** Called instead of letting {@code t} escape into MPI. */
        void failed(Throwable t);
    }
}
