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
 * ({@code org.troika.mpi.jna}, JDK 17+) and Foreign Function &amp; Memory ({@code org.troika.mpi.ffm}, JDK 22+).
 *
 * <p>Every MPI call troika makes goes through this interface, so a decorator passed to
 * {@code Mpi.init(NativeMpi, ThreadLevel)} sees all of them (the one place for a progress hook or tracing).
 *
 * <p>Statuses come back in an {@code int[]} of at least {@link #STATUS_INTS} elements:
 * {@code {source, tag, error, count}}, the count in elements of the call's datatype. Requests are opaque
 * {@code long} handles, completed (and freed by MPI) by {@link #waitRequest} or a successful {@link #test}.
 *
 * <p><b>Heap arrays.</b> A backend with {@link #heapAccess()} takes Java arrays directly in the {@code ...Heap}
 * methods (FFM critical downcalls: the array cannot move during the call because no GC can run in it); a
 * {@code null} send array there means {@code MPI_IN_PLACE}. Other backends never see arrays: the caller copies them
 * through native memory.
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

    /** {@code MPI_Comm_dup}. */
    long commDup(long comm);

    /** {@code MPI_Comm_compare}: {@code MPI_IDENT} 0, {@code MPI_CONGRUENT} 1, {@code MPI_SIMILAR} 2, {@code MPI_UNEQUAL} 3. */
    int commCompare(long comm1, long comm2);

    /** {@code MPI_Comm_create} (collective over {@code comm}); {@link #commNull()} on ranks outside the group. */
    long commCreate(long comm, long group);

    // ---- groups ----

    long commGroup(long comm);

    int groupSize(long group);

    /** This process's rank in the group, or {@link #undefined()}. */
    int groupRank(long group);

    long groupIncl(long group, int[] ranks);

    long groupExcl(long group, int[] ranks);

    /** The ranks in {@code to} of {@code ranks} of {@code from}; {@link #undefined()} where absent. */
    int[] groupTranslateRanks(long from, int[] ranks, long to);

    void groupFree(long group);

    // ---- point-to-point ----

    /** Size of the {@code int[]} status out-parameter. */
    int STATUS_INTS = 4;

    /** {@code MPI_ANY_SOURCE} (Open MPI -1, MPICH -2). */
    int anySource();

    /** {@code MPI_PROC_NULL} (Open MPI -2, MPICH -1). */
    int procNull();

    /** {@code MPI_ANY_TAG}: -1 in both. */
    default int anyTag() {
        return -1;
    }

    /** {@code MPI_TAG_UB} of the world communicator: the largest tag allowed. */
    int tagUpperBound();

    void send(long buf, int count, long type, int dest, int tag, long comm);

    /** {@code status} may be null ({@code MPI_STATUS_IGNORE}). */
    void recv(long buf, int count, long type, int source, int tag, long comm, int[] status);

    void sendrecv(long send, int sendCount, int dest, int sendTag, long recv, int recvCount, int source, int recvTag,
            long type, long comm, int[] status);

    /** {@code MPI_Probe}; the status count is in elements of {@code type}. */
    void probe(int source, int tag, long comm, long type, int[] status);

    /** {@code MPI_Iprobe}: whether a message is waiting; fills status when it is. */
    boolean iprobe(int source, int tag, long comm, long type, int[] status);

    long isend(long buf, int count, long type, int dest, int tag, long comm);

    long irecv(long buf, int count, long type, int source, int tag, long comm);

    /** {@code MPI_Wait}; {@code type} gives the unit of the status count ({@code status} may be null). */
    void waitRequest(long request, long type, int[] status);

    /** {@code MPI_Test}: true when the request completed (MPI then freed it). */
    boolean test(long request, long type, int[] status);

    /** {@code MPI_Cancel} then the caller waits. */
    void cancel(long request);

    // ---- many requests at once: one native call, nothing allocated per request ----
    //
    // requests[0..count) hold request handles; MPI sets every request it completes (and frees) to requestNull(), and
    // requestNull() entries are inactive (ignored). statuses: null (MPI_STATUSES_IGNORE) or room for STATUS_INTS ints
    // per entry, counts in units of type.

    /** {@code MPI_REQUEST_NULL}. */
    long requestNull();

    /** {@code MPI_Waitall}: statuses[STATUS_INTS * i ...] is request i's. */
    void waitAll(int count, long[] requests, long type, int[] statuses);

    /** {@code MPI_Testall}: true when all completed (then all are freed), false (then none is touched). */
    boolean testAll(int count, long[] requests, long type, int[] statuses);

    /**
     * {@code MPI_Waitany}: the index of the request that completed ({@code status} may be null), or
     * {@link #undefined()} when no request is active.
     */
    int waitAny(int count, long[] requests, long type, int[] status);

    /** {@code MPI_Testany}: like {@link #waitAny}, or -1 when none has completed yet. */
    int testAny(int count, long[] requests, long type, int[] status);

    /**
     * {@code MPI_Waitsome}: how many requests completed, their indices in {@code indices[0..n)} and their statuses at
     * statuses[STATUS_INTS * k ...] for the k-th; {@link #undefined()} when no request is active. {@code indices}
     * has room for {@code count}.
     */
    int waitSome(int count, long[] requests, int[] indices, long type, int[] statuses);

    /** {@code MPI_Testsome}: like {@link #waitSome}, 0 when none has completed yet. */
    int testSome(int count, long[] requests, int[] indices, long type, int[] statuses);

    // ---- more collectives ----

    void reduce(long send, long recv, int count, long type, long op, int root, long comm);

    void gather(long send, int sendCount, long recv, int recvCount, long type, int root, long comm);

    /** {@code recvCounts}, {@code displs}: {@code int} arrays of the communicator's size (read at the root only). */
    void gatherv(long send, int sendCount, long recv, int[] recvCounts, int[] displs, long type, int root, long comm);

    void scatter(long send, int sendCount, long recv, int recvCount, long type, int root, long comm);

    void scatterv(long send, int[] sendCounts, int[] displs, long recv, int recvCount, long type, int root, long comm);

    void scan(long send, long recv, int count, long type, long op, long comm);

    void exscan(long send, long recv, int count, long type, long op, long comm);

    long ibarrier(long comm);

    long iallreduce(long send, long recv, int count, long type, long op, long comm);

    long ibcast(long buf, int count, long type, int root, long comm);

    long iallgather(long send, int sendCount, long recv, int recvCount, long type, long comm);

    // ---- heap arrays (backends with heapAccess() only) ----

    /** Whether the {@code ...Heap} methods take Java arrays without a copy. */
    default boolean heapAccess() {
        return false;
    }

    default void allreduceHeap(Object send, Object recv, int count, long type, long op, long comm) {
        throw new UnsupportedOperationException("no heap access in " + getClass().getSimpleName());
    }

    default void bcastHeap(Object buf, int count, long type, int root, long comm) {
        throw new UnsupportedOperationException("no heap access in " + getClass().getSimpleName());
    }

    default void allgatherHeap(Object send, int sendCount, Object recv, int recvCount, long type, long comm) {
        throw new UnsupportedOperationException("no heap access in " + getClass().getSimpleName());
    }

    default void reduceHeap(Object send, Object recv, int count, long type, long op, int root, long comm) {
        throw new UnsupportedOperationException("no heap access in " + getClass().getSimpleName());
    }

    default void gatherHeap(Object send, int sendCount, Object recv, int recvCount, long type, int root, long comm) {
        throw new UnsupportedOperationException("no heap access in " + getClass().getSimpleName());
    }

    default void scatterHeap(Object send, int sendCount, Object recv, int recvCount, long type, int root, long comm) {
        throw new UnsupportedOperationException("no heap access in " + getClass().getSimpleName());
    }

    default void scanHeap(Object send, Object recv, int count, long type, long op, boolean exclusive, long comm) {
        throw new UnsupportedOperationException("no heap access in " + getClass().getSimpleName());
    }

    default void alltoallHeap(Object send, int count, Object recv, long type, long comm) {
        throw new UnsupportedOperationException("no heap access in " + getClass().getSimpleName());
    }

    default void reduceScatterBlockHeap(Object send, Object recv, int recvCount, long type, long op, long comm) {
        throw new UnsupportedOperationException("no heap access in " + getClass().getSimpleName());
    }

    /** The native address of a direct buffer's first element (index 0, not its position). */
    long address(java.nio.Buffer direct);

    void allreduce(long send, long recv, int count, long type, long op, long comm);

    void bcast(long buf, int count, long type, int root, long comm);

    void allgather(long send, int sendCount, long recv, int recvCount, long type, long comm);

    /** {@code recvCounts} and {@code displs} are addresses of {@code int} arrays of the communicator's size. */
    void allgatherv(long send, int sendCount, long recv, long recvCounts, long displs, long type, long comm);

    void alltoall(long send, int count, long recv, long type, long comm);

    void reduceScatterBlock(long send, long recv, int recvCount, long type, long op, long comm);

    double wtime();

    /** {@code MPI_Query_thread}. */
    int queryThread();

    String libraryVersion();

    /** {@code MPI_Error_string} of a code; never throws. */
    String errorString(int code);

    void abort(long comm, int code);

    // ---- everything else, by name (the drop-in mpi package) ----

    /**
     * {@code MPI_Recv} with the native {@code MPI_Status} written to {@code status}, an address of at least
     * {@link MpiAbi#STATUS_BYTES} bytes, or the ABI's {@code MPI_STATUS_IGNORE} value.
     */
    default void recvStatus(long buf, int count, long type, int source, int tag, long comm, long status) {
        throw unsupported("recvStatus");
    }

    /**
     * A function of the library by its C name, with the argument kinds of {@link NativeFunction}'s signature letters.
     *
     * @throws UnsatisfiedLinkError when the library does not export it
     */
    default NativeFunction function(String name, String signature) {
        throw unsupported("function");
    }

    /**
     * A predefined handle or pointer constant by its {@code mpi.h} name ({@code MPI_COMM_SELF}, {@code MPI_2INT},
     * {@code MPI_ERRORS_ARE_FATAL}, {@code MPI_UNWEIGHTED}, ...): the address of Open MPI's global object, MPICH's
     * fixed value.
     *
     * @throws IllegalArgumentException when this ABI has no such name
     */
    default long predefined(String name) {
        throw unsupported("predefined");
    }

    /** A direct buffer over {@code bytes} bytes of native memory at {@code address} (memory MPI gave out). */
    default java.nio.ByteBuffer memory(long address, int bytes) {
        throw unsupported("memory");
    }

    /** A native {@code MPI_User_function} pointer that runs {@code body}. */
    default Upcall reductionFunction(Upcall.Reduction body) {
        throw unsupported("reductionFunction");
    }

    private UnsupportedOperationException unsupported(String what) {
        return new UnsupportedOperationException(what + " is not supported by " + getClass().getSimpleName());
    }
}
