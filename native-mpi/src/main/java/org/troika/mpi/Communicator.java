package org.troika.mpi;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.lang.reflect.Array;
import java.nio.Buffer;
import java.util.Objects;
import java.util.function.Function;
import org.troika.mpi.spi.NativeMpi;

/**
 * An MPI communicator with collectives on Java arrays, direct NIO buffers and raw native addresses.
 *
 * <p>Arguments are checked in Java before MPI sees them (lengths, buffer kinds, byte order, roots), so a bad call
 * throws {@link IllegalArgumentException} on the calling rank instead of crashing the JVM or hanging the job; MPI's
 * own errors surface as {@link MpiException}. All ranks of the communicator must call a collective with matching
 * arguments, as in MPI.
 *
 * <p>Java arrays go through a per-thread native staging area (copied in and out); direct buffers and raw addresses are
 * passed to MPI as they are, which is the fast path for large or frequent collectives. Buffers are used from their
 * position to their limit; their positions are not changed. Thread safety follows the MPI thread level.
 */
public final class Communicator implements AutoCloseable {
    /** The color that leaves a rank out of {@link #split}'s result ({@code MPI_UNDEFINED}). */
    public static final int UNDEFINED = -32766;

    private final NativeMpi mpi;
    private final ThreadLocal<Staging> staging;
    private final long handle;
    private final boolean owned;
    private final int rank;
    private final int size;
    private BufferAddress recent0; // see address(): racy by design
    private BufferAddress recent1;
    private Communicator local; // guarded by this
    private boolean freed; // guarded by this

    Communicator(NativeMpi mpi, ThreadLocal<Staging> staging, long handle, boolean owned) {
        this.mpi = mpi;
        this.staging = staging;
        this.handle = handle;
        this.owned = owned;
        this.rank = mpi.commRank(handle);
        this.size = mpi.commSize(handle);
    }

    public int rank() {
        return rank;
    }

    public int size() {
        return size;
    }

    /** The native handle (a pointer for Open MPI, an int for MPICH), for calls this class does not wrap. */
    public long handle() {
        return handle;
    }

    /** The ranks of this communicator that share memory with this one (same node), ordered by rank. */
    public synchronized Communicator local() {
        if (local == null) {
            long h = mpi.commSplitShared(handle, rank);
            mpi.setErrorsReturn(h);
            local = new Communicator(mpi, staging, h, true);
        }
        return local;
    }

    /** This rank's index among the ranks on its node. */
    public int localRank() {
        return local().rank();
    }

    /** How many ranks of this communicator run on this rank's node. */
    public int localSize() {
        return local().size();
    }

    /**
     * {@code MPI_Comm_split}: ranks with the same color form a new communicator, ordered by key then by rank.
     * Collective. Returns {@code null} on ranks that pass {@link #UNDEFINED}. Close the result when done.
     */
    public Communicator split(int color, int key) {
        long h = mpi.commSplit(handle, color, key);
        if (h == mpi.commNull()) {
            return null;
        }
        mpi.setErrorsReturn(h);
        return new Communicator(mpi, staging, h, true);
    }

    /** A new owned communicator over {@code newHandle} (e.g. from {@link Ulfm#shrink}), with errors returned. */
    Communicator derived(long newHandle) {
        mpi.setErrorsReturn(newHandle);
        return new Communicator(mpi, staging, newHandle, true);
    }

    /** Frees a communicator made by {@link #split} or {@link #local()}; the world communicator is left alone. */
    @Override
    public synchronized void close() {
        if (local != null) {
            local.close();
            local = null;
        }
        if (owned && !freed) {
            freed = true;
            mpi.commFree(handle);
        }
    }

    public void barrier() {
        mpi.barrier(handle);
    }

    // ---- allreduce ----

    public void allreduce(float[] in, float[] out, Op op) {
        reduceArray(in, out, op);
    }

    public void allreduce(double[] in, double[] out, Op op) {
        reduceArray(in, out, op);
    }

    public void allreduce(int[] in, int[] out, Op op) {
        reduceArray(in, out, op);
    }

    public void allreduce(long[] in, long[] out, Op op) {
        reduceArray(in, out, op);
    }

    /** In place: {@code data} holds the result afterwards. */
    public void allreduce(float[] data, Op op) {
        reduceArray(data, data, op);
    }

