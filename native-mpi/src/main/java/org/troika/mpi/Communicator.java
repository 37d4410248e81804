package org.troika.mpi;

import java.lang.reflect.Array;
import java.nio.Buffer;
import java.util.Objects;
import java.util.function.Function;
import org.troika.mpi.spi.BufferAddresses;
import org.troika.mpi.spi.NativeMpi;

/**
 * An MPI communicator: point-to-point, blocking and non-blocking collectives on Java arrays, direct NIO buffers and
 * raw native addresses, and communicator management (dup, split, groups).
 *
 * <p>Arguments are checked in Java before MPI sees them (lengths, buffer kinds, byte order, ranks, tags), so a bad
 * call throws {@link IllegalArgumentException} on the calling rank instead of crashing the JVM or hanging the job;
 * MPI's own errors surface as {@link MpiException}. All ranks of the communicator must call a collective with
 * matching arguments, as in MPI.
 *
 * <p><b>Memory.</b> Direct buffers (used from their position to their limit; positions are not changed) and raw
 * addresses go to MPI as they are. Java arrays in blocking collectives go to MPI without a copy on the FFM backend
 * (JDK 22+; critical downcalls: no GC can start in this JVM until the call returns), and through a per-thread
 * native staging copy on JNA, in blocking point-to-point calls, and with {@code TROIKA_MPI_HEAP=copy}. Non-blocking
 * calls on arrays copy them into native memory owned by the {@link Request} (the GC may move an array while MPI
 * works on it), and copy results back when the request completes. Thread safety follows the MPI thread level.
 */
public final class Communicator implements AutoCloseable {
    /** The color that leaves a rank out of {@link #split}'s result, and a group rank of a non-member. */
    public static final int UNDEFINED = -32766;
    /** Receive from any rank ({@code MPI_ANY_SOURCE}; translated to the library's value). */
    public static final int ANY_SOURCE = -1;
    /** The null process ({@code MPI_PROC_NULL}; translated): sends to it and receives from it do nothing. */
    public static final int PROC_NULL = -2;
    /** Receive any tag ({@code MPI_ANY_TAG}). */
    public static final int ANY_TAG = -1;

    /**
     * Arrays larger than this go through the staging copy (JNA, {@code TROIKA_MPI_HEAP=copy}) of allreduce and
     * broadcast in pieces of this many bytes: each piece is copied in, passed to MPI and copied out while it is still
     * in cache. Measured on JNA (bench/large.sh): a 16 MiB float[] allreduce cost 1.26x a direct buffer's in one
     * piece, 0.98x in 1 MiB pieces. Every rank cuts an array the same way, so the calls match.
     */
    static final int STAGING_CHUNK = 1 << 20;

    /** {@link #compare}'s results, in {@code MPI_IDENT}.. {@code MPI_UNEQUAL} order. */
    public enum Comparison { IDENT, CONGRUENT, SIMILAR, UNEQUAL }

    private final Context ctx;
    private final NativeMpi mpi;
    private final long handle;
    private final boolean owned;
    private final int rank;
    private final int size;
    private final BufferAddresses addresses;
    private Communicator local; // guarded by this
    private boolean freed; // guarded by this

