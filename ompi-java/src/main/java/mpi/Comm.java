package mpi;

import java.nio.Buffer;
import org.troika.mpi.MpiException;
import org.troika.mpi.spi.MpiAbi;

/**
 * A communicator: point-to-point, collectives, attributes and error handling, as in Open MPI 5.0's binding.
 *
 * <p>Buffers of blocking calls are Java arrays of primitives, direct NIO buffers, or heap buffers from
 * {@link MPI#slice} (their array from their array offset); a direct buffer is used from its element 0 whatever its
 * position, so an offset goes through {@code MPI.slice}. Non-blocking calls take direct buffers (and, as an
 * addition for code written for MVAPICH2-J, Java arrays in {@code iSend}/{@code iRecv} and their synchronous,
 * buffered and ready forms, copied to native memory). Counts count datatype elements. Every buffer is checked
 * against what the count and datatype reach: too small a buffer is an {@link IllegalArgumentException} before
 * MPI is called.
 */
public class Comm implements Freeable, Cloneable {
    public static final int TYPE_SHARED = 0;
    protected static final int SELF = 1;
    protected static final int WORLD = 2;
    protected long handle;
    private Request request;
    private static long nullHandle;

    protected Comm() {}

    protected Comm(long handle) {
        this.handle = handle;
    }

    protected Comm(long[] commRequest) {
        this.handle = commRequest[0];
        this.request = new Request(commRequest[1]);
    }

    /** Predefined communicators are built before {@code MPI.Init}; their handles are set by it. */
    static void bindPredefined(Comm comm, String name) {
        comm.handle = Native.predefined(name);
        nullHandle = Native.predefined("MPI_COMM_NULL");
    }