    public void allreduce(double[] data, Op op) {
        reduceArray(data, data, op);
    }

    public void allreduce(int[] data, Op op) {
        reduceArray(data, data, op);
    }

    public void allreduce(long[] data, Op op) {
        reduceArray(data, data, op);
    }

    /** In place on a direct float/double/int/long buffer, over its remaining elements. */
    public void allreduce(Buffer data, Op op) {
        Datatype type = numeric(HeapArrays.type(data, "data"));
        writable(data, "data");
        allreduceUnchecked(mpi.inPlace(), address(data, type), data.remaining(), type, op);
    }

    /** From {@code send} into {@code recv}: direct buffers of one element type with equal remaining elements. */
    public void allreduce(Buffer send, Buffer recv, Op op) {
        Datatype type = numeric(sameType(send, recv));
        writable(recv, "recv");
        sameLength(send.remaining(), recv.remaining(), "send", "recv");
        allreduceUnchecked(address(send, type), address(recv, type), send.remaining(), type, op);
    }

    /**
     * On native memory given by address, e.g. GPU device memory for a CUDA-aware MPI. Nothing about the memory can
     * be checked: it must hold {@code count} elements at both addresses.
     */
    public void allreduce(long send, long recv, int count, Datatype type, Op op) {
        checkAddress(send, count, "send");
        checkAddress(recv, count, "recv");
        allreduceUnchecked(send, recv, count, numeric(type), op);
    }

    /** In place on native memory given by address; see {@link #allreduce(long, long, int, Datatype, Op)}. */
    public void allreduceInPlace(long address, int count, Datatype type, Op op) {
        checkAddress(address, count, "address");
        allreduceUnchecked(mpi.inPlace(), address, count, numeric(type), op);
    }

    private void reduceArray(Object in, Object out, Op op) {
        Datatype type = sameType(in, out);
        int n = HeapArrays.length(in);
        sameLength(n, HeapArrays.length(out), "in", "out");
        Staging s = staging.get();
        long base = s.ensure((long) n * type.bytes());
        s.put(in, 0, n, 0);
        allreduceUnchecked(mpi.inPlace(), base, n, type, op);
        s.get(0, out, 0, n);
    }

    void allreduceUnchecked(long send, long recv, int count, Datatype type, Op op) {
        mpi.allreduce(send, recv, count, mpi.datatype(type), mpi.op(Objects.requireNonNull(op, "op")), handle);
    }

    // ---- broadcast ----

    /** Root's {@code data} is copied into every other rank's {@code data}; all ranks pass the same length. */
    public void broadcast(float[] data, int root) {
        broadcastArray(data, root);
    }

    public void broadcast(double[] data, int root) {
        broadcastArray(data, root);
    }

    public void broadcast(int[] data, int root) {
        broadcastArray(data, root);
    }

    public void broadcast(long[] data, int root) {
        broadcastArray(data, root);
    }

    public void broadcast(byte[] data, int root) {
        broadcastArray(data, root);
    }

    /** Over a direct buffer's remaining elements; all ranks pass the same count. */
    public void broadcast(Buffer data, int root) {
        Datatype type = HeapArrays.type(data, "data");
        checkRoot(root);
        if (rank != root) {
            writable(data, "data");
        }
        mpi.bcast(address(data, type), data.remaining(), mpi.datatype(type), root, handle);
    }

    /** On native memory given by address (e.g. GPU memory with a CUDA-aware MPI). */
    public void broadcast(long address, int count, Datatype type, int root) {
        checkAddress(address, count, "address");
        checkRoot(root);
        mpi.bcast(address, count, mpi.datatype(Objects.requireNonNull(type, "type")), root, handle);
    }

    /**
     * Broadcasts a byte array whose length only the root knows (e.g. serialized training state): the length goes
     * first, then the bytes. {@code data} is ignored on other ranks (may be null). Returns the root's bytes.
     */
    public byte[] broadcastBytes(byte[] data, int root) {
        checkRoot(root);
        int[] length = {rank == root ? Objects.requireNonNull(data, "data on the root").length : 0};
        broadcastArray(length, root);
        byte[] result = rank == root ? data : new byte[length[0]];
        broadcastArray(result, root);
        return result;
    }

