package mpi;

import java.nio.Buffer;
import java.nio.ByteOrder;

/**
 * A one-sided communication window. As in Open MPI's binding, a window's size and displacement unit count elements
 * of its buffer's type (an {@code IntBuffer} of 8 elements and unit 1 is a 32-byte window with 4-byte units);
 * origin buffers are direct. Assertions ({@link MPI#MODE_NOCHECK}, ...) and lock types are translated for the
 * library's ABI.
 */
public final class Win implements Freeable {
    private long handle;
    public static final int WIN_NULL = 0;
    public static final int FLAVOR_PRIVATE = 0;
    public static final int FLAVOR_SHARED = 1;

    /** {@code MPI_Win_create} over {@code base}: {@code size} and {@code dispUnit} in elements of its type. */
    public Win(Buffer base, int size, int dispUnit, Info info, Comm comm) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(base);
        int es = Staging.elementBytes(base);
        if (size < 0 || size > base.capacity()) {
            throw new IllegalArgumentException("a window of " + size + " elements over a buffer of "
                    + base.capacity());
        }
        handle = F.CREATE.handleOut(Native.address(base), (long) size * es, dispUnit * es, info.handle, comm.handle);
        keep = base;
    }

    /**
     * {@code MPI_Win_allocate} ({@link #FLAVOR_PRIVATE}) or {@code MPI_Win_allocate_shared} ({@link #FLAVOR_SHARED}):
     * MPI allocates {@code size} elements of {@code base}'s type and writes their address into {@code base} (8 bytes
     * at its start), as Open MPI's binding does.
     */
    public Win(int size, int dispUnit, Info info, Comm comm, Buffer base, int flavor) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(base);
        if ((long) base.capacity() * Staging.elementBytes(base) < 8) {
            throw new IllegalArgumentException("base must hold the 8-byte address MPI writes into it");
        }
        int es = Staging.elementBytes(base);
        Native.Fn fn = flavor == FLAVOR_SHARED ? F.ALLOCATE_SHARED : F.ALLOCATE;
        Scratch s = Scratch.get();
        int out = s.handleOut();
        fn.call((long) size * es, dispUnit * es, info.handle, comm.handle, Native.address(base), s.at(out));
        handle = s.getHandle(out);
        keep = base;
    }

    /** {@code MPI_Win_create_dynamic}: memory joins with {@link #attach}. */
    public Win(Info info, Comm comm) throws MPIException {
        MPI.check();
        handle = F.CREATE_DYNAMIC.handleOut(info.handle, comm.handle);
    }

    /** The window's memory stays reachable while the window exists. */
    private Buffer keep;
    private final java.util.List<Buffer> attached = new java.util.ArrayList<>();

    /** {@code MPI_Win_attach}: {@code size} elements of {@code buffer}. */
    public void attach(Buffer buffer, int size) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(buffer);
        F.ATTACH.call(handle, Native.address(buffer), (long) size * Staging.elementBytes(buffer));
        attached.add(buffer);
    }

    public void detach(Buffer buffer) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(buffer);
        F.DETACH.call(handle, Native.address(buffer));
        attached.remove(buffer);
    }

    public Group getGroup() throws MPIException {
        MPI.check();
        return new Group(F.GET_GROUP.handleOut(handle));
    }

    private static long origin(Buffer buf, int count, Datatype type) {
        MPI.assertDirectBuffer(buf);
        Comm.checkType(type);
        Staging.checkFits(buf, count, type);
        return Native.address(buf);
    }

    public void put(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp, int targetCount,
            Datatype targetType) throws MPIException {
        MPI.check();
        F.PUT.call(origin(origin, orgCount, orgType), orgCount, orgType.handle, Native.rankToNative(targetRank),
                targetDisp, targetCount, targetType.handle, handle);
    }

    public void get(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp, int targetCount,
            Datatype targetType) throws MPIException {
        MPI.check();
        F.GET.call(origin(origin, orgCount, orgType), orgCount, orgType.handle, Native.rankToNative(targetRank),
                targetDisp, targetCount, targetType.handle, handle);
    }

    public void accumulate(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp,
            int targetCount, Datatype targetType, Op op) throws MPIException {
        MPI.check();
        Comm.checkOp(op);
        F.ACCUMULATE.call(origin(origin, orgCount, orgType), orgCount, orgType.handle,
                Native.rankToNative(targetRank), targetDisp, targetCount, targetType.handle, op.handle(), handle);
    }

    /** Open MPI 5's assertion bits ({@link MPI#MODE_NOCHECK}, ...) as the library's. */
    private static int assertion(int javaAssert) {
        if (Native.openMpi) {
            return javaAssert;
        }
        int out = javaAssert & ~(MPI.MODE_NOCHECK | MPI.MODE_NOPRECEDE | MPI.MODE_NOPUT | MPI.MODE_NOSTORE
                | MPI.MODE_NOSUCCEED);
        String[] names = {"MPI_MODE_NOCHECK", "MPI_MODE_NOPRECEDE", "MPI_MODE_NOPUT", "MPI_MODE_NOSTORE",
            "MPI_MODE_NOSUCCEED"};
        for (String name : names) {
            if ((javaAssert & Native.javaInt(name)) != 0) {
                out |= Native.nativeInt(name);
            }
        }
        return out;
    }

    public void fence(int assertion) throws MPIException {
        MPI.check();
        F.FENCE.call(assertion(assertion), handle);
    }

    /** {@code MPI_Win_start}: an access epoch to {@code group}. */
    public void start(Group group, int assertion) throws MPIException {
        MPI.check();
        F.START.call(group.handle, assertion(assertion), handle);
    }

    public void complete() throws MPIException {
        MPI.check();
        F.COMPLETE.call(handle);
    }

    /** {@code MPI_Win_post}: an exposure epoch to {@code group}. */
    public void post(Group group, int assertion) throws MPIException {
        MPI.check();
        F.POST.call(group.handle, assertion(assertion), handle);
    }

    /** {@code MPI_Win_wait}. */
    public void waitFor() throws MPIException {
        MPI.check();
        F.WAIT.call(handle);
    }

    /** {@code MPI_Win_test}. */
    public boolean test() throws MPIException {
        MPI.check();
        return F.TEST.intOut(handle) != 0;
    }

    private static int lockType(int lockType) {
        if (lockType == MPI.LOCK_EXCLUSIVE) {
            return Native.nativeInt("MPI_LOCK_EXCLUSIVE");
        }
        return lockType == MPI.LOCK_SHARED ? Native.nativeInt("MPI_LOCK_SHARED") : lockType;
    }

    public void lock(int lockType, int rank, int assertion) throws MPIException {
        MPI.check();
        F.LOCK.call(lockType(lockType), Native.rankToNative(rank), assertion(assertion), handle);
    }

    public void unlock(int rank) throws MPIException {
        MPI.check();
        F.UNLOCK.call(Native.rankToNative(rank), handle);
    }

    public void setErrhandler(Errhandler errhandler) throws MPIException {
        MPI.check();
        F.SET_ERRHANDLER.call(handle, errhandler.handle);
    }

    public Errhandler getErrhandler() throws MPIException {
        MPI.check();
        return Errhandler.of(F.GET_ERRHANDLER.handleOut(handle));
    }

    public void callErrhandler(int errorCode) throws MPIException {
        MPI.check();
        F.CALL_ERRHANDLER.call(handle, errorCode);
    }

    public static int createKeyval() throws MPIException {
        MPI.check();
        return Attributes.createKeyval();
    }

    public static void freeKeyval(int keyval) throws MPIException {
        MPI.check();
        Attributes.freeKeyval(keyval);
    }

    public void setAttr(int keyval, Object value) throws MPIException {
        MPI.check();
        Attributes.WIN.set(handle, keyval, value);
    }

    /**
     * {@link MPI#WIN_BASE} (the address, a {@code Long}), {@link MPI#WIN_SIZE} (bytes) and {@link MPI#WIN_DISP_UNIT}
     * (bytes) as {@code Integer}s, or a user attribute.
     */
    public Object getAttr(int keyval) throws MPIException {
        MPI.check();
        String name = keyval == MPI.WIN_BASE ? "MPI_WIN_BASE" : keyval == MPI.WIN_SIZE ? "MPI_WIN_SIZE"
                : keyval == MPI.WIN_DISP_UNIT ? "MPI_WIN_DISP_UNIT" : null;
        if (name == null) {
            return Attributes.WIN.get(handle, keyval);
        }
        Scratch s = Scratch.get();
        int value = s.handleOut();
        int flag = s.intOut();
        F.GET_ATTR.call(handle, Native.nativeInt(name), s.at(value), s.at(flag));
        if (s.getInt(flag) == 0) {
            return null;
        }
        long pointer = s.getLong(value);
        if (name.equals("MPI_WIN_BASE")) {
            return pointer;
        }
        java.nio.ByteBuffer v = Native.mpi.memory(pointer, 8).order(ByteOrder.nativeOrder());
        // MPI_WIN_SIZE is an MPI_Aint, MPI_WIN_DISP_UNIT an int
        return name.equals("MPI_WIN_SIZE") ? (int) v.getLong(0) : v.getInt(0);
    }

    public void deleteAttr(int keyval) throws MPIException {
        MPI.check();
        Attributes.WIN.delete(handle, keyval);
    }

    /** {@code MPI_Win_free} (collective). */
    public void free() throws MPIException {
        MPI.check();
        long old = handle;
        handle = F.FREE.inOut(handle);
        Attributes.WIN.drop(old);
        keep = null;
        attached.clear();
    }

    public Info getInfo() throws MPIException {
        MPI.check();
        return new Info(F.GET_INFO.handleOut(handle));
    }

    public void setInfo(Info info) throws MPIException {
        MPI.check();
        F.SET_INFO.call(handle, info.handle);
    }

    private long request(Native.Fn fn, long... args) throws MPIException {
        Scratch s = Scratch.get();
        int out = s.handleOut();
        long[] all = java.util.Arrays.copyOf(args, args.length + 1);
        all[args.length] = s.at(out);
        fn.call(all);
        return s.getHandle(out);
    }

    private static Request requestOf(long h, Buffer a, Buffer b) {
        return Comm.request(h, a, b);
    }

    public final Request rPut(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp,
            int targetCount, Datatype targetType) throws MPIException {
        MPI.check();
        long h = request(F.RPUT, origin(origin, orgCount, orgType), orgCount, orgType.handle,
                Native.rankToNative(targetRank), targetDisp, targetCount, targetType.handle, handle);
        return requestOf(h, origin, null);
    }

    public final Request rGet(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp,
            int targetCount, Datatype targetType) throws MPIException {
        MPI.check();
        long h = request(F.RGET, origin(origin, orgCount, orgType), orgCount, orgType.handle,
                Native.rankToNative(targetRank), targetDisp, targetCount, targetType.handle, handle);
        return requestOf(h, null, origin);
    }

    public Request rAccumulate(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp,
            int targetCount, Datatype targetType, Op op) throws MPIException {
        MPI.check();
        Comm.checkOp(op);
        long h = request(F.RACCUMULATE, origin(origin, orgCount, orgType), orgCount, orgType.handle,
                Native.rankToNative(targetRank), targetDisp, targetCount, targetType.handle, op.handle(), handle);
        return requestOf(h, origin, null);
    }

    public void getAccumulate(Buffer origin, int orgCount, Datatype orgType, Buffer resultAddr, int resultCount,
            Datatype resultType, int targetRank, int targetDisp, int targetCount, Datatype targetType, Op op)
            throws MPIException {
        MPI.check();
        Comm.checkOp(op);
        F.GET_ACCUMULATE.call(origin(origin, orgCount, orgType), orgCount, orgType.handle,
                origin(resultAddr, resultCount, resultType), resultCount, resultType.handle,
                Native.rankToNative(targetRank), targetDisp, targetCount, targetType.handle, op.handle(), handle);
    }

    public Request rGetAccumulate(Buffer origin, int orgCount, Datatype orgType, Buffer resultAddr,
            int resultCount, Datatype resultType, int targetRank, int targetDisp, int targetCount,
            Datatype targetType, Op op) throws MPIException {
        MPI.check();
        Comm.checkOp(op);
        long h = request(F.RGET_ACCUMULATE, origin(origin, orgCount, orgType), orgCount, orgType.handle,
                origin(resultAddr, resultCount, resultType), resultCount, resultType.handle,
                Native.rankToNative(targetRank), targetDisp, targetCount, targetType.handle, op.handle(), handle);
        return requestOf(h, origin, resultAddr);
    }

    public void lockAll(int assertion) throws MPIException {
        MPI.check();
        F.LOCK_ALL.call(assertion(assertion), handle);
    }

    public void unlockAll() throws MPIException {
        MPI.check();
        F.UNLOCK_ALL.call(handle);
    }

    public void sync() throws MPIException {
        MPI.check();
        F.SYNC.call(handle);
    }

    public void flush(int targetRank) throws MPIException {
        MPI.check();
        F.FLUSH.call(Native.rankToNative(targetRank), handle);
    }

    public void flushAll() throws MPIException {
        MPI.check();
        F.FLUSH_ALL.call(handle);
    }

    public void compareAndSwap(Buffer origin, Buffer compareAddr, Buffer resultAddr, Datatype dataType,
            int targetRank, int targetDisp) throws MPIException {
        MPI.check();
        F.COMPARE_AND_SWAP.call(origin(origin, 1, dataType), origin(compareAddr, 1, dataType),
                origin(resultAddr, 1, dataType), dataType.handle, Native.rankToNative(targetRank), targetDisp, handle);
    }

    public void fetchAndOp(Buffer origin, Buffer resultAddr, Datatype dataType, int targetRank, int targetDisp,
            Op op) throws MPIException {
        MPI.check();
        Comm.checkOp(op);
        F.FETCH_AND_OP.call(origin(origin, 1, dataType), origin(resultAddr, 1, dataType), dataType.handle,
                Native.rankToNative(targetRank), targetDisp, op.handle(), handle);
    }

    public void flushLocal(int targetRank) throws MPIException {
        MPI.check();
        F.FLUSH_LOCAL.call(Native.rankToNative(targetRank), handle);
    }

    public void flushLocalAll() throws MPIException {
        MPI.check();
        F.FLUSH_LOCAL_ALL.call(handle);
    }

    public String getName() throws MPIException {
        MPI.check();
        return F.GET_NAME.name(handle);
    }

    public void setName(String name) throws MPIException {
        MPI.check();
        F.SET_NAME.withString(handle, name);
    }

    private static final class F {
        private F() {}

        static final Native.Fn CREATE = Native.fn("MPI_Win_create", "aaihha");
        static final Native.Fn ALLOCATE = Native.fn("MPI_Win_allocate", "aihhaa");
        static final Native.Fn ALLOCATE_SHARED = Native.fn("MPI_Win_allocate_shared", "aihhaa");
        static final Native.Fn CREATE_DYNAMIC = Native.fn("MPI_Win_create_dynamic", "hha");
        static final Native.Fn ATTACH = Native.fn("MPI_Win_attach", "haa");
        static final Native.Fn DETACH = Native.fn("MPI_Win_detach", "ha");
        static final Native.Fn GET_GROUP = Native.fn("MPI_Win_get_group", "ha");
        static final Native.Fn PUT = Native.fn("MPI_Put", "aihiaihh");
        static final Native.Fn GET = Native.fn("MPI_Get", "aihiaihh");
        static final Native.Fn ACCUMULATE = Native.fn("MPI_Accumulate", "aihiaihhh");
        static final Native.Fn FENCE = Native.fn("MPI_Win_fence", "ih");
        static final Native.Fn START = Native.fn("MPI_Win_start", "hih");
        static final Native.Fn COMPLETE = Native.fn("MPI_Win_complete", "h");
        static final Native.Fn POST = Native.fn("MPI_Win_post", "hih");
        static final Native.Fn WAIT = Native.fn("MPI_Win_wait", "h");
        static final Native.Fn TEST = Native.fn("MPI_Win_test", "ha");
        static final Native.Fn LOCK = Native.fn("MPI_Win_lock", "iiih");
        static final Native.Fn UNLOCK = Native.fn("MPI_Win_unlock", "ih");
        static final Native.Fn SET_ERRHANDLER = Native.fn("MPI_Win_set_errhandler", "hh");
        static final Native.Fn GET_ERRHANDLER = Native.fn("MPI_Win_get_errhandler", "ha");
        static final Native.Fn CALL_ERRHANDLER = Native.fn("MPI_Win_call_errhandler", "hi");
        static final Native.Fn GET_ATTR = Native.fn("MPI_Win_get_attr", "hiaa");
        static final Native.Fn FREE = Native.fn("MPI_Win_free", "a");
        static final Native.Fn GET_INFO = Native.fn("MPI_Win_get_info", "ha");
        static final Native.Fn SET_INFO = Native.fn("MPI_Win_set_info", "hh");
        static final Native.Fn RPUT = Native.fn("MPI_Rput", "aihiaihha");
        static final Native.Fn RGET = Native.fn("MPI_Rget", "aihiaihha");
        static final Native.Fn RACCUMULATE = Native.fn("MPI_Raccumulate", "aihiaihhha");
        static final Native.Fn GET_ACCUMULATE = Native.fn("MPI_Get_accumulate", "aihaihiaihhh");
        static final Native.Fn RGET_ACCUMULATE = Native.fn("MPI_Rget_accumulate", "aihaihiaihhha");
        static final Native.Fn LOCK_ALL = Native.fn("MPI_Win_lock_all", "ih");
        static final Native.Fn UNLOCK_ALL = Native.fn("MPI_Win_unlock_all", "h");
        static final Native.Fn SYNC = Native.fn("MPI_Win_sync", "h");
        static final Native.Fn FLUSH = Native.fn("MPI_Win_flush", "ih");
        static final Native.Fn FLUSH_ALL = Native.fn("MPI_Win_flush_all", "h");
        static final Native.Fn COMPARE_AND_SWAP = Native.fn("MPI_Compare_and_swap", "aaahiah");
        static final Native.Fn FETCH_AND_OP = Native.fn("MPI_Fetch_and_op", "aahiahh");
        static final Native.Fn FLUSH_LOCAL = Native.fn("MPI_Win_flush_local", "ih");
        static final Native.Fn FLUSH_LOCAL_ALL = Native.fn("MPI_Win_flush_local_all", "h");
        static final Native.Fn GET_NAME = Native.fn("MPI_Win_get_name", "haa");
        static final Native.Fn SET_NAME = Native.fn("MPI_Win_set_name", "ha");
    }
}