    Communicator(Context ctx, long handle, boolean owned) {
        this.ctx = ctx;
        this.mpi = ctx.mpi;
        this.addresses = new BufferAddresses(ctx.mpi);
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

    /** The largest tag MPI accepts ({@code MPI_TAG_UB}, at least 32767). */
    public int tagUpperBound() {
        return ctx.tagUpperBound;
    }

    // ---- communicators and groups ----

    /** The ranks of this communicator that share memory with this one (same node), ordered by rank. */
    public synchronized Communicator local() {
        if (local == null) {
            long h = mpi.commSplitShared(handle, rank);
            mpi.setErrorsReturn(h);
            local = new Communicator(ctx, h, true);
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
        if (color < 0 && color != UNDEFINED) {
            throw new IllegalArgumentException("color " + color + " is negative: use >= 0, or UNDEFINED to stay out");
        }
        return wrap(mpi.commSplit(handle, color, key));
    }

    /**
     * {@code MPI_Comm_spawn}: starts {@code request.count()} processes of {@code request}'s command and returns the
     * inter-communicator to them (they find it with {@link Mpi#parent()}); {@link Intercommunicator#merge} makes one
     * communicator of both. Collective over this communicator: only {@code root}'s request counts, every rank returns
     * when the children have called {@code MPI_Init}. Where the processes go is the launcher's business, steered by
     * the info keys (Open MPI 5: {@code PMIX_ADD_HOST} for hosts the job does not have yet, {@code host},
     * {@code PMIX_ENVAR}); not every MPI can do it (see docs/elastic.md).
     *
     * @throws MpiException when MPI fails the spawn or any process did not start
     */
    public Intercommunicator spawn(Spawn request, int root) {
        Objects.requireNonNull(request, "request");
        if (root < 0 || root >= size) {
            throw new IllegalArgumentException("root " + root + " is not a rank of this communicator of " + size);
        }
        return new Intercommunicator(ctx, DynamicProcesses.of(mpi).spawn(request, root, handle));
    }

    /**
     * {@code MPI_Intercomm_create}: the inter-communicator between this communicator's ranks and another group, built
     * through the two groups' leaders: {@code localLeader} here, {@code remoteLeader} as a rank of {@code peer}, a
     * communicator holding both leaders ({@code peer} and {@code remoteLeader} count at the local leader only; the
     * other ranks may pass this communicator). Collective over both groups; the two sides pass the same {@code tag}.
     * Close the result when done.
     */
    public Intercommunicator intercommCreate(int localLeader, Communicator peer, int remoteLeader, int tag) {
        Objects.requireNonNull(peer, "peer");
        if (localLeader < 0 || localLeader >= size) {
            throw new IllegalArgumentException("local leader " + localLeader + " is not a rank of this communicator of "
                    + size);
        }
        if (rank == localLeader && (remoteLeader < 0 || remoteLeader >= peer.size())) {
            throw new IllegalArgumentException("remote leader " + remoteLeader + " is not a rank of the peer "
                    + "communicator of " + peer.size());
        }
        if (tag < 0) {
            throw new IllegalArgumentException("tag " + tag + " is negative: use a tag >= 0");
        }
        return new Intercommunicator(ctx, DynamicProcesses.of(mpi).intercommCreate(handle, localLeader, peer.handle,
                remoteLeader, tag));
    }

    /** {@code MPI_Comm_dup}: the same ranks in a new communication context. Collective. Close it when done. */
    public Communicator dup() {
        return wrap(mpi.commDup(handle));
    }

    /** {@code MPI_Comm_group}: this communicator's ranks as a group. Close it when done. */
    public Group group() {
        return new Group(mpi, mpi.commGroup(handle));
    }

    /**
     * {@code MPI_Comm_create}: a communicator of the group's processes (a subset of this one's). Collective over
     * this communicator, every rank passing the same group; {@code null} on ranks outside it. Close it when done.
     */
    public Communicator create(Group group) {
        return wrap(mpi.commCreate(handle, Objects.requireNonNull(group, "group").handle()));
    }

    /** {@code MPI_Comm_compare}. */
    public Comparison compare(Communicator other) {
        return Comparison.values()[mpi.commCompare(handle, Objects.requireNonNull(other, "other").handle)];
    }

    private Communicator wrap(long h) {
        if (h == mpi.commNull()) {
            return null;
        }
        mpi.setErrorsReturn(h);
        return new Communicator(ctx, h, true);
    }

    /** A new owned communicator over {@code newHandle} (e.g. from {@link Ulfm#shrink}), with errors returned. */
    Communicator derived(long newHandle) {
        mpi.setErrorsReturn(newHandle);
        return new Communicator(ctx, newHandle, true);
    }

    /** Frees a communicator made by split, dup, create or {@link #local()}; the world communicator is left alone. */
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

    /** {@code MPI_Ibarrier}. */
    public Request ibarrier() {
        return new Request(ctx, mpi.ibarrier(handle), null, null, false);
    }

    // ---- point-to-point: blocking ----

    public void send(float[] data, int dest, int tag) {
        sendArray(data, data.length, Datatype.FLOAT, dest, tag);
    }

    public void send(double[] data, int dest, int tag) {
        sendArray(data, data.length, Datatype.DOUBLE, dest, tag);
    }

    public void send(int[] data, int dest, int tag) {
        sendArray(data, data.length, Datatype.INT, dest, tag);
    }

    public void send(long[] data, int dest, int tag) {
        sendArray(data, data.length, Datatype.LONG, dest, tag);
    }

    public void send(byte[] data, int dest, int tag) {
        sendArray(data, data.length, Datatype.BYTE, dest, tag);
    }

    /** Sends a direct buffer's remaining elements. */
    public void send(Buffer data, int dest, int tag) {
        Datatype type = HeapArrays.type(data, "data");
        mpi.send(address(data, type), data.remaining(), type(type), peer(dest, false), tag(tag, false), handle);
    }

    /** Sends {@code count} elements at a native address (e.g. device memory with a CUDA-aware MPI). */
    public void send(long address, int count, Datatype type, int dest, int tag) {
        checkAddress(address, count, "address");
        mpi.send(address, count, type(type), peer(dest, false), tag(tag, false), handle);
    }

    /** Receives into {@code data} (at most its length; the status tells how much came). */
    public Status recv(float[] data, int source, int tag) {
        return recvArray(data, data.length, Datatype.FLOAT, source, tag);
    }

    public Status recv(double[] data, int source, int tag) {
        return recvArray(data, data.length, Datatype.DOUBLE, source, tag);
    }

    public Status recv(int[] data, int source, int tag) {
        return recvArray(data, data.length, Datatype.INT, source, tag);
    }

    public Status recv(long[] data, int source, int tag) {
        return recvArray(data, data.length, Datatype.LONG, source, tag);
    }

    public Status recv(byte[] data, int source, int tag) {
        return recvArray(data, data.length, Datatype.BYTE, source, tag);
    }

    /** Receives into a direct buffer's remaining elements. */
    public Status recv(Buffer data, int source, int tag) {
        Datatype type = HeapArrays.type(data, "data");
        writable(data, "data");
        int[] s = new int[NativeMpi.STATUS_INTS];
        mpi.recv(address(data, type), data.remaining(), type(type), peer(source, true), tag(tag, true), handle, s);
        return status(s, type);
    }

    /** Receives up to {@code count} elements at a native address. */
    public Status recv(long address, int count, Datatype type, int source, int tag) {
        checkAddress(address, count, "address");
        int[] s = new int[NativeMpi.STATUS_INTS];
        mpi.recv(address, count, type(type), peer(source, true), tag(tag, true), handle, s);
        return status(s, type);
    }

    /**
     * Like {@link #recv(Buffer, int, int)} without building a {@link Status} ({@code MPI_STATUS_IGNORE}): the
     * cheapest receive, for latency-bound loops.
     */
    public void recvIgnoreStatus(Buffer data, int source, int tag) {
        Datatype type = HeapArrays.type(data, "data");
        writable(data, "data");
        mpi.recv(address(data, type), data.remaining(), type(type), peer(source, true), tag(tag, true), handle, null);
    }

    /** {@code MPI_Sendrecv}: sends {@code send} to {@code dest} while receiving into {@code recv}. */
    public Status sendrecv(float[] send, int dest, int sendTag, float[] recv, int source, int recvTag) {
        return sendrecvArray(send, send.length, dest, sendTag, recv, recv.length, source, recvTag, Datatype.FLOAT);
    }

    public Status sendrecv(double[] send, int dest, int sendTag, double[] recv, int source, int recvTag) {
        return sendrecvArray(send, send.length, dest, sendTag, recv, recv.length, source, recvTag, Datatype.DOUBLE);
    }

    public Status sendrecv(int[] send, int dest, int sendTag, int[] recv, int source, int recvTag) {
        return sendrecvArray(send, send.length, dest, sendTag, recv, recv.length, source, recvTag, Datatype.INT);
    }

    public Status sendrecv(long[] send, int dest, int sendTag, long[] recv, int source, int recvTag) {
        return sendrecvArray(send, send.length, dest, sendTag, recv, recv.length, source, recvTag, Datatype.LONG);
    }

    public Status sendrecv(byte[] send, int dest, int sendTag, byte[] recv, int source, int recvTag) {
        return sendrecvArray(send, send.length, dest, sendTag, recv, recv.length, source, recvTag, Datatype.BYTE);
    }

    /** On direct buffers of one element type (their remaining elements). */
    public Status sendrecv(Buffer send, int dest, int sendTag, Buffer recv, int source, int recvTag) {
        Datatype type = sameType(send, recv);
        writable(recv, "recv");
        int[] s = new int[NativeMpi.STATUS_INTS];
        mpi.sendrecv(address(send, type), send.remaining(), peer(dest, false), tag(sendTag, false),
                address(recv, type), recv.remaining(), peer(source, true), tag(recvTag, true), type(type), handle, s);
        return status(s, type);
    }

    /** {@code MPI_Probe}: blocks until a matching message is waiting; its status tells its size. */
    public Status probe(int source, int tag) {
        int[] s = new int[NativeMpi.STATUS_INTS];
        mpi.probe(peer(source, true), tag(tag, true), handle, ctx.byteType, s);
        return status(s, Datatype.BYTE);
    }

    /** {@code MPI_Iprobe}: the status of a matching waiting message, or null when there is none. */
    public Status iprobe(int source, int tag) {
        int[] s = new int[NativeMpi.STATUS_INTS];
        return mpi.iprobe(peer(source, true), tag(tag, true), handle, ctx.byteType, s) ? status(s, Datatype.BYTE) : null;
    }

    private void sendArray(Object data, int n, Datatype type, int dest, int tag) {
        int d = peer(dest, false);
        int t = tag(tag, false);
        Staging s = ctx.staging.get();
        long base = s.ensure((long) n * type.bytes());
        s.put(data, 0, n, 0);
        mpi.send(base, n, type(type), d, t, handle);
    }

    private Status recvArray(Object data, int n, Datatype type, int source, int tag) {
        int src = peer(source, true);
        int t = tag(tag, true);
        Staging s = ctx.staging.get();
        long base = s.ensure((long) n * type.bytes());
        int[] st = new int[NativeMpi.STATUS_INTS];
        mpi.recv(base, n, type(type), src, t, handle, st);
        Status status = status(st, type);
        s.get(0, data, 0, Math.min(n, status.count(type)));
        return status;
    }

    private Status sendrecvArray(Object send, int sendN, int dest, int sendTag, Object recv, int recvN, int source,
            int recvTag, Datatype type) {
        int d = peer(dest, false);
        int st = tag(sendTag, false);
        int src = peer(source, true);
        int rt = tag(recvTag, true);
        Staging s = ctx.staging.get();
        long sendBytes = align((long) sendN * type.bytes());
        long base = s.ensure(sendBytes + (long) recvN * type.bytes());
        s.put(send, 0, sendN, 0);
        int[] raw = new int[NativeMpi.STATUS_INTS];
        mpi.sendrecv(base, sendN, d, st, base + sendBytes, recvN, src, rt, type(type), handle, raw);
        Status status = status(raw, type);
        s.get(sendBytes, recv, 0, Math.min(recvN, status.count(type)));
        return status;
    }

    // ---- point-to-point: non-blocking ----

    /** {@code MPI_Isend} of a copy of {@code data} (the array may be reused at once). */
    public Request isend(float[] data, int dest, int tag) {
        return isendArray(data, data.length, Datatype.FLOAT, dest, tag);
    }

    public Request isend(double[] data, int dest, int tag) {
        return isendArray(data, data.length, Datatype.DOUBLE, dest, tag);
    }

    public Request isend(int[] data, int dest, int tag) {
        return isendArray(data, data.length, Datatype.INT, dest, tag);
    }

    public Request isend(long[] data, int dest, int tag) {
        return isendArray(data, data.length, Datatype.LONG, dest, tag);
    }

    public Request isend(byte[] data, int dest, int tag) {
        return isendArray(data, data.length, Datatype.BYTE, dest, tag);
    }

    /** {@code MPI_Isend} of a direct buffer's remaining elements, without a copy: leave it alone until completion. */
    public Request isend(Buffer data, int dest, int tag) {
        Datatype type = HeapArrays.type(data, "data");
        long h = mpi.isend(address(data, type), data.remaining(), type(type), peer(dest, false), tag(tag, false),
                handle);
        return new Request(ctx, h, data, null, false);
    }

    public Request isend(long address, int count, Datatype type, int dest, int tag) {
        checkAddress(address, count, "address");
        return new Request(ctx, mpi.isend(address, count, type(type), peer(dest, false), tag(tag, false), handle),
                null, null, false);
    }

    /** {@code MPI_Irecv} into native memory; the array receives the data when the request completes. */
    public Request irecv(float[] data, int source, int tag) {
        return irecvArray(data, data.length, Datatype.FLOAT, source, tag);
    }

    public Request irecv(double[] data, int source, int tag) {
        return irecvArray(data, data.length, Datatype.DOUBLE, source, tag);
    }

    public Request irecv(int[] data, int source, int tag) {
        return irecvArray(data, data.length, Datatype.INT, source, tag);
    }

    public Request irecv(long[] data, int source, int tag) {
        return irecvArray(data, data.length, Datatype.LONG, source, tag);
    }

    public Request irecv(byte[] data, int source, int tag) {
        return irecvArray(data, data.length, Datatype.BYTE, source, tag);
    }

    /** {@code MPI_Irecv} into a direct buffer's remaining elements, without a copy. */
    public Request irecv(Buffer data, int source, int tag) {
        Datatype type = HeapArrays.type(data, "data");
        writable(data, "data");
        long h = mpi.irecv(address(data, type), data.remaining(), type(type), peer(source, true), tag(tag, true),
                handle);
        return new Request(ctx, h, data, null, true);
    }

    public Request irecv(long address, int count, Datatype type, int source, int tag) {
        checkAddress(address, count, "address");
        return new Request(ctx, mpi.irecv(address, count, type(type), peer(source, true), tag(tag, true), handle),
                null, null, true);
    }

    private Request isendArray(Object data, int n, Datatype type, int dest, int tag) {
        int d = peer(dest, false);
        int t = tag(tag, false);
        Staging copy = ownCopy((long) n * type.bytes());
        copy.put(data, 0, n, 0);
        return new Request(ctx, mpi.isend(copy.ensure(0), n, type(type), d, t, handle), copy, null, false);
    }

    private Request irecvArray(Object data, int n, Datatype type, int source, int tag) {
        int src = peer(source, true);
        int t = tag(tag, true);
        Staging copy = ownCopy((long) n * type.bytes());
        Request[] self = new Request[1];
        Request r = new Request(ctx, mpi.irecv(copy.ensure(0), n, type(type), src, t, handle), copy,
                () -> copy.get(0, data, 0, Math.min(n, self[0].status().count(type))), true);
        self[0] = r;
        return r;
    }

    // ---- allreduce ----

    public void allreduce(float[] in, float[] out, Op op) {
        reduceArray(in, in.length, out, out.length, Datatype.FLOAT, op);
    }

    public void allreduce(double[] in, double[] out, Op op) {
        reduceArray(in, in.length, out, out.length, Datatype.DOUBLE, op);
    }

    public void allreduce(int[] in, int[] out, Op op) {
        reduceArray(in, in.length, out, out.length, Datatype.INT, op);
    }

    public void allreduce(long[] in, long[] out, Op op) {
        reduceArray(in, in.length, out, out.length, Datatype.LONG, op);
    }

    /** In place: {@code data} holds the result afterwards. */
    public void allreduce(float[] data, Op op) {
        reduceArray(data, data.length, data, data.length, Datatype.FLOAT, op);
    }

    public void allreduce(double[] data, Op op) {
        reduceArray(data, data.length, data, data.length, Datatype.DOUBLE, op);
    }

    public void allreduce(int[] data, Op op) {
        reduceArray(data, data.length, data, data.length, Datatype.INT, op);
    }

    public void allreduce(long[] data, Op op) {
        reduceArray(data, data.length, data, data.length, Datatype.LONG, op);
    }

    /** In place on a direct float/double/int/long buffer, over its remaining elements. */
    public void allreduce(Buffer data, Op op) {
        Datatype type = numeric(HeapArrays.type(data, "data"));
        writable(data, "data");
        mpi.allreduce(ctx.mpi.inPlace(), address(data, type), data.remaining(), type(type), op(op), handle);
    }

    /** From {@code send} into {@code recv}: direct buffers of one element type with equal remaining elements. */
    public void allreduce(Buffer send, Buffer recv, Op op) {
        Datatype type = numeric(sameType(send, recv));
        writable(recv, "recv");
        sameLength(send.remaining(), recv.remaining(), "send", "recv");
        mpi.allreduce(address(send, type), address(recv, type), send.remaining(), type(type), op(op), handle);
    }

    /**
     * On native memory given by address, e.g. GPU device memory for a CUDA-aware MPI. Nothing about the memory can
     * be checked: it must hold {@code count} elements at both addresses.
     */
    public void allreduce(long send, long recv, int count, Datatype type, Op op) {
        checkAddress(send, count, "send");
        checkAddress(recv, count, "recv");
        mpi.allreduce(send, recv, count, type(numeric(type)), op(op), handle);
    }

    /** In place on native memory given by address; see {@link #allreduce(long, long, int, Datatype, Op)}. */
    public void allreduceInPlace(long address, int count, Datatype type, Op op) {
        checkAddress(address, count, "address");
        mpi.allreduce(mpi.inPlace(), address, count, type(numeric(type)), op(op), handle);
    }

    private void reduceArray(Object in, int n, Object out, int outN, Datatype type, Op op) {
        sameLength(n, outN, "in", "out");
        long t = type(type);
        long o = op(op);
        if (ctx.pinArrays) {
            // in place after a Java copy: MPI's own copy of send into recv, at mismatched cache-line offsets (two
            // Java arrays rarely share one), made a 1 MiB allreduce 1.2-1.4x slower on Open MPI 4 (bench/large.sh)
            if (in != out) {
                System.arraycopy(in, 0, out, 0, n);
            }
            mpi.allreduceHeap(null, out, n, t, o, handle);
            return;
        }
        Staging s = ctx.staging.get();
        int per = STAGING_CHUNK / type.bytes();
        long base = s.ensure((long) Math.min(n, per) * type.bytes());
        int from = 0;
        do { // one piece at a time while it is in cache (n = 0: one call, as in C)
            int len = Math.min(per, n - from);
            s.put(in, from, len, 0);
            mpi.allreduce(mpi.inPlace(), base, len, t, o, handle);
            s.get(0, out, from, len);
            from += per;
        } while (from < n);
    }

    // ---- non-blocking collectives ----

    /** {@code MPI_Iallreduce} on direct buffers, without copies: leave both alone until the request completes. */
    public Request iallreduce(Buffer send, Buffer recv, Op op) {
        Datatype type = numeric(sameType(send, recv));
        writable(recv, "recv");
        sameLength(send.remaining(), recv.remaining(), "send", "recv");
        long h = mpi.iallreduce(address(send, type), address(recv, type), send.remaining(), type(type), op(op),
                handle);
        return new Request(ctx, h, new Buffer[] {send, recv}, null, false);
    }

    /** {@code MPI_Iallreduce} in place on a direct buffer. */
    public Request iallreduce(Buffer data, Op op) {
        Datatype type = numeric(HeapArrays.type(data, "data"));
        writable(data, "data");
        long h = mpi.iallreduce(mpi.inPlace(), address(data, type), data.remaining(), type(type), op(op), handle);
        return new Request(ctx, h, data, null, false);
    }

    /** {@code MPI_Iallreduce} on native addresses ({@code send} may equal {@code recv}: then in place). */
    public Request iallreduce(long send, long recv, int count, Datatype type, Op op) {
        checkAddress(send, count, "send");
        checkAddress(recv, count, "recv");
        long h = mpi.iallreduce(send == recv ? mpi.inPlace() : send, recv, count, type(numeric(type)), op(op), handle);
        return new Request(ctx, h, null, null, false);
    }

    /** {@code MPI_Iallreduce} in place on an array: reduced in a native copy, copied back on completion. */
    public Request iallreduce(float[] data, Op op) {
        return iallreduceArray(data, data.length, Datatype.FLOAT, op);
    }

    public Request iallreduce(double[] data, Op op) {
        return iallreduceArray(data, data.length, Datatype.DOUBLE, op);
    }

    public Request iallreduce(int[] data, Op op) {
        return iallreduceArray(data, data.length, Datatype.INT, op);
    }

    public Request iallreduce(long[] data, Op op) {
        return iallreduceArray(data, data.length, Datatype.LONG, op);
    }

    private Request iallreduceArray(Object data, int n, Datatype type, Op op) {
        long o = op(op);
        Staging copy = ownCopy((long) n * type.bytes());
        copy.put(data, 0, n, 0);
        long h = mpi.iallreduce(mpi.inPlace(), copy.ensure(0), n, type(type), o, handle);
        return new Request(ctx, h, copy, () -> copy.get(0, data, 0, n), false);
    }

    /** {@code MPI_Ibcast} of a direct buffer's remaining elements. */
    public Request ibcast(Buffer data, int root) {
        Datatype type = HeapArrays.type(data, "data");
        checkRoot(root);
        if (rank != root) {
            writable(data, "data");
        }
        return new Request(ctx, mpi.ibcast(address(data, type), data.remaining(), type(type), root, handle), data,
                null, false);
    }

    public Request ibcast(long address, int count, Datatype type, int root) {
        checkAddress(address, count, "address");
        checkRoot(root);
        return new Request(ctx, mpi.ibcast(address, count, type(type), root, handle), null, null, false);
    }

    /** {@code MPI_Ibcast} of an array through a native copy (copied back on completion on the other ranks). */
    public Request ibcast(float[] data, int root) {
        return ibcastArray(data, data.length, Datatype.FLOAT, root);
    }

    public Request ibcast(double[] data, int root) {
        return ibcastArray(data, data.length, Datatype.DOUBLE, root);
    }

    public Request ibcast(int[] data, int root) {
        return ibcastArray(data, data.length, Datatype.INT, root);
    }

    public Request ibcast(long[] data, int root) {
        return ibcastArray(data, data.length, Datatype.LONG, root);
    }

    public Request ibcast(byte[] data, int root) {
        return ibcastArray(data, data.length, Datatype.BYTE, root);
    }

    private Request ibcastArray(Object data, int n, Datatype type, int root) {
        checkRoot(root);
        Staging copy = ownCopy((long) n * type.bytes());
        if (rank == root) {
            copy.put(data, 0, n, 0);
        }
        long h = mpi.ibcast(copy.ensure(0), n, type(type), root, handle);
        return new Request(ctx, h, copy, rank == root ? null : () -> copy.get(0, data, 0, n), false);
    }

    /** {@code MPI_Iallgather} on direct buffers: {@code recv} holds size × send's remaining elements. */
    public Request iallgather(Buffer send, Buffer recv) {
        Datatype type = sameType(send, recv);
        writable(recv, "recv");
        sameLength((long) send.remaining() * size, recv.remaining(), "size × send", "recv");
        long h = mpi.iallgather(address(send, type), send.remaining(), address(recv, type), send.remaining(),
                type(type), handle);
        return new Request(ctx, h, new Buffer[] {send, recv}, null, false);
    }

    public Request iallgather(long send, int count, long recv, Datatype type) {
        checkAddress(send, count, "send");
        checkAddress(recv, count, "recv");
        return new Request(ctx, mpi.iallgather(send, count, recv, count, type(type), handle), null, null, false);
    }

    /** {@code MPI_Iallgather} on arrays through native copies; {@code recv} is filled on completion. */
    public Request iallgather(float[] send, float[] recv) {
        return iallgatherArray(send, send.length, recv, recv.length, Datatype.FLOAT);
    }

    public Request iallgather(double[] send, double[] recv) {
        return iallgatherArray(send, send.length, recv, recv.length, Datatype.DOUBLE);
    }

    public Request iallgather(int[] send, int[] recv) {
        return iallgatherArray(send, send.length, recv, recv.length, Datatype.INT);
    }

    public Request iallgather(long[] send, long[] recv) {
        return iallgatherArray(send, send.length, recv, recv.length, Datatype.LONG);
    }

    public Request iallgather(byte[] send, byte[] recv) {
        return iallgatherArray(send, send.length, recv, recv.length, Datatype.BYTE);
    }

    private Request iallgatherArray(Object send, int n, Object recv, int recvN, Datatype type) {
        sameLength((long) n * size, recvN, "size × send", "recv");
        long sendBytes = align((long) n * type.bytes());
        Staging copy = ownCopy(sendBytes + (long) recvN * type.bytes());
        copy.put(send, 0, n, 0);
        long base = copy.ensure(0);
        long h = mpi.iallgather(base, n, base + sendBytes, n, type(type), handle);
        return new Request(ctx, h, copy, () -> copy.get(sendBytes, recv, 0, recvN), false);
    }

    // ---- broadcast ----

    /** Root's {@code data} is copied into every other rank's {@code data}; all ranks pass the same length. */
    public void broadcast(float[] data, int root) {
        broadcastArray(data, data.length, Datatype.FLOAT, root);
    }

    public void broadcast(double[] data, int root) {
        broadcastArray(data, data.length, Datatype.DOUBLE, root);
    }

    public void broadcast(int[] data, int root) {
        broadcastArray(data, data.length, Datatype.INT, root);
    }

    public void broadcast(long[] data, int root) {
        broadcastArray(data, data.length, Datatype.LONG, root);
    }

    public void broadcast(byte[] data, int root) {
        broadcastArray(data, data.length, Datatype.BYTE, root);
    }

    /** Over a direct buffer's remaining elements; all ranks pass the same count. */
    public void broadcast(Buffer data, int root) {
        Datatype type = HeapArrays.type(data, "data");
        checkRoot(root);
        if (rank != root) {
            writable(data, "data");
        }
        mpi.bcast(address(data, type), data.remaining(), type(type), root, handle);
    }

    /** On native memory given by address (e.g. GPU memory with a CUDA-aware MPI). */
    public void broadcast(long address, int count, Datatype type, int root) {
        checkAddress(address, count, "address");
        checkRoot(root);
        mpi.bcast(address, count, type(type), root, handle);
    }

    /**
     * Broadcasts a byte array whose length only the root knows (e.g. serialized training state): the length goes
     * first, then the bytes. {@code data} is ignored on other ranks (may be null). Returns the root's bytes.
     */
    public byte[] broadcastBytes(byte[] data, int root) {
        checkRoot(root);
        int[] length = {rank == root ? Objects.requireNonNull(data, "data on the root").length : 0};
        broadcast(length, root);
        byte[] result = rank == root ? data : new byte[length[0]];
        broadcast(result, root);
        return result;
    }

    /** Broadcasts a value from the root with the caller's encoding (no Java serialization); see {@link #broadcastBytes}. */
    public <T> T broadcast(T value, Function<T, byte[]> encode, Function<byte[], T> decode, int root) {
        checkRoot(root);
        byte[] bytes = broadcastBytes(rank == root ? encode.apply(value) : null, root);
        return rank == root ? value : decode.apply(bytes);
    }

    private void broadcastArray(Object data, int n, Datatype type, int root) {
        checkRoot(root);
        long t = type(type);
        if (ctx.pinArrays) {
            mpi.bcastHeap(data, n, t, root, handle);
            return;
        }
        Staging s = ctx.staging.get();
        int per = STAGING_CHUNK / type.bytes();
        long base = s.ensure((long) Math.min(n, per) * type.bytes());
        int from = 0;
        do { // in pieces, as reduceArray
            int len = Math.min(per, n - from);
            if (rank == root) {
                s.put(data, from, len, 0);
            }
            mpi.bcast(base, len, t, root, handle);
            if (rank != root) {
                s.get(0, data, from, len);
            }
            from += per;
        } while (from < n);
    }

    // ---- allgather, allgatherv, alltoall, reduce-scatter ----

    /** Every rank's {@code send} lands in {@code recv} at {@code rank * send.length}; recv is size × send long. */
    public void allgather(float[] send, float[] recv) {
        allgatherArray(send, send.length, recv, recv.length, Datatype.FLOAT);
    }

    public void allgather(double[] send, double[] recv) {
        allgatherArray(send, send.length, recv, recv.length, Datatype.DOUBLE);
    }

    public void allgather(int[] send, int[] recv) {
        allgatherArray(send, send.length, recv, recv.length, Datatype.INT);
    }

    public void allgather(long[] send, long[] recv) {
        allgatherArray(send, send.length, recv, recv.length, Datatype.LONG);
    }

    public void allgather(byte[] send, byte[] recv) {
        allgatherArray(send, send.length, recv, recv.length, Datatype.BYTE);
    }

    /** On direct buffers of one type: {@code recv} holds size × send's remaining elements. */
    public void allgather(Buffer send, Buffer recv) {
        Datatype type = sameType(send, recv);
        writable(recv, "recv");
        sameLength((long) send.remaining() * size, recv.remaining(), "size × send", "recv");
        mpi.allgather(address(send, type), send.remaining(), address(recv, type), send.remaining(), type(type),
                handle);
    }

    /** On native addresses: {@code count} elements from each rank, size × count at {@code recv}. */
    public void allgather(long send, int count, long recv, Datatype type) {
        checkAddress(send, count, "send");
        checkAddress(recv, count, "recv");
        mpi.allgather(send, count, recv, count, type(type), handle);
    }

    /** Concatenates every rank's {@code send} (lengths may differ) in rank order. */
    public float[] allgatherv(float[] send) {
        return (float[]) gathervArray(send, -1);
    }

    public double[] allgatherv(double[] send) {
        return (double[]) gathervArray(send, -1);
    }

    public int[] allgatherv(int[] send) {
        return (int[]) gathervArray(send, -1);
    }

    public long[] allgatherv(long[] send) {
        return (long[]) gathervArray(send, -1);
    }

    /** Block {@code j} of {@code send} goes to rank {@code j}, block {@code i} of {@code recv} came from rank i. */
    public void alltoall(float[] send, float[] recv) {
        alltoallArray(send, send.length, recv, recv.length, Datatype.FLOAT);
    }

    public void alltoall(double[] send, double[] recv) {
        alltoallArray(send, send.length, recv, recv.length, Datatype.DOUBLE);
    }

    public void alltoall(int[] send, int[] recv) {
        alltoallArray(send, send.length, recv, recv.length, Datatype.INT);
    }

    public void alltoall(long[] send, long[] recv) {
        alltoallArray(send, send.length, recv, recv.length, Datatype.LONG);
    }

    /** Reduces {@code send} (size × recv long) across ranks; rank i receives block i of the result. */
    public void reduceScatterBlock(float[] send, float[] recv, Op op) {
        reduceScatterArray(send, send.length, recv, recv.length, Datatype.FLOAT, op);
    }

    public void reduceScatterBlock(double[] send, double[] recv, Op op) {
        reduceScatterArray(send, send.length, recv, recv.length, Datatype.DOUBLE, op);
    }

    public void reduceScatterBlock(int[] send, int[] recv, Op op) {
        reduceScatterArray(send, send.length, recv, recv.length, Datatype.INT, op);
    }

    public void reduceScatterBlock(long[] send, long[] recv, Op op) {
        reduceScatterArray(send, send.length, recv, recv.length, Datatype.LONG, op);
    }

    private void allgatherArray(Object send, int n, Object recv, int recvN, Datatype type) {
        sameLength((long) n * size, recvN, "size × send", "recv");
        long t = type(type);
        if (ctx.pinArrays) {
            mpi.allgatherHeap(send, n, recv, n, t, handle);
            return;
        }
        Staging s = ctx.staging.get();
        long sendBytes = align((long) n * type.bytes());
        long base = s.ensure(sendBytes + (long) recvN * type.bytes());
        s.put(send, 0, n, 0);
        mpi.allgather(base, n, base + sendBytes, n, t, handle);
        s.get(sendBytes, recv, 0, recvN);
    }

    /**
     * Gathers arrays of any length, in rank order: to every rank ({@code root < 0}, {@code MPI_Allgatherv}) or to
     * the root ({@code MPI_Gatherv}; null elsewhere). The lengths are gathered first.
     */
    private Object gathervArray(Object send, int root) {
        Datatype type = HeapArrays.type(send);
        int n = Array.getLength(send);
        int[] counts = new int[size];
        if (root < 0) {
            allgatherArray(new int[] {n}, 1, counts, size, Datatype.INT);
        } else {
            gatherArray(new int[] {n}, 1, counts, size, Datatype.INT, root);
        }
        boolean receives = root < 0 || rank == root;
        int[] displs = new int[size];
        long total = 0;
        for (int i = 0; i < size; i++) {
            displs[i] = (int) total;
            total += counts[i];
            if (receives && total > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("gathering " + total + " elements exceeds a Java array");
            }
        }
        Object recv = receives ? Array.newInstance(send.getClass().getComponentType(), (int) total) : null;
        Staging s = ctx.staging.get();
        long sendBytes = align((long) n * type.bytes());
        long base = s.ensure(sendBytes + (receives ? total * type.bytes() : 0) + 8L * size + 8);
        s.put(send, 0, n, 0);
        if (root < 0) {
            // the counts and displacements go to MPI in native memory behind the data
            long table = align(base + sendBytes + total * type.bytes());
            s.put(counts, 0, size, table - base);
            s.put(displs, 0, size, table - base + 4L * size);
            mpi.allgatherv(base, n, base + sendBytes, table, table + 4L * size, type(type), handle);
        } else {
            mpi.gatherv(base, n, receives ? base + sendBytes : 0L, receives ? counts : null,
                    receives ? displs : null, type(type), root, handle);
        }
        if (receives) {
            s.get(sendBytes, recv, 0, (int) total);
        }
        return recv;
    }

    private void alltoallArray(Object send, int n, Object recv, int recvN, Datatype type) {
        sameLength(n, recvN, "send", "recv");
        if (n % size != 0) {
            throw new IllegalArgumentException("alltoall needs a length divisible by the communicator size " + size
                    + "; got " + n);
        }
        long t = type(type);
        if (ctx.pinArrays) {
            mpi.alltoallHeap(send, n / size, recv, t, handle);
            return;
        }
        Staging s = ctx.staging.get();
        long bytes = align((long) n * type.bytes());
        long base = s.ensure(2 * bytes);
        s.put(send, 0, n, 0);
        mpi.alltoall(base, n / size, base + bytes, t, handle);
        s.get(bytes, recv, 0, n);
    }

    private void reduceScatterArray(Object send, int sendN, Object recv, int n, Datatype type, Op op) {
        sameLength((long) n * size, sendN, "size × recv", "send");
        long t = type(numeric(type));
        long o = op(op);
        if (ctx.pinArrays) {
            mpi.reduceScatterBlockHeap(send, recv, n, t, o, handle);
            return;
        }
        Staging s = ctx.staging.get();
        long sendBytes = align((long) n * size * type.bytes());
        long base = s.ensure(sendBytes + (long) n * type.bytes());
        s.put(send, 0, n * size, 0);
        mpi.reduceScatterBlock(base, base + sendBytes, n, t, o, handle);
        s.get(sendBytes, recv, 0, n);
    }

    // ---- rooted collectives: reduce, gather(v), scatter(v); prefix reductions ----

    /** {@code MPI_Reduce}: the root's {@code out} receives the reduction of every rank's {@code in} (out may be null elsewhere). */
    public void reduce(float[] in, float[] out, Op op, int root) {
        reduceRooted(in, in.length, out, out == null ? -1 : out.length, Datatype.FLOAT, op, root);
    }

    public void reduce(double[] in, double[] out, Op op, int root) {
        reduceRooted(in, in.length, out, out == null ? -1 : out.length, Datatype.DOUBLE, op, root);
    }

    public void reduce(int[] in, int[] out, Op op, int root) {
        reduceRooted(in, in.length, out, out == null ? -1 : out.length, Datatype.INT, op, root);
    }

    public void reduce(long[] in, long[] out, Op op, int root) {
        reduceRooted(in, in.length, out, out == null ? -1 : out.length, Datatype.LONG, op, root);
    }

    /** On direct buffers; {@code recv} is read only at the root (may be null elsewhere). */
    public void reduce(Buffer send, Buffer recv, Op op, int root) {
        Datatype type = numeric(HeapArrays.type(send, "send"));
        checkRoot(root);
        long recvAddress = 0;
        if (rank == root) {
            if (sameType(send, recv) != type) {
                throw new IllegalStateException("unreachable");
            }
            writable(recv, "recv");
            sameLength(send.remaining(), recv.remaining(), "send", "recv");
            recvAddress = address(recv, type);
        }
        mpi.reduce(address(send, type), recvAddress, send.remaining(), type(type), op(op), root, handle);
    }

    /** On native addresses ({@code recv} is used at the root only). */
    public void reduce(long send, long recv, int count, Datatype type, Op op, int root) {
        checkAddress(send, count, "send");
        checkRoot(root);
        if (rank == root) {
            checkAddress(recv, count, "recv");
        }
        mpi.reduce(send, recv, count, type(numeric(type)), op(op), root, handle);
    }

    private void reduceRooted(Object in, int n, Object out, int outN, Datatype type, Op op, int root) {
        checkRoot(root);
        long t = type(numeric(type));
        long o = op(op);
        boolean atRoot = rank == root;
        if (atRoot) {
            if (out == null) {
                throw new IllegalArgumentException("out is null on the root " + root + ": it receives the result");
            }
            sameLength(n, outN, "in", "out");
        }
        if (ctx.pinArrays) {
            mpi.reduceHeap(atRoot && in == out ? null : in, atRoot ? out : null, n, t, o, root, handle);
            return;
        }
        Staging s = ctx.staging.get();
        long base = s.ensure((long) n * type.bytes());
        s.put(in, 0, n, 0);
        mpi.reduce(atRoot ? mpi.inPlace() : base, atRoot ? base : 0L, n, t, o, root, handle);
        if (atRoot) {
            s.get(0, out, 0, n);
        }
    }

    /** {@code MPI_Gather}: every rank's {@code send} lands in the root's {@code recv} (size × send; null elsewhere). */
    public void gather(float[] send, float[] recv, int root) {
        gatherArray(send, send.length, recv, recv == null ? -1 : recv.length, Datatype.FLOAT, root);
    }

    public void gather(double[] send, double[] recv, int root) {
        gatherArray(send, send.length, recv, recv == null ? -1 : recv.length, Datatype.DOUBLE, root);
    }

    public void gather(int[] send, int[] recv, int root) {
        gatherArray(send, send.length, recv, recv == null ? -1 : recv.length, Datatype.INT, root);
    }

    public void gather(long[] send, long[] recv, int root) {
        gatherArray(send, send.length, recv, recv == null ? -1 : recv.length, Datatype.LONG, root);
    }

    public void gather(byte[] send, byte[] recv, int root) {
        gatherArray(send, send.length, recv, recv == null ? -1 : recv.length, Datatype.BYTE, root);
    }

    /** On direct buffers; {@code recv} (size × send's remaining) is used at the root only. */
    public void gather(Buffer send, Buffer recv, int root) {
        Datatype type = HeapArrays.type(send, "send");
        checkRoot(root);
        long recvAddress = 0;
        if (rank == root) {
            sameType(send, recv);
            writable(recv, "recv");
            sameLength((long) send.remaining() * size, recv.remaining(), "size × send", "recv");
            recvAddress = address(recv, type);
        }
        mpi.gather(address(send, type), send.remaining(), recvAddress, send.remaining(), type(type), root, handle);
    }

    /** {@code MPI_Gatherv}: the root receives every rank's array (lengths may differ) in rank order; null elsewhere. */
    public float[] gatherv(float[] send, int root) {
        checkRoot(root);
        return (float[]) gathervArray(send, root);
    }

    public double[] gatherv(double[] send, int root) {
        checkRoot(root);
        return (double[]) gathervArray(send, root);
    }

    public int[] gatherv(int[] send, int root) {
        checkRoot(root);
        return (int[]) gathervArray(send, root);
    }

    public long[] gatherv(long[] send, int root) {
        checkRoot(root);
        return (long[]) gathervArray(send, root);
    }

    public byte[] gatherv(byte[] send, int root) {
        checkRoot(root);
        return (byte[]) gathervArray(send, root);
    }

    private void gatherArray(Object send, int n, Object recv, int recvN, Datatype type, int root) {
        checkRoot(root);
        boolean atRoot = rank == root;
        if (atRoot) {
            if (recv == null) {
                throw new IllegalArgumentException("recv is null on the root " + root + ": it receives the result");
            }
            sameLength((long) n * size, recvN, "size × send", "recv");
        }
        long t = type(type);
        if (ctx.pinArrays) {
            mpi.gatherHeap(send, n, atRoot ? recv : null, n, t, root, handle);
            return;
        }
        Staging s = ctx.staging.get();
        long sendBytes = align((long) n * type.bytes());
        long base = s.ensure(sendBytes + (atRoot ? (long) recvN * type.bytes() : 0));
        s.put(send, 0, n, 0);
        mpi.gather(base, n, atRoot ? base + sendBytes : 0L, n, t, root, handle);
        if (atRoot) {
            s.get(sendBytes, recv, 0, recvN);
        }
    }

    /** {@code MPI_Scatter}: block i of the root's {@code send} (size × recv; null elsewhere) lands in rank i's recv. */
    public void scatter(float[] send, float[] recv, int root) {
        scatterArray(send, send == null ? -1 : send.length, recv, recv.length, Datatype.FLOAT, root);
    }

    public void scatter(double[] send, double[] recv, int root) {
        scatterArray(send, send == null ? -1 : send.length, recv, recv.length, Datatype.DOUBLE, root);
    }

    public void scatter(int[] send, int[] recv, int root) {
        scatterArray(send, send == null ? -1 : send.length, recv, recv.length, Datatype.INT, root);
    }

    public void scatter(long[] send, long[] recv, int root) {
        scatterArray(send, send == null ? -1 : send.length, recv, recv.length, Datatype.LONG, root);
    }

    public void scatter(byte[] send, byte[] recv, int root) {
        scatterArray(send, send == null ? -1 : send.length, recv, recv.length, Datatype.BYTE, root);
    }

    /** On direct buffers; {@code send} (size × recv's remaining) is used at the root only. */
    public void scatter(Buffer send, Buffer recv, int root) {
        Datatype type = HeapArrays.type(recv, "recv");
        writable(recv, "recv");
        checkRoot(root);
        long sendAddress = 0;
        if (rank == root) {
            sameType(send, recv);
            sameLength((long) recv.remaining() * size, send.remaining(), "size × recv", "send");
            sendAddress = address(send, type);
        }
        mpi.scatter(sendAddress, recv.remaining(), address(recv, type), recv.remaining(), type(type), root, handle);
    }

    /**
     * {@code MPI_Scatterv}: the root's {@code send} is cut into pieces of {@code counts[i]} elements (in rank order;
     * they must add up to its length); each rank gets its piece back. {@code send} and {@code counts} are read at the
     * root only (may be null elsewhere).
     */
    public float[] scatterv(float[] send, int[] counts, int root) {
        return (float[]) scattervArray(send, counts, root, float.class);
    }

    public double[] scatterv(double[] send, int[] counts, int root) {
        return (double[]) scattervArray(send, counts, root, double.class);
    }

    public int[] scatterv(int[] send, int[] counts, int root) {
        return (int[]) scattervArray(send, counts, root, int.class);
    }

    public long[] scatterv(long[] send, int[] counts, int root) {
        return (long[]) scattervArray(send, counts, root, long.class);
    }

    public byte[] scatterv(byte[] send, int[] counts, int root) {
        return (byte[]) scattervArray(send, counts, root, byte.class);
    }

    private void scatterArray(Object send, int sendN, Object recv, int n, Datatype type, int root) {
        checkRoot(root);
        boolean atRoot = rank == root;
        if (atRoot) {
            if (send == null) {
                throw new IllegalArgumentException("send is null on the root " + root + ": it holds the data");
            }
            sameLength((long) n * size, sendN, "size × recv", "send");
        }
        long t = type(type);
        if (ctx.pinArrays) {
            mpi.scatterHeap(atRoot ? send : null, n, recv, n, t, root, handle);
            return;
        }
        Staging s = ctx.staging.get();
        long recvBytes = align((long) n * type.bytes());
        long base = s.ensure(recvBytes + (atRoot ? (long) sendN * type.bytes() : 0));
        if (atRoot) {
            s.put(send, 0, sendN, recvBytes);
        }
        mpi.scatter(atRoot ? base + recvBytes : 0L, n, base, n, t, root, handle);
        s.get(0, recv, 0, n);
    }

    private Object scattervArray(Object send, int[] counts, int root, Class<?> component) {
        checkRoot(root);
        Datatype type = HeapArrays.type(Array.newInstance(component, 0));
        boolean atRoot = rank == root;
        int[] displs = null;
        int sendN = 0;
        if (atRoot) {
            if (send == null || counts == null) {
                throw new IllegalArgumentException("send and counts must be given on the root " + root);
            }
            if (counts.length != size) {
                throw new IllegalArgumentException("counts has " + counts.length + " entries but the communicator has "
                        + size + " ranks");
            }
            displs = new int[size];
            long total = 0;
            for (int i = 0; i < size; i++) {
                if (counts[i] < 0) {
                    throw new IllegalArgumentException("counts[" + i + "] is " + counts[i] + ": it must be >= 0");
                }
                displs[i] = (int) total;
                total += counts[i];
            }
            sendN = Array.getLength(send);
            sameLength(total, sendN, "the counts' sum", "send");
        }
        int[] mine = new int[1];
        scatterArray(atRoot ? counts : null, atRoot ? size : -1, mine, 1, Datatype.INT, root);
        int n = mine[0];
        Object recv = Array.newInstance(component, n);
        Staging s = ctx.staging.get();
        long recvBytes = align((long) n * type.bytes());
        long base = s.ensure(recvBytes + (long) sendN * type.bytes());
        if (atRoot) {
            s.put(send, 0, sendN, recvBytes);
        }
        mpi.scatterv(atRoot ? base + recvBytes : 0L, atRoot ? counts.clone() : null, displs, base, n, type(type), root,
                handle);
        s.get(0, recv, 0, n);
        return recv;
    }

    /** {@code MPI_Scan}: rank i's {@code out} holds the reduction of {@code in} over ranks 0..i. */
    public void scan(float[] in, float[] out, Op op) {
        scanArray(in, in.length, out, out.length, Datatype.FLOAT, op, false);
    }

    public void scan(double[] in, double[] out, Op op) {
        scanArray(in, in.length, out, out.length, Datatype.DOUBLE, op, false);
    }

    public void scan(int[] in, int[] out, Op op) {
        scanArray(in, in.length, out, out.length, Datatype.INT, op, false);
    }

    public void scan(long[] in, long[] out, Op op) {
        scanArray(in, in.length, out, out.length, Datatype.LONG, op, false);
    }

    /** {@code MPI_Exscan}: over ranks 0..i-1; rank 0's {@code out} is left as it was. */
    public void exscan(float[] in, float[] out, Op op) {
        scanArray(in, in.length, out, out.length, Datatype.FLOAT, op, true);
    }

    public void exscan(double[] in, double[] out, Op op) {
        scanArray(in, in.length, out, out.length, Datatype.DOUBLE, op, true);
    }

    public void exscan(int[] in, int[] out, Op op) {
        scanArray(in, in.length, out, out.length, Datatype.INT, op, true);
    }

    public void exscan(long[] in, long[] out, Op op) {
        scanArray(in, in.length, out, out.length, Datatype.LONG, op, true);
    }

    /** {@code MPI_Scan} on direct buffers of one type. */
    public void scan(Buffer send, Buffer recv, Op op) {
        Datatype type = numeric(sameType(send, recv));
        writable(recv, "recv");
        sameLength(send.remaining(), recv.remaining(), "send", "recv");
        mpi.scan(address(send, type), address(recv, type), send.remaining(), type(type), op(op), handle);
    }

    private void scanArray(Object in, int n, Object out, int outN, Datatype type, Op op, boolean exclusive) {
        if (in == out) {
            throw new IllegalArgumentException("in and out are the same array: pass two arrays");
        }
        sameLength(n, outN, "in", "out");
        long t = type(numeric(type));
        long o = op(op);
        if (ctx.pinArrays && !(exclusive && rank == 0)) {
            mpi.scanHeap(in, out, n, t, o, exclusive, handle);
            return;
        }
        Staging s = ctx.staging.get();
        long bytes = align((long) n * type.bytes());
        long base = s.ensure(2 * bytes);
        s.put(in, 0, n, 0);
        if (exclusive) {
            mpi.exscan(base, base + bytes, n, t, o, handle);
        } else {
            mpi.scan(base, base + bytes, n, t, o, handle);
        }
        if (!(exclusive && rank == 0)) {
            s.get(bytes, out, 0, n);
        }
    }

    // ---- handles, checks ----

    /** Native memory of its own for a non-blocking call on arrays (owned by the Request until it completes). */
    private Staging ownCopy(long bytes) {
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a non-blocking call on Java arrays is limited to 2 GiB; got " + bytes
                    + " bytes: split it, or pass a direct buffer or native memory");
        }
        return new Staging(mpi, (int) Math.max(1, bytes));
    }