    /** Broadcasts a value from the root with the caller's encoding (no Java serialization); see {@link #broadcastBytes}. */
    public <T> T broadcast(T value, Function<T, byte[]> encode, Function<byte[], T> decode, int root) {
        checkRoot(root);
        byte[] bytes = broadcastBytes(rank == root ? encode.apply(value) : null, root);
        return rank == root ? value : decode.apply(bytes);
    }

    private void broadcastArray(Object data, int root) {
        Datatype type = HeapArrays.type(data);
        checkRoot(root);
        int n = HeapArrays.length(data);
        Staging s = staging.get();
        long base = s.ensure((long) n * type.bytes());
        if (rank == root) {
            s.put(data, 0, n, 0);
        }
        mpi.bcast(base, n, mpi.datatype(type), root, handle);
        if (rank != root) {
            s.get(0, data, 0, n);
        }
    }

    // ---- allgather, allgatherv, alltoall, reduce-scatter ----

    /** Every rank's {@code send} lands in {@code recv} at {@code rank * send.length}; recv is size × send long. */
    public void allgather(float[] send, float[] recv) {
        gatherArray(send, recv);
    }

    public void allgather(double[] send, double[] recv) {
        gatherArray(send, recv);
    }

    public void allgather(int[] send, int[] recv) {
        gatherArray(send, recv);
    }

    public void allgather(long[] send, long[] recv) {
        gatherArray(send, recv);
    }

    /** Concatenates every rank's {@code send} (lengths may differ) in rank order. */
    public float[] allgatherv(float[] send) {
        return (float[]) gathervArray(send);
    }

    public double[] allgatherv(double[] send) {
        return (double[]) gathervArray(send);
    }

    public int[] allgatherv(int[] send) {
        return (int[]) gathervArray(send);
    }

    public long[] allgatherv(long[] send) {
        return (long[]) gathervArray(send);
    }

    /** Block {@code j} of {@code send} goes to rank {@code j}, block {@code i} of {@code recv} came from rank i. */
    public void alltoall(float[] send, float[] recv) {
        alltoallArray(send, recv);
    }

    public void alltoall(double[] send, double[] recv) {
        alltoallArray(send, recv);
    }

    public void alltoall(int[] send, int[] recv) {
        alltoallArray(send, recv);
    }

    public void alltoall(long[] send, long[] recv) {
        alltoallArray(send, recv);
    }

    /** Reduces {@code send} (size × recv long) across ranks; rank i receives block i of the result. */
    public void reduceScatterBlock(float[] send, float[] recv, Op op) {
        reduceScatterArray(send, recv, op);
    }

    public void reduceScatterBlock(double[] send, double[] recv, Op op) {
        reduceScatterArray(send, recv, op);
    }

    public void reduceScatterBlock(int[] send, int[] recv, Op op) {
        reduceScatterArray(send, recv, op);
    }

    public void reduceScatterBlock(long[] send, long[] recv, Op op) {
        reduceScatterArray(send, recv, op);
    }

    private void gatherArray(Object send, Object recv) {
        Datatype type = sameType(send, recv);
        int n = HeapArrays.length(send);
        sameLength((long) n * size, HeapArrays.length(recv), "size × send", "recv");
        Staging s = staging.get();
        long sendBytes = align((long) n * type.bytes());
        long base = s.ensure(sendBytes + (long) n * size * type.bytes());
        s.put(send, 0, n, 0);
        mpi.allgather(base, n, base + sendBytes, n, mpi.datatype(type), handle);
        s.get(sendBytes, recv, 0, n * size);
    }

    private Object gathervArray(Object send) {
        Datatype type = HeapArrays.type(send);
        int n = HeapArrays.length(send);
        int[] counts = new int[size];
        gatherArray(new int[] {n}, counts);
        try (Memory countsAndDispls = new Memory(8L * size)) {
            long total = 0;
            for (int i = 0; i < size; i++) {
                countsAndDispls.setInt(4L * i, counts[i]);
                countsAndDispls.setInt(4L * (size + i), (int) total);
                total += counts[i];
            }
            if (total > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("allgatherv result of " + total + " elements exceeds a Java array");
            }
            Object recv = Array.newInstance(send.getClass().getComponentType(), (int) total);
            Staging s = staging.get();
            long sendBytes = align((long) n * type.bytes());
            long base = s.ensure(sendBytes + total * type.bytes());
            s.put(send, 0, n, 0);
            long table = Pointer.nativeValue(countsAndDispls);
            mpi.allgatherv(base, n, base + sendBytes, table, table + 4L * size, mpi.datatype(type), handle);
            s.get(sendBytes, recv, 0, (int) total);
            return recv;
        }
    }

