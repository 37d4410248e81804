package org.troika.mpi.spi;

import org.troika.mpi.Datatype;
import org.troika.mpi.Op;

/**
 * The native MPI layer: one C library, with its handle ABI hidden behind {@code long}s.
 *
 * <p>Handles (communicators, datatypes, ops) are opaque {@code long}s: addresses of global objects for Open MPI,
 * 32-bit integers for MPICH-derived libraries. Buffers are raw native addresses. Every method checks the MPI return
 * code and throws {@link org.troika.mpi.MpiException} with MPI's error string; none validates its arguments, which
 * is the caller's job ({@link org.troika.mpi.Communicator} does it). Implementations: JNA direct mapping
 * ({@code org.troika.mpi.jna}); a Foreign Function &amp; Memory backend (JDK 22+) can implement the same interface.
 *
 * <p>Threading: as allowed by the thread level MPI was initialised with.
 */
public interface NativeMpi {

    /** The library file or soname that was loaded. */
    String libraryName();

    /** {@code "open-mpi"} or {@code "mpich"} (also Intel MPI and other MPICH-ABI libraries). */
    String abi();

    boolean initialized();

    boolean finalized();

    /** {@code MPI_Init_thread(NULL, NULL, required, &provided)}; returns the provided level. */
    int initThread(int required);

    void finalizeMpi();

    long commWorld();

    long commNull();

    /** The {@code MPI_IN_PLACE} sentinel address. */
    long inPlace();

    long datatype(Datatype type);

    long op(Op op);

    /** {@code MPI_UNDEFINED}. */
    int undefined();

    int commRank(long comm);

    int commSize(long comm);

    /** {@code MPI_Comm_split}; returns {@link #commNull()} for a color of {@link #undefined()}. */
    long commSplit(long comm, int color, int key);

    /** {@code MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, key, MPI_INFO_NULL)}: the ranks sharing memory. */
    long commSplitShared(long comm, int key);

    void commFree(long comm);

    /** Sets {@code MPI_ERRORS_RETURN} on the communicator. */
    void setErrorsReturn(long comm);

    void barrier(long comm);

    void allreduce(long send, long recv, int count, long type, long op, long comm);

    void bcast(long buf, int count, long type, int root, long comm);

    void allgather(long send, int sendCount, long recv, int recvCount, long type, long comm);

    /** {@code recvCounts} and {@code displs} are addresses of {@code int} arrays of the communicator's size. */
    void allgatherv(long send, int sendCount, long recv, long recvCounts, long displs, long type, long comm);

    void alltoall(long send, int count, long recv, long type, long comm);

    void reduceScatterBlock(long send, long recv, int recvCount, long type, long op, long comm);

    double wtime();

    String libraryVersion();

    /** {@code MPI_Error_string} of a code; never throws. */
    String errorString(int code);

    void abort(long comm, int code);
}