    private long type(Datatype type) {
        return ctx.types[Objects.requireNonNull(type, "type").ordinal()];
    }

    private long op(Op op) {
        return ctx.ops[Objects.requireNonNull(op, "op").ordinal()];
    }

    /** The address of a staging area or buffer for FusionBuffer and TensorBucket. */
    long addressOf(Buffer direct) {
        return mpi.address(direct);
    }

    Context context() {
        return ctx;
    }

    boolean pinsArrays() {
        return ctx.pinArrays;
    }

    NativeMpi nativeMpi() {
        return mpi;
    }

    /** A rank for MPI: 0..size-1, PROC_NULL, or (receiving) ANY_SOURCE, translated to the library's values. */
    private int peer(int peer, boolean receiving) {
        if (peer >= 0 && peer < size) {
            return peer;
        }
        if (peer == PROC_NULL) {
            return ctx.procNull;
        }
        if (peer == ANY_SOURCE && receiving) {
            return ctx.anySource;
        }
        throw new IllegalArgumentException("rank " + peer + " is not a rank of this communicator (0.." + (size - 1)
                + (receiving ? "), ANY_SOURCE or PROC_NULL" : ") or PROC_NULL"));
    }

    private int tag(int tag, boolean receiving) {
        if ((tag >= 0 && tag <= ctx.tagUpperBound) || (receiving && tag == ANY_TAG)) {
            return tag;
        }
        throw new IllegalArgumentException("tag " + tag + " is outside 0.." + ctx.tagUpperBound
                + (receiving ? " (or ANY_TAG)" : ""));
    }

    /** A status whose count came back in elements of {@code type}. */
    private Status status(int[] s, Datatype type) {
        int source = s[0] == ctx.procNull ? PROC_NULL : s[0] == ctx.anySource ? ANY_SOURCE : s[0];
        return new Status(source, s[1], s[2], s[3] * type.bytes());
    }

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

    /** The address of a direct buffer's position (the base from this communicator's {@link BufferAddresses}). */
    private long address(Buffer buffer, Datatype type) {
        return addresses.base(buffer) + (long) buffer.position() * type.bytes();
    }
}