    private void alltoallArray(Object send, Object recv) {
        Datatype type = sameType(send, recv);
        int n = HeapArrays.length(send);
        sameLength(n, HeapArrays.length(recv), "send", "recv");
        if (n % size != 0) {
            throw new IllegalArgumentException("alltoall needs a length divisible by the communicator size " + size
                    + "; got " + n);
        }
        Staging s = staging.get();
        long bytes = align((long) n * type.bytes());
        long base = s.ensure(2 * bytes);
        s.put(send, 0, n, 0);
        mpi.alltoall(base, n / size, base + bytes, mpi.datatype(type), handle);
        s.get(bytes, recv, 0, n);
    }

    private void reduceScatterArray(Object send, Object recv, Op op) {
        Datatype type = numeric(sameType(send, recv));
        int n = HeapArrays.length(recv);
        sameLength((long) n * size, HeapArrays.length(send), "size × recv", "send");
        Staging s = staging.get();
        long sendBytes = align((long) n * size * type.bytes());
        long base = s.ensure(sendBytes + (long) n * type.bytes());
        s.put(send, 0, n * size, 0);
        mpi.reduceScatterBlock(base, base + sendBytes, n, mpi.datatype(type), mpi.op(Objects.requireNonNull(op, "op")),
                handle);
        s.get(sendBytes, recv, 0, n);
    }

    // ---- checks ----

    private static long align(long bytes) {
        return (bytes + 63) & ~63L;
    }

    private static Datatype sameType(Object a, Object b) {
        Datatype ta = a instanceof Buffer ba ? HeapArrays.type(ba, "send") : HeapArrays.type(a);
        Datatype tb = b instanceof Buffer bb ? HeapArrays.type(bb, "recv") : HeapArrays.type(b);
        if (ta != tb) {
            throw new IllegalArgumentException("send holds " + ta + " but recv holds " + tb + ": use one element type");
        }
        return ta;
    }

    private static Datatype numeric(Datatype type) {
        if (Objects.requireNonNull(type, "type") == Datatype.BYTE) {
            throw new IllegalArgumentException("reductions need a numeric type, not BYTE: view the bytes as "
                    + "int/long/float/double");
        }
        return type;
    }

    private static void sameLength(long expected, long actual, String what, String other) {
        if (expected != actual) {
            throw new IllegalArgumentException(what + " has " + expected + " elements but " + other + " has " + actual
                    + ": they must match");
        }
    }

    private static void writable(Buffer buffer, String name) {
        if (buffer.isReadOnly()) {
            throw new IllegalArgumentException(name + " is read-only but receives the result");
        }
    }

    private static void checkAddress(long address, int count, String name) {
        if (count < 0) {
            throw new IllegalArgumentException("count is " + count + ": it must be >= 0");
        }
        if (address == 0 && count > 0) {
            throw new IllegalArgumentException(name + " is a null address for " + count + " elements");
        }
    }

    private void checkRoot(int root) {
        if (root < 0 || root >= size) {
            throw new IllegalArgumentException("root " + root + " is not a rank of this communicator (0.." + (size - 1)
                    + ")");
        }
    }

    /**
     * The address of a direct buffer's position. The base address of a buffer object never changes, so the last two
     * buffers seen are remembered: training loops reuse the same buffers every step, and this saves two JNI calls
     * per call. It keeps those two buffers reachable until others replace them. Races only lose a cache entry:
     * entries are immutable.
     */
    private long address(Buffer buffer, Datatype type) {
        BufferAddress a = recent0;
        if (a == null || a.buffer != buffer) {
            a = recent1;
            if (a == null || a.buffer != buffer) {
                a = new BufferAddress(buffer, Pointer.nativeValue(Native.getDirectBufferPointer(buffer)));
                recent1 = recent0;
                recent0 = a;
            }
        }
        return a.base + (long) buffer.position() * type.bytes();
    }

    private record BufferAddress(Buffer buffer, long base) {}
}