    protected final void setType(int type) {
        handle = Native.predefined(type == WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
    }

    /** What {@code dup} makes of a new handle: the same class as this communicator. */
    Comm wrap(long h) throws MPIException {
        return new Comm(h);
    }

    @Override
    public Comm clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new RuntimeException(e.getMessage(), e);
        }
    }

    /** {@code MPI_Comm_dup}; attributes are copied. */
    public Comm dup() throws MPIException {
        MPI.check();
        return wrap(dupHandle());
    }

    long dupHandle() throws MPIException {
        return dup(handle);
    }

    /** {@code MPI_Comm_dup} of a handle (for subclasses); attributes are copied. */
    protected final long dup(long comm) throws MPIException {
        long h = F.DUP.handleOut(comm);
        Attributes.COMM.copy(comm, h);
        return h;
    }

    /** {@code MPI_Comm_idup}: the new communicator is usable once {@link #getRequest()} completes. */
    public Comm iDup() throws MPIException {
        MPI.check();
        long[] hr = iDupHandles();
        Comm c = wrap(hr[0]);
        c.request = new Request(hr[1]);
        return c;
    }

    long[] iDupHandles() throws MPIException {
        return iDup(handle);
    }

    /** {@code MPI_Comm_idup} of a handle (for subclasses): the new handle and the request. */
    protected final long[] iDup(long comm) throws MPIException {
        Scratch s = Scratch.get();
        int out = s.handleOut();
        int req = s.handleOut();
        F.IDUP.call(comm, s.at(out), s.at(req));
        long h = s.getHandle(out);
        Attributes.COMM.copy(comm, h);
        return new long[] {h, s.getHandle(req)};
    }

    /** {@code MPI_Comm_dup_with_info}. */
    public Comm dupWithInfo(Info info) throws MPIException {
        MPI.check();
        return wrap(dupWithInfoHandle(info));
    }

    long dupWithInfoHandle(Info info) throws MPIException {
        return dupWithInfo(handle, info.handle);
    }

    /** {@code MPI_Comm_dup_with_info} of handles (for subclasses). */
    protected final long dupWithInfo(long comm, long info) throws MPIException {
        long h = F.DUP_WITH_INFO.handleOut(comm, info);
        Attributes.COMM.copy(comm, h);
        return h;
    }

    /** The request of {@link #iDup()} (null for communicators made otherwise). */
    public final Request getRequest() {
        return request;
    }

    public final int getSize() throws MPIException {
        MPI.check();
        try {
            return Native.mpi.commSize(handle);
        } catch (MpiException e) {
            throw Native.exception(e);
        }
    }

    public final int getRank() throws MPIException {
        MPI.check();
        try {
            return Native.mpi.commRank(handle);
        } catch (MpiException e) {
            throw Native.exception(e);
        }
    }

    /** {@code MPI_Comm_compare}: {@link MPI#IDENT}, {@link MPI#CONGRUENT}, {@link MPI#SIMILAR} or {@link MPI#UNEQUAL}. */
    public static int compare(Comm comm1, Comm comm2) throws MPIException {
        MPI.check();
        try {
            return Native.mpi.commCompare(comm1.handle, comm2.handle);
        } catch (MpiException e) {
            throw Native.exception(e);
        }
    }

    /** {@code MPI_Comm_free}. */
    public final void free() throws MPIException {
        MPI.check();
        long old = handle;
        handle = F.FREE.inOut(handle);
        Attributes.COMM.drop(old);
    }

    public final boolean isNull() {
        return handle == nullHandle;
    }

    public final void setInfo(Info info) throws MPIException {
        MPI.check();
        F.SET_INFO.call(handle, info.handle);
    }

    public final Info getInfo() throws MPIException {
        MPI.check();
        return new Info(F.GET_INFO.handleOut(handle));
    }

    /** {@code MPI_Comm_disconnect}. */
    public final void disconnect() throws MPIException {
        MPI.check();
        long old = handle;
        handle = F.DISCONNECT.inOut(handle);
        Attributes.COMM.drop(old);
    }

    public final Group getGroup() throws MPIException {
        MPI.check();
        try {
            return new Group(Native.mpi.commGroup(handle));
        } catch (MpiException e) {
            throw Native.exception(e);
        }
    }

    public final boolean isInter() throws MPIException {
        MPI.check();
        return F.TEST_INTER.intOut(handle) != 0;
    }

    /**
     * {@code MPI_Intercomm_create}, called on the peer communicator (as a send to the remote leader would be):
     * {@code localComm} is this process's group, {@code localLeader} a rank in it, {@code remoteLeader} the other
     * group's leader's rank in this (peer) communicator.
     */
    public final Intercomm createIntercomm(Comm localComm, int localLeader, int remoteLeader, int tag)
            throws MPIException {
        MPI.check();
        return new Intercomm(F.INTERCOMM_CREATE.handleOut(localComm.handle, localLeader, handle, remoteLeader, tag));
    }

    // ---- point-to-point ----

    static void need(Object buf, int count, String name) {
        if (buf == null && count > 0) {
            throw new IllegalArgumentException(name + " is null but count is " + count);
        }
    }

    static void checkType(Datatype type) {
        if (type == null) {
            throw new IllegalArgumentException("the datatype is null");
        }
    }

    private static void checkCount(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count is negative: " + count);
        }
    }

    /** {@code MPI_Send}. */
    public final void send(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        MPI.check();
        checkCount(count);
        checkType(type);
        need(buf, count, "buf");
        long b = Staging.direct(buf, count, type);
        if (b == -1) {
            b = Staging.get().arg(buf, count, type, Staging.IN);
        }
        try {
            Native.mpi.send(b, count, type.handle, Native.rankToNative(dest), tag, handle);
        } catch (MpiException e) {
            throw Native.exception(e);
        }
    }

    /**
     * {@code MPI_Recv}.
     *
     * <p>Small on purpose: the receive itself ({@link #receive}) is called through {@link #RECEIVE}, a method handle
     * the JIT cannot look through, so this method compiles to a few instructions and is inlined into the caller's
     * loop, where escape analysis removes a {@code Status} the caller ignores. Allocated, a status per receive costs
     * small messages ~0.2 µs in page faults of fresh heap until the first young collection (docs/ompi-java.md).
     */
    public final Status recv(Object buf, int count, Datatype type, int source, int tag) throws MPIException {
        Status.Words w;
        try {
            w = (Status.Words) RECEIVE.invokeExact(this, buf, count, type, source, tag);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        return new Status(w);
    }

    /**
     * {@link #receive} as a method handle. Not final: the JIT inlines a method handle only from a constant, and
     * {@code receive} (the checks, the buffer lookup, the downcall) would make {@code recv} too large to inline.
     */
    private static java.lang.invoke.MethodHandle RECEIVE = receiveHandle();

    private static java.lang.invoke.MethodHandle receiveHandle() {
        try {
            return java.lang.invoke.MethodHandles.lookup().findStatic(Comm.class, "receive",
                    java.lang.invoke.MethodType.methodType(Status.Words.class, Comm.class, Object.class, int.class,
                            Datatype.class, int.class, int.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@code MPI_Recv} into {@code buf}; returns the status's words. */
    private static Status.Words receive(Comm comm, Object buf, int count, Datatype type, int source, int tag)
            throws MPIException {
        MPI.check();
        checkCount(count);
        checkType(type);
        need(buf, count, "buf");
        long b = Staging.direct(buf, count, type);
        Staging g = null;
        if (b == -1) {
            g = Staging.get();
            b = g.arg(buf, count, type, Staging.RECV);
        }
        Scratch s = Scratch.get();
        int st = s.status();
        try {
            Native.mpi.recvStatus(b, count, type.handle, Native.rankToNative(source), tag, comm.handle, s.at(st));
        } catch (MpiException e) {
            if (g != null) {
                g.abandon();
            }
            throw Native.exception(e);
        }
        if (g != null) {
            g.finish();
            g.finishReceived(buf, Status.receivedBytes(s.buf(), st));
        }
        return s.words(st);
    }

    /** {@code MPI_Sendrecv}. */
    public final Status sendRecv(Object sendbuf, int sendcount, Datatype sendtype, int dest, int sendtag,
            Object recvbuf, int recvcount, Datatype recvtype, int source, int recvtag) throws MPIException {
        MPI.check();
        checkCount(sendcount);
        checkCount(recvcount);
        checkType(sendtype);
        checkType(recvtype);
        need(sendbuf, sendcount, "sendbuf");
        need(recvbuf, recvcount, "recvbuf");
        Staging g = Staging.get();
        long sb = g.arg(sendbuf, sendcount, sendtype, Staging.IN);
        long rb = g.arg(recvbuf, recvcount, recvtype, Staging.INOUT);
        Scratch s = Scratch.get();
        int st = s.status();
        try {
            F.SENDRECV.call(sb, sendcount, sendtype.handle, Native.rankToNative(dest), sendtag, rb, recvcount,
                    recvtype.handle, Native.rankToNative(source), recvtag, handle, s.at(st));
        } catch (MPIException e) {
            g.abandon();
            throw e;
        }
        g.finish();
        return Status.of(s, st);
    }

    /** {@code MPI_Sendrecv_replace}. */
    public final Status sendRecvReplace(Object buf, int count, Datatype type, int dest, int sendtag, int source,
            int recvtag) throws MPIException {
        MPI.check();
        checkCount(count);
        checkType(type);
        need(buf, count, "buf");
        Staging g = Staging.get();
        long b = g.arg(buf, count, type, Staging.INOUT);
        Scratch s = Scratch.get();
        int st = s.status();
        try {
            F.SENDRECV_REPLACE.call(b, count, type.handle, Native.rankToNative(dest), sendtag,
                    Native.rankToNative(source), recvtag, handle, s.at(st));
        } catch (MPIException e) {
            g.abandon();
            throw e;
        }
        g.finish();
        return Status.of(s, st);
    }

    private void sendMode(Native.Fn fn, Object buf, int count, Datatype type, int dest, int tag)
            throws MPIException {
        MPI.check();
        checkCount(count);
        checkType(type);
        need(buf, count, "buf");
        long b = Staging.get().arg(buf, count, type, Staging.IN);
        fn.call(b, count, type.handle, Native.rankToNative(dest), tag, handle);
    }

    /** {@code MPI_Bsend} (needs {@link MPI#attachBuffer}). */
    public final void bSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        sendMode(F.BSEND, buf, count, type, dest, tag);
    }

    /** {@code MPI_Ssend}. */
    public final void sSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        sendMode(F.SSEND, buf, count, type, dest, tag);
    }

    /** {@code MPI_Rsend}. */
    public final void rSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        sendMode(F.RSEND, buf, count, type, dest, tag);
    }

    /** The five point-to-point starts: ({@code MPI_Isend} and {@code MPI_Irecv} have typed fast paths). */
    private static final int ISEND = 0;
    private static final int IBSEND = 1;
    private static final int ISSEND = 2;
    private static final int IRSEND = 3;
    private static final int IRECV = 4;

    private Request start(int kind, Object buf, int count, Datatype type, int rank, int tag) throws MPIException {
        MPI.check();
        checkCount(count);
        checkType(type);
        need(buf, count, "buf");
        boolean receive = kind == IRECV;
        long address;
        ArrayCopy copy = null;
        Object target = null;
        int from = 0;
        int length = 0;
        if (buf == null || buf instanceof Buffer b && b.isDirect()) {
            address = Staging.direct(buf, count, type); // 0 for null; no thread-local look-up
        } else {
            // a Java array (or heap buffer): its own native copy, held by the request until it completes
            Object array = buf;
            int offset = 0;
            if (buf instanceof Buffer hb) {
                if (!hb.hasArray()) {
                    throw new IllegalArgumentException("a read-only heap buffer cannot be used: pass a direct one");
                }
                array = hb.array();
                offset = hb.arrayOffset();
            }
            Staging.checkFits(array, offset, count, type);
            int es = Staging.elementBytes(array);
            long low = type.spanLow(count);
            long high = type.spanHigh(count);
            int first = (int) (low / es);
            length = (int) ((high + es - 1) / es) - first;
            from = offset + first;
            copy = Blocks.take(Math.max(1L, (long) length * es));
            // a receive is copied in too: what the message does not cover is copied back unchanged
            copy.put(array, from, length);
            target = receive ? array : null;
            address = copy.base - (long) first * es;
        }
        int r = Native.rankToNative(rank);
        long h;
        try {
            h = switch (kind) {
                case ISEND -> Native.mpi.isend(address, count, type.handle, r, tag, handle);
                case IRECV -> Native.mpi.irecv(address, count, type.handle, r, tag, handle);
                default -> startMode(kind, address, count, type, r, tag);
            };
        } catch (MpiException e) {
            if (copy != null) {
                Blocks.give(copy);
            }
            throw Native.exception(e);
        } catch (MPIException e) {
            if (copy != null) {
                Blocks.give(copy);
            }
            throw e;
        }
        Request req = new Request(h);
        if (copy != null) {
            req.holdArray(copy, target, from, length);
        } else if (buf instanceof Buffer b) {
            if (receive) {
                req.addRecvBufRef(b);
            } else {
                req.addSendBufRef(b);
            }
        }
        return req;
    }

    private long startMode(int kind, long address, int count, Datatype type, int rank, int tag)
            throws MPIException {
        Native.Fn fn = kind == IBSEND ? F.IBSEND : kind == ISSEND ? F.ISSEND : F.IRSEND;
        Scratch s = Scratch.get();
        int out = s.handleOut();
        fn.call(address, count, type.handle, rank, tag, handle, s.at(out));
        return s.getHandle(out);
    }

    /** {@code MPI_Isend} from a direct buffer. */
    public final Request iSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return start(ISEND, buf, count, type, dest, tag);
    }

    /**
     * {@code MPI_Isend} from a Java array (copied to native memory first, so the array can be reused at once) or
     * a direct buffer. Not in Open MPI's {@code mpi.jar}: code written for MVAPICH2-J passes arrays here.
     */
    public final Request iSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return start(ISEND, buf, count, type, dest, tag);
    }

    public final Request ibSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return start(IBSEND, buf, count, type, dest, tag);
    }

    /** {@code MPI_Ibsend} from an array or buffer (an addition, as {@link #iSend(Object, int, Datatype, int, int)}). */
    public final Request ibSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return start(IBSEND, buf, count, type, dest, tag);
    }

    public final Request isSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return start(ISSEND, buf, count, type, dest, tag);
    }

    /** {@code MPI_Issend} from an array or buffer (an addition, as {@link #iSend(Object, int, Datatype, int, int)}). */
    public final Request isSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return start(ISSEND, buf, count, type, dest, tag);
    }

    public final Request irSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return start(IRSEND, buf, count, type, dest, tag);
    }

    /** {@code MPI_Irsend} from an array or buffer (an addition, as {@link #iSend(Object, int, Datatype, int, int)}). */
    public final Request irSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return start(IRSEND, buf, count, type, dest, tag);
    }

    /** {@code MPI_Irecv} into a direct buffer. */
    public final Request iRecv(Buffer buf, int count, Datatype type, int source, int tag) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return start(IRECV, buf, count, type, source, tag);
    }

    /**
     * {@code MPI_Irecv} into a Java array (received into native memory, copied into the array when the request
     * completes) or a direct buffer. An addition for MVAPICH2-J code, as {@link #iSend(Object, int, Datatype, int,
     * int)}.
     */
    public final Request iRecv(Object buf, int count, Datatype type, int source, int tag) throws MPIException {
        return start(IRECV, buf, count, type, source, tag);
    }

    private Prequest persistent(Native.Fn fn, Buffer buf, int count, Datatype type, int rank, int tag,
            boolean receive) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(buf);
        checkCount(count);
        checkType(type);
        long b = Staging.get().arg(buf, count, type, Staging.IN);
        Scratch s = Scratch.get();
        int out = s.handleOut();
        fn.call(b, count, type.handle, Native.rankToNative(rank), tag, handle, s.at(out));
        Prequest p = new Prequest(s.getHandle(out));
        if (receive) {
            p.addRecvBufRef(buf);
        } else {
            p.addSendBufRef(buf);
        }
        return p;
    }

    public final Prequest sendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return persistent(F.SEND_INIT, buf, count, type, dest, tag, false);
    }

    public final Prequest bSendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return persistent(F.BSEND_INIT, buf, count, type, dest, tag, false);
    }

    public final Prequest sSendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return persistent(F.SSEND_INIT, buf, count, type, dest, tag, false);
    }

    public final Prequest rSendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return persistent(F.RSEND_INIT, buf, count, type, dest, tag, false);
    }

    public final Prequest recvInit(Buffer buf, int count, Datatype type, int source, int tag) throws MPIException {
        return persistent(F.RECV_INIT, buf, count, type, source, tag, true);
    }

    // ---- pack ----

    /**
     * {@code MPI_Pack}: packs {@code incount} elements of {@code inbuf} into {@code outbuf} from byte
     * {@code position}; returns the new position.
     */
    public final int pack(Object inbuf, int incount, Datatype type, byte[] outbuf, int position)
            throws MPIException {
        MPI.check();
        checkCount(incount);
        checkType(type);
        need(inbuf, incount, "inbuf");
        if (outbuf == null) {
            throw new IllegalArgumentException("outbuf is null");
        }
        if (position < 0 || position > outbuf.length) {
            throw new IllegalArgumentException("position " + position + " is outside outbuf (" + outbuf.length
                    + " bytes)");
        }
        Staging g = Staging.get();
        long in = g.arg(inbuf, incount, type, Staging.IN);
        long out = g.argSpan(outbuf, 0, outbuf.length, true, true, outbuf.length, MPI.BYTE);
        Scratch s = Scratch.get();
        int pos = s.intOut();
        s.buf().putInt(pos, position);
        try {
            F.PACK.call(in, incount, type.handle, out, outbuf.length, s.at(pos), handle);
        } catch (MPIException e) {
            g.abandon();
            throw e;
        }
        g.finish();
        return s.getInt(pos);
    }

    /** {@code MPI_Unpack}: unpacks {@code outcount} elements from {@code inbuf} at byte {@code position}. */
    public final int unpack(byte[] inbuf, int position, Object outbuf, int outcount, Datatype type)
            throws MPIException {
        MPI.check();
        checkCount(outcount);
        checkType(type);
        need(outbuf, outcount, "outbuf");
        if (inbuf == null) {
            throw new IllegalArgumentException("inbuf is null");
        }
        if (position < 0 || position > inbuf.length) {
            throw new IllegalArgumentException("position " + position + " is outside inbuf (" + inbuf.length
                    + " bytes)");
        }
        Staging g = Staging.get();
        long in = g.argSpan(inbuf, 0, inbuf.length, true, false, inbuf.length, MPI.BYTE);
        long out = g.arg(outbuf, outcount, type, Staging.INOUT);
        Scratch s = Scratch.get();
        int pos = s.intOut();
        s.buf().putInt(pos, position);
        try {
            F.UNPACK.call(in, inbuf.length, s.at(pos), out, outcount, type.handle, handle);
        } catch (MPIException e) {
            g.abandon();
            throw e;
        }
        g.finish();
        return s.getInt(pos);
    }

    /** {@code MPI_Pack_size}: an upper bound of the bytes {@code incount} elements pack into. */
    public final int packSize(int incount, Datatype type) throws MPIException {
        MPI.check();
        checkType(type);
        return F.PACK_SIZE.intOut(incount, type.handle, handle);
    }

    // ---- probe ----

    /** {@code MPI_Iprobe}: the status of a waiting message, else null. */
    public final Status iProbe(int source, int tag) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int flag = s.intOut();
        int st = s.status();
        F.IPROBE.call(Native.rankToNative(source), tag, handle, s.at(flag), s.at(st));
        return s.getInt(flag) == 0 ? null : Status.of(s, st);
    }

    /** {@code MPI_Probe}. */
    public final Status probe(int source, int tag) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int st = s.status();
        F.PROBE.call(Native.rankToNative(source), tag, handle, s.at(st));
        return Status.of(s, st);
    }

    // ---- attributes ----

    public static int createKeyval() throws MPIException {
        MPI.check();
        return Attributes.createKeyval();
    }

    public static void freeKeyval(int keyval) throws MPIException {
        MPI.check();
        Attributes.freeKeyval(keyval);
    }

    public final void setAttr(int keyval, Object value) throws MPIException {
        MPI.check();
        Attributes.COMM.set(handle, keyval, value);
    }

    /**
     * A predefined attribute ({@link MPI#TAG_UB}, {@link MPI#HOST}, {@link MPI#IO}, {@link MPI#WTIME_IS_GLOBAL},
     * {@link MPI#APPNUM}, {@link MPI#LASTUSEDCODE}, {@link MPI#UNIVERSE_SIZE}: an {@code Integer}, a
     * {@code Boolean} for WTIME_IS_GLOBAL; null when the library does not set it) or a user one.
     */
    public final Object getAttr(int keyval) throws MPIException {
        MPI.check();
        String name = predefinedKey(keyval);
        if (name == null) {
            return Attributes.COMM.get(handle, keyval);
        }
        Scratch s = Scratch.get();
        int value = s.handleOut();
        int flag = s.intOut();
        F.GET_ATTR.call(handle, Native.nativeInt(name), s.at(value), s.at(flag));
        if (s.getInt(flag) == 0) {
            return null;
        }
        int v = Native.mpi.memory(s.getLong(value), 4).order(java.nio.ByteOrder.nativeOrder()).getInt(0);
        return switch (name) {
            case "MPI_WTIME_IS_GLOBAL" -> v != 0;
            case "MPI_HOST", "MPI_IO" -> Native.rankToJava(v);
            case "MPI_LASTUSEDCODE" -> Native.errorClassToJava(v);
            default -> v;
        };
    }

    private static String predefinedKey(int keyval) {
        if (keyval == MPI.TAG_UB) {
            return "MPI_TAG_UB";
        } else if (keyval == MPI.HOST) {
            return "MPI_HOST";
        } else if (keyval == MPI.IO) {
            return "MPI_IO";
        } else if (keyval == MPI.WTIME_IS_GLOBAL) {
            return "MPI_WTIME_IS_GLOBAL";
        } else if (keyval == MPI.APPNUM) {
            return "MPI_APPNUM";
        } else if (keyval == MPI.LASTUSEDCODE) {
            return "MPI_LASTUSEDCODE";
        } else if (keyval == MPI.UNIVERSE_SIZE) {
            return "MPI_UNIVERSE_SIZE";
        }
        return null;
    }

    public final void deleteAttr(int keyval) throws MPIException {
        MPI.check();
        Attributes.COMM.delete(handle, keyval);
    }

    /** {@code MPI_Topo_test}: {@link MPI#CART}, {@link MPI#GRAPH}, {@link MPI#DIST_GRAPH} or {@link MPI#UNDEFINED}. */
    public final int getTopology() throws MPIException {
        MPI.check();
        int t = F.TOPO_TEST.intOut(handle);
        if (t == Native.nativeInt("MPI_CART")) {
            return MPI.CART;
        } else if (t == Native.nativeInt("MPI_GRAPH")) {
            return MPI.GRAPH;
        } else if (t == Native.nativeInt("MPI_DIST_GRAPH")) {
            return MPI.DIST_GRAPH;
        }
        return MPI.UNDEFINED;
    }

    /** {@code MPI_Abort}: ends the job. */
    public final void abort(int errorcode) throws MPIException {
        MPI.check();
        try {
            Native.mpi.abort(handle, errorcode);
        } catch (MpiException e) {
            throw Native.exception(e);
        }
    }

    /** {@code MPI_Comm_set_errhandler}: {@link MPI#ERRORS_RETURN} makes failed calls throw {@link MPIException}. */
    public final void setErrhandler(Errhandler errhandler) throws MPIException {
        MPI.check();
        F.SET_ERRHANDLER.call(handle, errhandler.handle);
    }

    public final Errhandler getErrhandler() throws MPIException {
        MPI.check();
        return Errhandler.of(F.GET_ERRHANDLER.handleOut(handle));
    }

    /** {@code MPI_Comm_call_errhandler}. */
    public void callErrhandler(int errorCode) throws MPIException {
        MPI.check();
        F.CALL_ERRHANDLER.call(handle, errorCode);
    }

    // ---- collectives ----

    public final void barrier() throws MPIException {
        MPI.check();
        try {
            Native.mpi.barrier(handle);
        } catch (MpiException e) {
            throw Native.exception(e);
        }
    }

    public final Request iBarrier() throws MPIException {
        MPI.check();
        try {
            return new Request(Native.mpi.ibarrier(handle));
        } catch (MpiException e) {
            throw Native.exception(e);
        }
    }

    /** A Java array MPI may get as it is (FFM, blocking collective), else null: arrays of the five pinnable types. */
    /**
     * The elements MPI reads from {@code send} when they can be copied into {@code recv} with one
     * {@code System.arraycopy} (two distinct arrays of one element type, a type without holes reaching whole elements
     * from element 0), else -1.
     */
    static int copyableElements(Object send, Object recv, int count, Datatype type) {
        if (send == recv || send.getClass() != recv.getClass() || !type.isDense() || type.spanLow(count) != 0) {
            return -1;
        }
        long bytes = type.spanHigh(count);
        int es = Staging.elementBytes(recv);
        return bytes % es == 0 ? (int) (bytes / es) : -1;
    }

    static boolean pinnable(Object buf) {
        return Native.pinArrays && (buf instanceof float[] || buf instanceof double[] || buf instanceof int[]
                || buf instanceof long[] || buf instanceof byte[]);
    }

    public final void bcast(Object buf, int count, Datatype type, int root) throws MPIException {
        MPI.check();
        checkCount(count);
        checkType(type);
        need(buf, count, "buf");
        int r = Native.rankToNative(root);
        try {
            if (pinnable(buf)) {
                Staging.checkFits(buf, count, type);
                Native.mpi.bcastHeap(buf, count, type.handle, r, handle);
                return;
            }
            long b = Staging.direct(buf, count, type);
            if (b != -1) {
                Native.mpi.bcast(b, count, type.handle, r, handle);
                return;
            }
            Staging g = Staging.get();
            b = g.arg(buf, count, type, Staging.INOUT);
            try {
                Native.mpi.bcast(b, count, type.handle, r, handle);
            } catch (MpiException e) {
                g.abandon();
                throw e;
            }
            g.finish();
        } catch (MpiException e) {
            throw Native.exception(e);
        }
    }

    /** A non-blocking collective's request, keeping its direct buffers reachable until it completes. */
    static Request request(long h, Buffer send, Buffer recv) {
        Request r = new Request(h);
        r.addSendBufRef(send);
        r.addRecvBufRef(recv);
        return r;
    }

    static void direct(Buffer buf) {
        if (buf != null) {
            MPI.assertDirectBuffer(buf);
        }
    }

    public final Request iBcast(Buffer buf, int count, Datatype type, int root) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(buf);
        checkType(type);
        long b = Staging.get().arg(buf, count, type, Staging.INOUT);
        try {
            return request(Native.mpi.ibcast(b, count, type.handle, Native.rankToNative(root), handle), buf, buf);
        } catch (MpiException e) {
            throw Native.exception(e);
        }
    }

    /** Whether this rank is {@code root} of this (intra)communicator. */
    private boolean isRoot(int root) throws MPIException {
        return root == getRank();
    }

    /** The number of counts v-collectives take: the group size, the remote group's for intercommunicators. */
    int countsSize() throws MPIException {
        if (isInter()) {
            return F.REMOTE_SIZE.intOut(handle);
        }
        return getSize();
    }

    static void checkCounts(int[] counts, int[] displs, int n, String what) {
        if (counts == null || displs == null) {
            throw new IllegalArgumentException(what + " counts and displacements must not be null");
        }
        if (counts.length < n || displs.length < n) {
            throw new IllegalArgumentException(what + " counts (" + counts.length + ") and displacements ("
                    + displs.length + ") need one entry per process (" + n + ")");
        }
    }

    private static long inPlace() {
        return Native.inPlace;
    }

    public final void gather(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount,
            Datatype recvtype, int root) throws MPIException {
        MPI.check();
        checkType(sendtype);
        boolean atRoot = !isInter() ? isRoot(root) : root == MPI.ROOT;
        int n = atRoot ? countsSize() : 0;
        Staging g = Staging.get();
        long sb = g.arg(sendbuf, sendcount, sendtype, Staging.IN);
        long rb = atRoot ? g.arg(recvbuf, recvcount * n, recvtype, Staging.OUT) : 0;
        call(g, F.GATHER, sb, sendcount, sendtype.handle, rb, recvcount, atRoot ? recvtype.handle : sendtype.handle,
                Native.rankToNative(root), handle);
    }

    /** In-place gather: the root gathers into {@code buf} (its own block already there); the others send from it. */
    public final void gather(Object buf, int count, Datatype type, int root) throws MPIException {
        MPI.check();
        checkType(type);
        Staging g = Staging.get();
        if (isRoot(root)) {
            long b = g.arg(buf, count * getSize(), type, Staging.INOUT);
            call(g, F.GATHER, inPlace(), 0, type.handle, b, count, type.handle, root, handle);
        } else {
            long b = g.arg(buf, count, type, Staging.IN);
            call(g, F.GATHER, b, count, type.handle, 0, 0, type.handle, root, handle);
        }
    }

    /** Runs a blocking collective on staged arguments and copies results back (or drops them on failure). */
    private static void call(Staging g, Native.Fn fn, long... args) throws MPIException {
        try {
            fn.call(args);
        } catch (MPIException e) {
            g.abandon();
            throw e;
        }
        g.finish();
    }

    private static long buf(Buffer b) {
        return b == null ? 0 : Native.address(b);
    }

    /** A non-blocking collective: its request out-parameter appended to {@code args}. */
    private static long start(Native.Fn fn, long... args) throws MPIException {
        Scratch s = Scratch.get();
        int out = s.handleOut();
        long[] all = java.util.Arrays.copyOf(args, args.length + 1);
        all[args.length] = s.at(out);
        fn.call(all);
        return s.getHandle(out);
    }

    public final Request iGather(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int recvcount,
            Datatype recvtype, int root) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(sendbuf);
        direct(recvbuf);
        checkType(sendtype);
        boolean atRoot = !isInter() ? isRoot(root) : root == MPI.ROOT;
        if (atRoot) {
            Staging.checkFits(recvbuf, recvcount * countsSize(), recvtype);
        }
        Staging.checkFits(sendbuf, sendcount, sendtype);
        long h = start(F.IGATHER, buf(sendbuf), sendcount, sendtype.handle, atRoot ? buf(recvbuf) : 0, recvcount,
                (atRoot ? recvtype : sendtype).handle, Native.rankToNative(root), handle);
        return request(h, sendbuf, recvbuf);
    }

    public final Request iGather(Buffer buf, int count, Datatype type, int root) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(buf);
        checkType(type);
        long h;
        if (isRoot(root)) {
            Staging.checkFits(buf, count * getSize(), type);
            h = start(F.IGATHER, inPlace(), 0, type.handle, buf(buf), count, type.handle, root, handle);
        } else {
            Staging.checkFits(buf, count, type);
            h = start(F.IGATHER, buf(buf), count, type.handle, 0, 0, type.handle, root, handle);
        }
        return request(h, buf, buf);
    }

    public final void gatherv(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int[] recvcount,
            int[] displs, Datatype recvtype, int root) throws MPIException {
        MPI.check();
        checkType(sendtype);
        boolean atRoot = !isInter() ? isRoot(root) : root == MPI.ROOT;
        Staging g = Staging.get();
        long sb = g.arg(sendbuf, sendcount, sendtype, Staging.IN);
        long rb = 0;
        Scratch s = Scratch.get();
        int rc = 0;
        int ds = 0;
        if (atRoot) {
            int n = countsSize();
            checkCounts(recvcount, displs, n, "gatherv receive");
            rb = g.argV(recvbuf, recvcount, displs, n, recvtype, Staging.OUT);
            rc = s.ints(recvcount);
            ds = s.ints(displs);
        }
        call(g, F.GATHERV, sb, sendcount, sendtype.handle, rb, atRoot ? s.at(rc) : 0, atRoot ? s.at(ds) : 0,
                (atRoot ? recvtype : sendtype).handle, Native.rankToNative(root), handle);
    }

    /** In-place gatherv at the root: the root's block is already in {@code recvbuf}. */
    public final void gatherv(Object recvbuf, int[] recvcount, int[] displs, Datatype recvtype, int root)
            throws MPIException {
        MPI.check();
        checkType(recvtype);
        int n = getSize();
        checkCounts(recvcount, displs, n, "gatherv receive");
        Staging g = Staging.get();
        long rb = g.argV(recvbuf, recvcount, displs, n, recvtype, Staging.INOUT);
        Scratch s = Scratch.get();
        int rc = s.ints(recvcount);
        int ds = s.ints(displs);
        call(g, F.GATHERV, inPlace(), 0, recvtype.handle, rb, s.at(rc), s.at(ds), recvtype.handle, root, handle);
    }

    /** Gatherv on a non-root rank: only the send side. */
    public final void gatherv(Object sendbuf, int sendcount, Datatype sendtype, int root) throws MPIException {
        MPI.check();
        checkType(sendtype);
        Staging g = Staging.get();
        long sb = g.arg(sendbuf, sendcount, sendtype, Staging.IN);
        call(g, F.GATHERV, sb, sendcount, sendtype.handle, 0, 0, 0, sendtype.handle, Native.rankToNative(root),
                handle);
    }

    public final Request iGatherv(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf,
            int[] recvcount, int[] displs, Datatype recvtype, int root) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(sendbuf);
        direct(recvbuf);
        checkType(sendtype);
        Staging.checkFits(sendbuf, sendcount, sendtype);
        boolean atRoot = !isInter() ? isRoot(root) : root == MPI.ROOT;
        long rb = 0;
        if (atRoot) {
            int n = countsSize();
            checkCounts(recvcount, displs, n, "gatherv receive");
            rb = Staging.get().argV(recvbuf, recvcount, displs, n, recvtype, Staging.OUT);
        }
        long h = startV(F.IGATHERV, atRoot, buf(sendbuf), sendcount, sendtype.handle, rb, recvcount, displs,
                (atRoot ? recvtype : sendtype).handle, Native.rankToNative(root), handle);
        return request(h, sendbuf, recvbuf);
    }

    /**
     * A non-blocking v-collective whose counts and displacements MPI may read until it completes: they are copied
     * to native memory owned by the request's lifetime (kept reachable by the returned request's buffers).
     */
    private static long startV(Native.Fn fn, boolean withCounts, long send, int sendcount, long sendtype, long recv,
            int[] counts, int[] displs, long recvtype, int root, long comm) throws MPIException {
        long c = 0;
        long d = 0;
        if (withCounts) {
            c = pinnedInts(counts);
            d = pinnedInts(displs);
        }
        return start(fn, send, sendcount, sendtype, recv, c, d, recvtype, root, comm);
    }

    /**
     * Argument arrays of non-blocking collectives must stay valid until completion; they are copied into native
     * memory that is never reused (small, and rare next to the data).
     */
    static long pinnedInts(int[] values) {
        java.nio.ByteBuffer b = Native.allocate(4 * values.length);
        for (int i = 0; i < values.length; i++) {
            b.putInt(4 * i, values[i]);
        }
        KEEP.add(b);
        return Native.address(b);
    }

    /** Native argument arrays of non-blocking collectives (kept for the life of the process). */
    private static final java.util.List<java.nio.ByteBuffer> KEEP =
            java.util.Collections.synchronizedList(new java.util.ArrayList<>());

    public final Request iGatherv(Buffer recvbuf, int[] recvcount, int[] displs, Datatype recvtype, int root)
            throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(recvbuf);
        checkType(recvtype);
        int n = getSize();
        checkCounts(recvcount, displs, n, "gatherv receive");
        long rb = Staging.get().argV(recvbuf, recvcount, displs, n, recvtype, Staging.INOUT);
        long h = startV(F.IGATHERV, true, inPlace(), 0, recvtype.handle, rb, recvcount, displs, recvtype.handle,
                root, handle);
        return request(h, recvbuf, recvbuf);
    }

    public final Request iGatherv(Buffer sendbuf, int sendcount, Datatype sendtype, int root) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(sendbuf);
        checkType(sendtype);
        Staging.checkFits(sendbuf, sendcount, sendtype);
        long h = start(F.IGATHERV, buf(sendbuf), sendcount, sendtype.handle, 0, 0, 0, sendtype.handle,
                Native.rankToNative(root), handle);
        return request(h, sendbuf, null);
    }

    public final void scatter(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount,
            Datatype recvtype, int root) throws MPIException {
        MPI.check();
        checkType(recvtype);
        boolean atRoot = !isInter() ? isRoot(root) : root == MPI.ROOT;
        int n = atRoot ? countsSize() : 0;
        Staging g = Staging.get();
        long sb = atRoot ? g.arg(sendbuf, sendcount * n, sendtype, Staging.IN) : 0;
        long rb = g.arg(recvbuf, recvcount, recvtype, Staging.OUT);
        call(g, F.SCATTER, sb, sendcount, (atRoot ? sendtype : recvtype).handle, rb, recvcount, recvtype.handle,
                Native.rankToNative(root), handle);
    }

    /** In-place scatter: the root scatters from {@code buf} (keeping its own block); the others receive into it. */
    public final void scatter(Object buf, int count, Datatype type, int root) throws MPIException {
        MPI.check();
        checkType(type);
        Staging g = Staging.get();
        if (isRoot(root)) {
            long b = g.arg(buf, count * getSize(), type, Staging.IN);
            call(g, F.SCATTER, b, count, type.handle, inPlace(), 0, type.handle, root, handle);
        } else {
            long b = g.arg(buf, count, type, Staging.OUT);
            call(g, F.SCATTER, 0, 0, type.handle, b, count, type.handle, root, handle);
        }
    }

    public final Request iScatter(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf,
            int recvcount, Datatype recvtype, int root) throws MPIException {
        MPI.check();
        direct(sendbuf);
        MPI.assertDirectBuffer(recvbuf);
        checkType(recvtype);
        boolean atRoot = !isInter() ? isRoot(root) : root == MPI.ROOT;
        if (atRoot) {
            Staging.checkFits(sendbuf, sendcount * countsSize(), sendtype);
        }
        Staging.checkFits(recvbuf, recvcount, recvtype);
        long h = start(F.ISCATTER, atRoot ? buf(sendbuf) : 0, sendcount, (atRoot ? sendtype : recvtype).handle,
                buf(recvbuf), recvcount, recvtype.handle, Native.rankToNative(root), handle);
        return request(h, sendbuf, recvbuf);
    }

    public final Request iScatter(Buffer buf, int count, Datatype type, int root) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(buf);
        checkType(type);
        long h;
        if (isRoot(root)) {
            Staging.checkFits(buf, count * getSize(), type);
            h = start(F.ISCATTER, buf(buf), count, type.handle, inPlace(), 0, type.handle, root, handle);
        } else {
            Staging.checkFits(buf, count, type);
            h = start(F.ISCATTER, 0, 0, type.handle, buf(buf), count, type.handle, root, handle);
        }
        return request(h, buf, buf);
    }

    public final void scatterv(Object sendbuf, int[] sendcount, int[] displs, Datatype sendtype, Object recvbuf,
            int recvcount, Datatype recvtype, int root) throws MPIException {
        MPI.check();
        checkType(recvtype);
        boolean atRoot = !isInter() ? isRoot(root) : root == MPI.ROOT;
        Staging g = Staging.get();
        Scratch s = Scratch.get();
        long sb = 0;
        int sc = 0;
        int ds = 0;
        if (atRoot) {
            int n = countsSize();
            checkCounts(sendcount, displs, n, "scatterv send");
            sb = g.argV(sendbuf, sendcount, displs, n, sendtype, Staging.IN);
            sc = s.ints(sendcount);
            ds = s.ints(displs);
        }
        long rb = g.arg(recvbuf, recvcount, recvtype, Staging.OUT);
        call(g, F.SCATTERV, sb, atRoot ? s.at(sc) : 0, atRoot ? s.at(ds) : 0, (atRoot ? sendtype : recvtype).handle,
                rb, recvcount, recvtype.handle, Native.rankToNative(root), handle);
    }

    /** In-place scatterv at the root: it keeps its own block in {@code sendbuf}. */
    public final void scatterv(Object sendbuf, int[] sendcount, int[] displs, Datatype sendtype, int root)
            throws MPIException {
        MPI.check();
        checkType(sendtype);
        int n = getSize();
        checkCounts(sendcount, displs, n, "scatterv send");
        Staging g = Staging.get();
        long sb = g.argV(sendbuf, sendcount, displs, n, sendtype, Staging.IN);
        Scratch s = Scratch.get();
        int sc = s.ints(sendcount);
        int ds = s.ints(displs);
        call(g, F.SCATTERV, sb, s.at(sc), s.at(ds), sendtype.handle, inPlace(), 0, sendtype.handle, root, handle);
    }

    /** Scatterv on a non-root rank: only the receive side. */
    public final void scatterv(Object recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        MPI.check();
        checkType(recvtype);
        Staging g = Staging.get();
        long rb = g.arg(recvbuf, recvcount, recvtype, Staging.OUT);
        call(g, F.SCATTERV, 0, 0, 0, recvtype.handle, rb, recvcount, recvtype.handle, Native.rankToNative(root),
                handle);
    }

    public final Request iScatterv(Buffer sendbuf, int[] sendcount, int[] displs, Datatype sendtype,
            Buffer recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        MPI.check();
        direct(sendbuf);
        MPI.assertDirectBuffer(recvbuf);
        checkType(recvtype);
        boolean atRoot = !isInter() ? isRoot(root) : root == MPI.ROOT;
        long sb = 0;
        long c = 0;
        long d = 0;
        if (atRoot) {
            int n = countsSize();
            checkCounts(sendcount, displs, n, "scatterv send");
            sb = Staging.get().argV(sendbuf, sendcount, displs, n, sendtype, Staging.IN);
            c = pinnedInts(sendcount);
            d = pinnedInts(displs);
        }
        Staging.checkFits(recvbuf, recvcount, recvtype);
        long h = start(F.ISCATTERV, sb, c, d, (atRoot ? sendtype : recvtype).handle, buf(recvbuf), recvcount,
                recvtype.handle, Native.rankToNative(root), handle);
        return request(h, sendbuf, recvbuf);
    }

    public final Request iScatterv(Buffer sendbuf, int[] sendcount, int[] displs, Datatype sendtype, int root)
            throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(sendbuf);
        checkType(sendtype);
        int n = getSize();
        checkCounts(sendcount, displs, n, "scatterv send");
        long sb = Staging.get().argV(sendbuf, sendcount, displs, n, sendtype, Staging.IN);
        long h = start(F.ISCATTERV, sb, pinnedInts(sendcount), pinnedInts(displs), sendtype.handle, inPlace(), 0,
                sendtype.handle, root, handle);
        return request(h, sendbuf, null);
    }

    public final Request iScatterv(Buffer recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(recvbuf);
        checkType(recvtype);
        Staging.checkFits(recvbuf, recvcount, recvtype);
        long h = start(F.ISCATTERV, 0, 0, 0, recvtype.handle, buf(recvbuf), recvcount, recvtype.handle,
                Native.rankToNative(root), handle);
        return request(h, null, recvbuf);
    }

    public final void allGather(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount,
            Datatype recvtype) throws MPIException {
        MPI.check();
        checkType(sendtype);
        checkType(recvtype);
        int n = countsSize();
        Staging g = Staging.get();
        long sb = g.arg(sendbuf, sendcount, sendtype, Staging.IN);
        long rb = g.arg(recvbuf, recvcount * n, recvtype, Staging.OUT);
        call(g, F.ALLGATHER, sb, sendcount, sendtype.handle, rb, recvcount, recvtype.handle, handle);
    }

    public final void allGather(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        checkType(type);
        Staging g = Staging.get();
        long b = g.arg(buf, count * getSize(), type, Staging.INOUT);
        call(g, F.ALLGATHER, inPlace(), 0, type.handle, b, count, type.handle, handle);
    }

    public final Request iAllGather(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf,
            int recvcount, Datatype recvtype) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        checkType(sendtype);
        checkType(recvtype);
        Staging.checkFits(sendbuf, sendcount, sendtype);
        Staging.checkFits(recvbuf, recvcount * countsSize(), recvtype);
        long h = start(F.IALLGATHER, buf(sendbuf), sendcount, sendtype.handle, buf(recvbuf), recvcount,
                recvtype.handle, handle);
        return request(h, sendbuf, recvbuf);
    }

    public final Request iAllGather(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(buf);
        checkType(type);
        Staging.checkFits(buf, count * getSize(), type);
        long h = start(F.IALLGATHER, inPlace(), 0, type.handle, buf(buf), count, type.handle, handle);
        return request(h, buf, buf);
    }

    public final void allGatherv(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf,
            int[] recvcount, int[] displs, Datatype recvtype) throws MPIException {
        MPI.check();
        checkType(sendtype);
        checkType(recvtype);
        int n = countsSize();
        checkCounts(recvcount, displs, n, "allGatherv receive");
        Staging g = Staging.get();
        long sb = g.arg(sendbuf, sendcount, sendtype, Staging.IN);
        long rb = g.argV(recvbuf, recvcount, displs, n, recvtype, Staging.OUT);
        Scratch s = Scratch.get();
        int rc = s.ints(recvcount);
        int ds = s.ints(displs);
        call(g, F.ALLGATHERV, sb, sendcount, sendtype.handle, rb, s.at(rc), s.at(ds), recvtype.handle, handle);
    }

    public final void allGatherv(Object recvbuf, int[] recvcount, int[] displs, Datatype recvtype)
            throws MPIException {
        MPI.check();
        checkType(recvtype);
        int n = getSize();
        checkCounts(recvcount, displs, n, "allGatherv receive");
        Staging g = Staging.get();
        long rb = g.argV(recvbuf, recvcount, displs, n, recvtype, Staging.INOUT);
        Scratch s = Scratch.get();
        int rc = s.ints(recvcount);
        int ds = s.ints(displs);
        call(g, F.ALLGATHERV, inPlace(), 0, recvtype.handle, rb, s.at(rc), s.at(ds), recvtype.handle, handle);
    }

    public final Request iAllGatherv(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf,
            int[] recvcount, int[] displs, Datatype recvtype) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        checkType(sendtype);
        checkType(recvtype);
        int n = countsSize();
        checkCounts(recvcount, displs, n, "allGatherv receive");
        Staging.checkFits(sendbuf, sendcount, sendtype);
        long rb = Staging.get().argV(recvbuf, recvcount, displs, n, recvtype, Staging.OUT);
        long h = start(F.IALLGATHERV, buf(sendbuf), sendcount, sendtype.handle, rb, pinnedInts(recvcount),
                pinnedInts(displs), recvtype.handle, handle);
        return request(h, sendbuf, recvbuf);
    }

    public final Request iAllGatherv(Buffer buf, int[] count, int[] displs, Datatype type) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(buf);
        checkType(type);
        int n = getSize();
        checkCounts(count, displs, n, "allGatherv receive");
        long rb = Staging.get().argV(buf, count, displs, n, type, Staging.INOUT);
        long h = start(F.IALLGATHERV, inPlace(), 0, type.handle, rb, pinnedInts(count), pinnedInts(displs),
                type.handle, handle);
        return request(h, buf, buf);
    }

    public final void allToAll(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount,
            Datatype recvtype) throws MPIException {
        MPI.check();
        checkType(sendtype);
        checkType(recvtype);
        int n = countsSize();
        Staging g = Staging.get();
        long sb = g.arg(sendbuf, sendcount * n, sendtype, Staging.IN);
        long rb = g.arg(recvbuf, recvcount * n, recvtype, Staging.OUT);
        call(g, F.ALLTOALL, sb, sendcount, sendtype.handle, rb, recvcount, recvtype.handle, handle);
    }

    public final Request iAllToAll(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf,
            int recvcount, Datatype recvtype) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        checkType(sendtype);
        checkType(recvtype);
        int n = countsSize();
        Staging.checkFits(sendbuf, sendcount * n, sendtype);
        Staging.checkFits(recvbuf, recvcount * n, recvtype);
        long h = start(F.IALLTOALL, buf(sendbuf), sendcount, sendtype.handle, buf(recvbuf), recvcount,
                recvtype.handle, handle);
        return request(h, sendbuf, recvbuf);
    }

    public final void allToAllv(Object sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype, Object recvbuf,
            int[] recvcount, int[] rdispls, Datatype recvtype) throws MPIException {
        MPI.check();
        checkType(sendtype);
        checkType(recvtype);
        int n = countsSize();
        checkCounts(sendcount, sdispls, n, "allToAllv send");
        checkCounts(recvcount, rdispls, n, "allToAllv receive");
        Staging g = Staging.get();
        long sb = g.argV(sendbuf, sendcount, sdispls, n, sendtype, Staging.IN);
        long rb = g.argV(recvbuf, recvcount, rdispls, n, recvtype, Staging.OUT);
        Scratch s = Scratch.get();
        int sc = s.ints(sendcount);
        int sd = s.ints(sdispls);
        int rc = s.ints(recvcount);
        int rd = s.ints(rdispls);
        call(g, F.ALLTOALLV, sb, s.at(sc), s.at(sd), sendtype.handle, rb, s.at(rc), s.at(rd), recvtype.handle,
                handle);
    }

    public final Request iAllToAllv(Buffer sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype,
            Buffer recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        checkType(sendtype);
        checkType(recvtype);
        int n = countsSize();
        checkCounts(sendcount, sdispls, n, "allToAllv send");
        checkCounts(recvcount, rdispls, n, "allToAllv receive");
        Staging g = Staging.get();
        long sb = g.argV(sendbuf, sendcount, sdispls, n, sendtype, Staging.IN);
        long rb = g.argV(recvbuf, recvcount, rdispls, n, recvtype, Staging.OUT);
        long h = start(F.IALLTOALLV, sb, pinnedInts(sendcount), pinnedInts(sdispls), sendtype.handle, rb,
                pinnedInts(recvcount), pinnedInts(rdispls), recvtype.handle, handle);
        return request(h, sendbuf, recvbuf);
    }

    /** Alltoallw's reach: block {@code i} is {@code counts[i]} elements of {@code types[i]} at byte {@code displs[i]}. */
    private static long argW(Staging g, Object buf, int[] counts, int[] displs, Datatype[] types, int n, int mode) {
        if (buf == null) {
            return 0;
        }
        long low = Long.MAX_VALUE;
        long high = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            checkType(types[i]);
            if (counts[i] > 0) {
                low = Math.min(low, displs[i] + types[i].spanLow(counts[i]));
                high = Math.max(high, displs[i] + types[i].spanHigh(counts[i]));
            }
        }
        if (high == Long.MIN_VALUE) {
            low = high = 0;
        }
        return g.argSpan(buf, low, high, true, mode != Staging.IN, n, MPI.BYTE);
    }

    private static void checkTypes(Datatype[] types, int n, String what) {
        if (types == null || types.length < n) {
            throw new IllegalArgumentException(what + " types need one entry per process (" + n + ")");
        }
    }

    private static long[] handles(Datatype[] types) {
        long[] h = new long[types.length];
        for (int i = 0; i < h.length; i++) {
            h[i] = types[i].handle;
        }
        return h;
    }

    /** {@code MPI_Alltoallw}: displacements in bytes, a datatype per process. */
    public final void allToAllw(Object sendBuf, int[] sendCount, int[] sDispls, Datatype[] sendTypes,
            Object recvBuf, int[] recvCount, int[] rDispls, Datatype[] recvTypes) throws MPIException {
        MPI.check();
        int n = countsSize();
        checkCounts(sendCount, sDispls, n, "allToAllw send");
        checkCounts(recvCount, rDispls, n, "allToAllw receive");
        checkTypes(sendTypes, n, "allToAllw send");
        checkTypes(recvTypes, n, "allToAllw receive");
        Staging g = Staging.get();
        long sb = argW(g, sendBuf, sendCount, sDispls, sendTypes, n, Staging.IN);
        long rb = argW(g, recvBuf, recvCount, rDispls, recvTypes, n, Staging.OUT);
        Scratch s = Scratch.get();
        int sc = s.ints(sendCount);
        int sd = s.ints(sDispls);
        int st = s.handles(handles(sendTypes));
        int rc = s.ints(recvCount);
        int rd = s.ints(rDispls);
        int rt = s.handles(handles(recvTypes));
        call(g, F.ALLTOALLW, sb, s.at(sc), s.at(sd), s.at(st), rb, s.at(rc), s.at(rd), s.at(rt), handle);
    }

    public final Request iAllToAllw(Buffer sendBuf, int[] sendCount, int[] sDispls, Datatype[] sendTypes,
            Buffer recvBuf, int[] recvCount, int[] rDispls, Datatype[] recvTypes) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(sendBuf, recvBuf);
        int n = countsSize();
        checkCounts(sendCount, sDispls, n, "allToAllw send");
        checkCounts(recvCount, rDispls, n, "allToAllw receive");
        checkTypes(sendTypes, n, "allToAllw send");
        checkTypes(recvTypes, n, "allToAllw receive");
        Staging g = Staging.get();
        long sb = argW(g, sendBuf, sendCount, sDispls, sendTypes, n, Staging.IN);
        long rb = argW(g, recvBuf, recvCount, rDispls, recvTypes, n, Staging.OUT);
        long st = pinnedHandles(handles(sendTypes));
        long rt = pinnedHandles(handles(recvTypes));
        long h = start(F.IALLTOALLW, sb, pinnedInts(sendCount), pinnedInts(sDispls), st, rb, pinnedInts(recvCount),
                pinnedInts(rDispls), rt, handle);
        return request(h, sendBuf, recvBuf);
    }

    private static long pinnedHandles(long[] handles) {
        java.nio.ByteBuffer b = Native.allocate(Native.handleBytes * handles.length);
        for (int i = 0; i < handles.length; i++) {
            Native.writeHandle(b, Native.handleBytes * i, handles[i]);
        }
        KEEP.add(b);
        return Native.address(b);
    }

    /**
     * In and out degree of this rank in the communicator's topology (neighbourhood collectives; their receive
     * buffers are staged in and out: a {@code PROC_NULL} neighbour leaves its block as it was).
     */
    int[] neighborDegrees() throws MPIException {
        int topo = getTopology();
        Scratch s = Scratch.get();
        if (topo == MPI.CART) {
            int out = s.intOut();
            F.CARTDIM_GET.call(handle, s.at(out));
            int d = 2 * s.getInt(out);
            return new int[] {d, d};
        } else if (topo == MPI.GRAPH) {
            int out = s.intOut();
            F.GRAPH_NEIGHBORS_COUNT.call(handle, getRank(), s.at(out));
            int d = s.getInt(out);
            return new int[] {d, d};
        } else if (topo == MPI.DIST_GRAPH) {
            int in = s.intOut();
            int out = s.intOut();
            int weighted = s.intOut();
            F.DIST_GRAPH_NEIGHBORS_COUNT.call(handle, s.at(in), s.at(out), s.at(weighted));
            return new int[] {s.getInt(in), s.getInt(out)};
        }
        throw new MPIException(MPI.ERR_TOPOLOGY, MPI.ERR_TOPOLOGY,
                "MPI_ERR_TOPOLOGY: neighbourhood collectives need a communicator with a topology");
    }

    public final void neighborAllGather(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf,
            int recvcount, Datatype recvtype) throws MPIException {
        MPI.check();
        checkType(sendtype);
        checkType(recvtype);
        int[] deg = neighborDegrees();
        Staging g = Staging.get();
        long sb = g.arg(sendbuf, sendcount, sendtype, Staging.IN);
        long rb = g.arg(recvbuf, recvcount * deg[0], recvtype, Staging.INOUT);
        call(g, F.NEIGHBOR_ALLGATHER, sb, sendcount, sendtype.handle, rb, recvcount, recvtype.handle, handle);
    }

    public final Request iNeighborAllGather(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf,
            int recvcount, Datatype recvtype) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        checkType(sendtype);
        checkType(recvtype);
        int[] deg = neighborDegrees();
        Staging.checkFits(sendbuf, sendcount, sendtype);
        Staging.checkFits(recvbuf, recvcount * deg[0], recvtype);
        long h = start(F.INEIGHBOR_ALLGATHER, buf(sendbuf), sendcount, sendtype.handle, buf(recvbuf), recvcount,
                recvtype.handle, handle);
        return request(h, sendbuf, recvbuf);
    }

    public final void neighborAllGatherv(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf,
            int[] recvcount, int[] displs, Datatype recvtype) throws MPIException {
        MPI.check();
        checkType(sendtype);
        checkType(recvtype);
        int[] deg = neighborDegrees();
        checkCounts(recvcount, displs, deg[0], "neighborAllGatherv receive");
        Staging g = Staging.get();
        long sb = g.arg(sendbuf, sendcount, sendtype, Staging.IN);
        long rb = g.argV(recvbuf, recvcount, displs, deg[0], recvtype, Staging.INOUT);
        Scratch s = Scratch.get();
        int rc = s.ints(recvcount);
        int ds = s.ints(displs);
        call(g, F.NEIGHBOR_ALLGATHERV, sb, sendcount, sendtype.handle, rb, s.at(rc), s.at(ds), recvtype.handle,
                handle);
    }

    public final Request iNeighborAllGatherv(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf,
            int[] recvcount, int[] displs, Datatype recvtype) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        checkType(sendtype);
        checkType(recvtype);
        int[] deg = neighborDegrees();
        checkCounts(recvcount, displs, deg[0], "neighborAllGatherv receive");
        Staging.checkFits(sendbuf, sendcount, sendtype);
        long rb = Staging.get().argV(recvbuf, recvcount, displs, deg[0], recvtype, Staging.INOUT);
        long h = start(F.INEIGHBOR_ALLGATHERV, buf(sendbuf), sendcount, sendtype.handle, rb, pinnedInts(recvcount),
                pinnedInts(displs), recvtype.handle, handle);
        return request(h, sendbuf, recvbuf);
    }

    public final void neighborAllToAll(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf,
            int recvcount, Datatype recvtype) throws MPIException {
        MPI.check();
        checkType(sendtype);
        checkType(recvtype);
        int[] deg = neighborDegrees();
        Staging g = Staging.get();
        long sb = g.arg(sendbuf, sendcount * deg[1], sendtype, Staging.IN);
        long rb = g.arg(recvbuf, recvcount * deg[0], recvtype, Staging.INOUT);
        call(g, F.NEIGHBOR_ALLTOALL, sb, sendcount, sendtype.handle, rb, recvcount, recvtype.handle, handle);
    }

    public final Request iNeighborAllToAll(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf,
            int recvcount, Datatype recvtype) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        checkType(sendtype);
        checkType(recvtype);
        int[] deg = neighborDegrees();
        Staging.checkFits(sendbuf, sendcount * deg[1], sendtype);
        Staging.checkFits(recvbuf, recvcount * deg[0], recvtype);
        long h = start(F.INEIGHBOR_ALLTOALL, buf(sendbuf), sendcount, sendtype.handle, buf(recvbuf), recvcount,
                recvtype.handle, handle);
        return request(h, sendbuf, recvbuf);
    }

    public final void neighborAllToAllv(Object sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype,
            Object recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype) throws MPIException {
        MPI.check();
        checkType(sendtype);
        checkType(recvtype);
        int[] deg = neighborDegrees();
        checkCounts(sendcount, sdispls, deg[1], "neighborAllToAllv send");
        checkCounts(recvcount, rdispls, deg[0], "neighborAllToAllv receive");
        Staging g = Staging.get();
        long sb = g.argV(sendbuf, sendcount, sdispls, deg[1], sendtype, Staging.IN);
        long rb = g.argV(recvbuf, recvcount, rdispls, deg[0], recvtype, Staging.INOUT);
        Scratch s = Scratch.get();
        int sc = s.ints(sendcount);
        int sd = s.ints(sdispls);
        int rc = s.ints(recvcount);
        int rd = s.ints(rdispls);
        call(g, F.NEIGHBOR_ALLTOALLV, sb, s.at(sc), s.at(sd), sendtype.handle, rb, s.at(rc), s.at(rd),
                recvtype.handle, handle);
    }

    public final Request iNeighborAllToAllv(Buffer sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype,
            Buffer recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        checkType(sendtype);
        checkType(recvtype);
        int[] deg = neighborDegrees();
        checkCounts(sendcount, sdispls, deg[1], "neighborAllToAllv send");
        checkCounts(recvcount, rdispls, deg[0], "neighborAllToAllv receive");
        Staging g = Staging.get();
        long sb = g.argV(sendbuf, sendcount, sdispls, deg[1], sendtype, Staging.IN);
        long rb = g.argV(recvbuf, recvcount, rdispls, deg[0], recvtype, Staging.INOUT);
        long h = start(F.INEIGHBOR_ALLTOALLV, sb, pinnedInts(sendcount), pinnedInts(sdispls), sendtype.handle, rb,
                pinnedInts(recvcount), pinnedInts(rdispls), recvtype.handle, handle);
        return request(h, sendbuf, recvbuf);
    }

    // ---- reductions ----

    static void checkOp(Op op) {
        if (op == null) {
            throw new IllegalArgumentException("the operation is null");
        }
    }

    public final void reduce(Object sendbuf, Object recvbuf, int count, Datatype type, Op op, int root)
            throws MPIException {
        MPI.check();
        checkCount(count);
        checkType(type);
        checkOp(op);
        boolean atRoot = !isInter() ? isRoot(root) : root == MPI.ROOT;
        long o = op.handle();
        op.setDatatype(type);
        int r = Native.rankToNative(root);
        try {
            if (!op.isUser() && pinnable(sendbuf) && (!atRoot || pinnable(recvbuf))) {
                Staging.checkFits(sendbuf, count, type);
                if (atRoot) {
                    Staging.checkFits(recvbuf, count, type);
                }
                Native.mpi.reduceHeap(sendbuf, atRoot ? recvbuf : null, count, type.handle, o, r, handle);
            } else {
                Staging g = Staging.get();
                long sb = g.arg(sendbuf, count, type, Staging.IN);
                long rb = atRoot ? g.arg(recvbuf, count, type, Staging.OUT) : 0;
                try {
                    Native.mpi.reduce(sb, rb, count, type.handle, o, r, handle);
                } catch (MpiException e) {
                    g.abandon();
                    throw e;
                }
                g.finish();
            }
        } catch (MpiException e) {
            throw Native.exception(e);
        }
        op.rethrowFailure();
    }

    /** In-place reduce: the root's operand and result are in {@code buf}; the others send from it. */
    public final void reduce(Object buf, int count, Datatype type, Op op, int root) throws MPIException {
        MPI.check();
        checkCount(count);
        checkType(type);
        checkOp(op);
        long o = op.handle();
        op.setDatatype(type);
        boolean atRoot = isRoot(root);
        Staging g = Staging.get();
        long b = g.arg(buf, count, type, atRoot ? Staging.INOUT : Staging.IN);
        try {
            Native.mpi.reduce(atRoot ? inPlace() : b, atRoot ? b : 0, count, type.handle, o, root, handle);
        } catch (MpiException e) {
            g.abandon();
            throw Native.exception(e);
        }
        g.finish();
        op.rethrowFailure();
    }

    public final Request iReduce(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op, int root)
            throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(sendbuf);
        direct(recvbuf);
        checkType(type);
        checkOp(op);
        boolean atRoot = !isInter() ? isRoot(root) : root == MPI.ROOT;
        Staging.checkFits(sendbuf, count, type);
        if (atRoot) {
            Staging.checkFits(recvbuf, count, type);
        }
        long o = op.handle();
        op.setDatatype(type);
        long h = start(F.IREDUCE, buf(sendbuf), atRoot ? buf(recvbuf) : 0, count, type.handle, o,
                Native.rankToNative(root), handle);
        return request(h, sendbuf, recvbuf);
    }

    public final Request iReduce(Buffer buf, int count, Datatype type, Op op, int root) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(buf);
        checkType(type);
        checkOp(op);
        Staging.checkFits(buf, count, type);
        long o = op.handle();
        op.setDatatype(type);
        boolean atRoot = isRoot(root);
        long h = start(F.IREDUCE, atRoot ? inPlace() : buf(buf), atRoot ? buf(buf) : 0, count, type.handle, o, root,
                handle);
        return request(h, buf, buf);
    }

    public final void allReduce(Object sendbuf, Object recvbuf, int count, Datatype type, Op op)
            throws MPIException {
        MPI.check();
        checkCount(count);
        checkType(type);
        checkOp(op);
        long o = op.handle();
        op.setDatatype(type);
        try {
            if (!op.isUser() && pinnable(sendbuf) && pinnable(recvbuf)) {
                Staging.checkFits(sendbuf, count, type);
                Staging.checkFits(recvbuf, count, type);
                // in place after a Java copy, as troika-mpi's allreduce on arrays does (and why); never on an
                // intercommunicator, where MPI refuses MPI_IN_PLACE
                int n = this instanceof Intracomm ? copyableElements(sendbuf, recvbuf, count, type) : -1;
                if (n >= 0) {
                    System.arraycopy(sendbuf, 0, recvbuf, 0, n);
                    Native.mpi.allreduceHeap(null, recvbuf, count, type.handle, o, handle);
                } else {
                    Native.mpi.allreduceHeap(sendbuf, recvbuf, count, type.handle, o, handle);
                }
            } else {
                need(sendbuf, count, "sendbuf");
                need(recvbuf, count, "recvbuf");
                long sb = Staging.direct(sendbuf, count, type);
                long rb = Staging.direct(recvbuf, count, type);
                if (sb != -1 && rb != -1) {
                    Native.mpi.allreduce(sb, rb, count, type.handle, o, handle);
                } else {
                    Staging g = Staging.get();
                    sb = sb != -1 ? sb : g.arg(sendbuf, count, type, Staging.IN);
                    rb = rb != -1 ? rb : g.arg(recvbuf, count, type, Staging.OUT);
                    try {
                        Native.mpi.allreduce(sb, rb, count, type.handle, o, handle);
                    } catch (MpiException e) {
                        g.abandon();
                        throw e;
                    }
                    g.finish();
                }
            }
        } catch (MpiException e) {
            throw Native.exception(e);
        }
        op.rethrowFailure();
    }

    public final void allReduce(Object buf, int count, Datatype type, Op op) throws MPIException {
        MPI.check();
        checkCount(count);
        checkType(type);
        checkOp(op);
        long o = op.handle();
        op.setDatatype(type);
        try {
            if (!op.isUser() && pinnable(buf)) {
                Staging.checkFits(buf, count, type);
                Native.mpi.allreduceHeap(null, buf, count, type.handle, o, handle);
            } else {
                need(buf, count, "buf");
                long b = Staging.direct(buf, count, type);
                if (b != -1) {
                    Native.mpi.allreduce(inPlace(), b, count, type.handle, o, handle);
                } else {
                    Staging g = Staging.get();
                    b = g.arg(buf, count, type, Staging.INOUT);
                    try {
                        Native.mpi.allreduce(inPlace(), b, count, type.handle, o, handle);
                    } catch (MpiException e) {
                        g.abandon();
                        throw e;
                    }
                    g.finish();
                }
            }
        } catch (MpiException e) {
            throw Native.exception(e);
        }
        op.rethrowFailure();
    }

    public final Request iAllReduce(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op)
            throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        checkType(type);
        checkOp(op);
        Staging.checkFits(sendbuf, count, type);
        Staging.checkFits(recvbuf, count, type);
        long o = op.handle();
        op.setDatatype(type);
        try {
            return request(Native.mpi.iallreduce(buf(sendbuf), buf(recvbuf), count, type.handle, o, handle), sendbuf,
                    recvbuf);
        } catch (MpiException e) {
            throw Native.exception(e);
        }
    }

    public final Request iAllReduce(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(buf);
        checkType(type);
        checkOp(op);
        Staging.checkFits(buf, count, type);
        long o = op.handle();
        op.setDatatype(type);
        try {
            return request(Native.mpi.iallreduce(inPlace(), buf(buf), count, type.handle, o, handle), buf, buf);
        } catch (MpiException e) {
            throw Native.exception(e);
        }
    }

    private int sum(int[] counts, int n) {
        int total = 0;
        for (int i = 0; i < n; i++) {
            total += counts[i];
        }
        return total;
    }

    private int[] checkRecvCounts(int[] recvcounts) throws MPIException {
        int n = getSize();
        if (recvcounts == null || recvcounts.length < n) {
            throw new IllegalArgumentException("reduceScatter needs one receive count per process (" + n + ")");
        }
        return recvcounts;
    }

    public final void reduceScatter(Object sendbuf, Object recvbuf, int[] recvcounts, Datatype type, Op op)
            throws MPIException {
        MPI.check();
        checkType(type);
        checkOp(op);
        checkRecvCounts(recvcounts);
        int total = sum(recvcounts, getSize());
        long o = op.handle();
        op.setDatatype(type);
        Staging g = Staging.get();
        long sb = g.arg(sendbuf, total, type, Staging.IN);
        long rb = g.arg(recvbuf, recvcounts[getRank()], type, Staging.OUT);
        Scratch s = Scratch.get();
        int rc = s.ints(recvcounts);
        call(g, F.REDUCE_SCATTER, sb, rb, s.at(rc), type.handle, o, handle);
        op.rethrowFailure();
    }

    public final void reduceScatter(Object buf, int[] counts, Datatype type, Op op) throws MPIException {
        MPI.check();
        checkType(type);
        checkOp(op);
        checkRecvCounts(counts);
        int total = sum(counts, getSize());
        long o = op.handle();
        op.setDatatype(type);
        Staging g = Staging.get();
        long b = g.arg(buf, total, type, Staging.INOUT);
        Scratch s = Scratch.get();
        int rc = s.ints(counts);
        call(g, F.REDUCE_SCATTER, inPlace(), b, s.at(rc), type.handle, o, handle);
        op.rethrowFailure();
    }

    public final Request iReduceScatter(Buffer sendbuf, Buffer recvbuf, int[] recvcounts, Datatype type, Op op)
            throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        checkType(type);
        checkOp(op);
        checkRecvCounts(recvcounts);
        Staging.checkFits(sendbuf, sum(recvcounts, getSize()), type);
        Staging.checkFits(recvbuf, recvcounts[getRank()], type);
        long o = op.handle();
        op.setDatatype(type);
        long h = start(F.IREDUCE_SCATTER, buf(sendbuf), buf(recvbuf), pinnedInts(recvcounts), type.handle, o,
                handle);
        return request(h, sendbuf, recvbuf);
    }

    public final Request iReduceScatter(Buffer buf, int[] counts, Datatype type, Op op) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(buf);
        checkType(type);
        checkOp(op);
        checkRecvCounts(counts);
        Staging.checkFits(buf, sum(counts, getSize()), type);
        long o = op.handle();
        op.setDatatype(type);
        long h = start(F.IREDUCE_SCATTER, inPlace(), buf(buf), pinnedInts(counts), type.handle, o, handle);
        return request(h, buf, buf);
    }

    public final void reduceScatterBlock(Object sendbuf, Object recvbuf, int recvcount, Datatype type, Op op)
            throws MPIException {
        MPI.check();
        checkType(type);
        checkOp(op);
        long o = op.handle();
        op.setDatatype(type);
        Staging g = Staging.get();
        long sb = g.arg(sendbuf, recvcount * getSize(), type, Staging.IN);
        long rb = g.arg(recvbuf, recvcount, type, Staging.OUT);
        call(g, F.REDUCE_SCATTER_BLOCK, sb, rb, recvcount, type.handle, o, handle);
        op.rethrowFailure();
    }

    public final void reduceScatterBlock(Object buf, int count, Datatype type, Op op) throws MPIException {
        MPI.check();
        checkType(type);
        checkOp(op);
        long o = op.handle();
        op.setDatatype(type);
        Staging g = Staging.get();
        long b = g.arg(buf, count * getSize(), type, Staging.INOUT);
        call(g, F.REDUCE_SCATTER_BLOCK, inPlace(), b, count, type.handle, o, handle);
        op.rethrowFailure();
    }

    public final Request iReduceScatterBlock(Buffer sendbuf, Buffer recvbuf, int recvcount, Datatype type, Op op)
            throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        checkType(type);
        checkOp(op);
        Staging.checkFits(sendbuf, recvcount * getSize(), type);
        Staging.checkFits(recvbuf, recvcount, type);
        long o = op.handle();
        op.setDatatype(type);
        long h = start(F.IREDUCE_SCATTER_BLOCK, buf(sendbuf), buf(recvbuf), recvcount, type.handle, o, handle);
        return request(h, sendbuf, recvbuf);
    }

    public final Request iReduceScatterBlock(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(buf);
        checkType(type);
        checkOp(op);
        Staging.checkFits(buf, count * getSize(), type);
        long o = op.handle();
        op.setDatatype(type);
        long h = start(F.IREDUCE_SCATTER_BLOCK, inPlace(), buf(buf), count, type.handle, o, handle);
        return request(h, buf, buf);
    }

    /** {@code MPI_Reduce_local}: {@code inOutBuf = inBuf op inOutBuf}, on this process only. */
    public static void reduceLocal(Object inBuf, Object inOutBuf, int count, Datatype type, Op op)
            throws MPIException {
        MPI.check();
        checkType(type);
        checkOp(op);
        need(inBuf, count, "inBuf");
        need(inOutBuf, count, "inOutBuf");
        long o = op.handle();
        op.setDatatype(type);
        Staging g = Staging.get();
        long in = g.arg(inBuf, count, type, Staging.IN);
        long io = g.arg(inOutBuf, count, type, Staging.INOUT);
        call(g, F.REDUCE_LOCAL, in, io, count, type.handle, o);
        op.rethrowFailure();
    }

    public final void setName(String name) throws MPIException {
        MPI.check();
        F.SET_NAME.withString(handle, name);
    }

    public final String getName() throws MPIException {
        MPI.check();
        return F.GET_NAME.name(handle);
    }

    static final class F {
        private F() {}

        static final Native.Fn DUP = Native.fn("MPI_Comm_dup", "ha");
        static final Native.Fn IDUP = Native.fn("MPI_Comm_idup", "haa");
        static final Native.Fn DUP_WITH_INFO = Native.fn("MPI_Comm_dup_with_info", "hha");
        static final Native.Fn FREE = Native.fn("MPI_Comm_free", "a");
        static final Native.Fn SET_INFO = Native.fn("MPI_Comm_set_info", "hh");
        static final Native.Fn GET_INFO = Native.fn("MPI_Comm_get_info", "ha");
        static final Native.Fn DISCONNECT = Native.fn("MPI_Comm_disconnect", "a");
        static final Native.Fn TEST_INTER = Native.fn("MPI_Comm_test_inter", "ha");
        static final Native.Fn REMOTE_SIZE = Native.fn("MPI_Comm_remote_size", "ha");
        static final Native.Fn INTERCOMM_CREATE = Native.fn("MPI_Intercomm_create", "hihiia");
        static final Native.Fn SENDRECV = Native.fn("MPI_Sendrecv", "aihiiaihiiha");
        static final Native.Fn SENDRECV_REPLACE = Native.fn("MPI_Sendrecv_replace", "aihiiiiha");
        static final Native.Fn BSEND = Native.fn("MPI_Bsend", "aihiih");
        static final Native.Fn SSEND = Native.fn("MPI_Ssend", "aihiih");
        static final Native.Fn RSEND = Native.fn("MPI_Rsend", "aihiih");
        static final Native.Fn IBSEND = Native.fn("MPI_Ibsend", "aihiiha");
        static final Native.Fn ISSEND = Native.fn("MPI_Issend", "aihiiha");
        static final Native.Fn IRSEND = Native.fn("MPI_Irsend", "aihiiha");
        static final Native.Fn SEND_INIT = Native.fn("MPI_Send_init", "aihiiha");
        static final Native.Fn BSEND_INIT = Native.fn("MPI_Bsend_init", "aihiiha");
        static final Native.Fn SSEND_INIT = Native.fn("MPI_Ssend_init", "aihiiha");
        static final Native.Fn RSEND_INIT = Native.fn("MPI_Rsend_init", "aihiiha");
        static final Native.Fn RECV_INIT = Native.fn("MPI_Recv_init", "aihiiha");
        static final Native.Fn PACK = Native.fn("MPI_Pack", "aihaiah");
        static final Native.Fn UNPACK = Native.fn("MPI_Unpack", "aiaaihh");
        static final Native.Fn PACK_SIZE = Native.fn("MPI_Pack_size", "ihha");
        static final Native.Fn IPROBE = Native.fn("MPI_Iprobe", "iihaa");
        static final Native.Fn PROBE = Native.fn("MPI_Probe", "iiha");
        static final Native.Fn GET_ATTR = Native.fn("MPI_Comm_get_attr", "hiaa");
        static final Native.Fn TOPO_TEST = Native.fn("MPI_Topo_test", "ha");
        static final Native.Fn SET_ERRHANDLER = Native.fn("MPI_Comm_set_errhandler", "hh");
        static final Native.Fn GET_ERRHANDLER = Native.fn("MPI_Comm_get_errhandler", "ha");
        static final Native.Fn CALL_ERRHANDLER = Native.fn("MPI_Comm_call_errhandler", "hi");
        static final Native.Fn GATHER = Native.fn("MPI_Gather", "aihaihih");
        static final Native.Fn IGATHER = Native.fn("MPI_Igather", "aihaihiha");
        static final Native.Fn GATHERV = Native.fn("MPI_Gatherv", "aihaaahih");
        static final Native.Fn IGATHERV = Native.fn("MPI_Igatherv", "aihaaahiha");
        static final Native.Fn SCATTER = Native.fn("MPI_Scatter", "aihaihih");
        static final Native.Fn ISCATTER = Native.fn("MPI_Iscatter", "aihaihiha");
        static final Native.Fn SCATTERV = Native.fn("MPI_Scatterv", "aaahaihih");
        static final Native.Fn ISCATTERV = Native.fn("MPI_Iscatterv", "aaahaihiha");
        static final Native.Fn ALLGATHER = Native.fn("MPI_Allgather", "aihaihh");
        static final Native.Fn IALLGATHER = Native.fn("MPI_Iallgather", "aihaihha");
        static final Native.Fn ALLGATHERV = Native.fn("MPI_Allgatherv", "aihaaahh");
        static final Native.Fn IALLGATHERV = Native.fn("MPI_Iallgatherv", "aihaaahha");
        static final Native.Fn ALLTOALL = Native.fn("MPI_Alltoall", "aihaihh");
        static final Native.Fn IALLTOALL = Native.fn("MPI_Ialltoall", "aihaihha");
        static final Native.Fn ALLTOALLV = Native.fn("MPI_Alltoallv", "aaahaaahh");
        static final Native.Fn IALLTOALLV = Native.fn("MPI_Ialltoallv", "aaahaaahha");
        static final Native.Fn ALLTOALLW = Native.fn("MPI_Alltoallw", "aaaaaaaah");
        static final Native.Fn IALLTOALLW = Native.fn("MPI_Ialltoallw", "aaaaaaaaha");
        static final Native.Fn NEIGHBOR_ALLGATHER = Native.fn("MPI_Neighbor_allgather", "aihaihh");
        static final Native.Fn INEIGHBOR_ALLGATHER = Native.fn("MPI_Ineighbor_allgather", "aihaihha");
        static final Native.Fn NEIGHBOR_ALLGATHERV = Native.fn("MPI_Neighbor_allgatherv", "aihaaahh");
        static final Native.Fn INEIGHBOR_ALLGATHERV = Native.fn("MPI_Ineighbor_allgatherv", "aihaaahha");
        static final Native.Fn NEIGHBOR_ALLTOALL = Native.fn("MPI_Neighbor_alltoall", "aihaihh");
        static final Native.Fn INEIGHBOR_ALLTOALL = Native.fn("MPI_Ineighbor_alltoall", "aihaihha");
        static final Native.Fn NEIGHBOR_ALLTOALLV = Native.fn("MPI_Neighbor_alltoallv", "aaahaaahh");
        static final Native.Fn INEIGHBOR_ALLTOALLV = Native.fn("MPI_Ineighbor_alltoallv", "aaahaaahha");
        static final Native.Fn CARTDIM_GET = Native.fn("MPI_Cartdim_get", "ha");
        static final Native.Fn GRAPH_NEIGHBORS_COUNT = Native.fn("MPI_Graph_neighbors_count", "hia");
        static final Native.Fn DIST_GRAPH_NEIGHBORS_COUNT = Native.fn("MPI_Dist_graph_neighbors_count", "haaa");
        static final Native.Fn IREDUCE = Native.fn("MPI_Ireduce", "aaihhiha");
        static final Native.Fn REDUCE_SCATTER = Native.fn("MPI_Reduce_scatter", "aaahhh");
        static final Native.Fn IREDUCE_SCATTER = Native.fn("MPI_Ireduce_scatter", "aaahhha");
        static final Native.Fn REDUCE_SCATTER_BLOCK = Native.fn("MPI_Reduce_scatter_block", "aaihhh");
        static final Native.Fn IREDUCE_SCATTER_BLOCK = Native.fn("MPI_Ireduce_scatter_block", "aaihhha");
        static final Native.Fn REDUCE_LOCAL = Native.fn("MPI_Reduce_local", "aaihh");
        static final Native.Fn SET_NAME = Native.fn("MPI_Comm_set_name", "ha");
        static final Native.Fn GET_NAME = Native.fn("MPI_Comm_get_name", "haa");
    }
}
