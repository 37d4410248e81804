package org.troika.mpi.jna;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import org.troika.mpi.Datatype;
import org.troika.mpi.Op;
import org.troika.mpi.spi.MpiAbi;

/**
 * MPICH's ABI ({@link MpiAbi.Mpich}; also Intel MPI and other MPICH derivatives): every handle is a 32-bit
 * {@code int} with a fixed value. Handles are kept as {@code long}s at the
 * {@code NativeMpi} boundary and narrowed here.
 */
final class MpichAbi extends JnaMpi {
    private static final long IN_PLACE = MpiAbi.Mpich.IN_PLACE;
    private static final int COMM_TYPE_SHARED = MpiAbi.Mpich.COMM_TYPE_SHARED;
    private static final int COMM_WORLD = MpiAbi.Mpich.COMM_WORLD;
    private static final int COMM_NULL = MpiAbi.Mpich.COMM_NULL;
    private static final int INFO_NULL = MpiAbi.Mpich.INFO_NULL;
    private static final int ERRORS_RETURN = MpiAbi.Mpich.ERRORS_RETURN;

    private MpichAbi(String name) {
        super(name);
    }

    static MpichAbi bind(String name, NativeLibrary lib) {
        Native.register(Fn.class, lib);
        return new MpichAbi(name);
    }

    @Override
    public String abi() {
        return "mpich";
    }

    @Override
    public long commWorld() {
        return COMM_WORLD;
    }

    @Override
    public long commNull() {
        return COMM_NULL;
    }

    @Override
    public long inPlace() {
        return IN_PLACE;
    }

    @Override
    public long datatype(Datatype type) {
        return MpiAbi.Mpich.datatype(type);
    }

    @Override
    public long op(Op op) {
        return MpiAbi.Mpich.op(op);
    }

    @Override
    public int undefined() {
        return MpiAbi.UNDEFINED;
    }

    @Override
    public void finalizeMpi() {
        check(Fn.MPI_Finalize(), "MPI_Finalize");
    }

    @Override
    public int commRank(long comm) {
        try (Memory out = new Memory(4)) {
            check(Fn.MPI_Comm_rank((int) comm, address(out)), "MPI_Comm_rank");
            return out.getInt(0);
        }
    }

    @Override
    public int commSize(long comm) {
        try (Memory out = new Memory(4)) {
            check(Fn.MPI_Comm_size((int) comm, address(out)), "MPI_Comm_size");
            return out.getInt(0);
        }
    }

    @Override
    public long commSplit(long comm, int color, int key) {
        try (Memory out = new Memory(4)) {
            check(Fn.MPI_Comm_split((int) comm, color, key, address(out)), "MPI_Comm_split");
            return out.getInt(0);
        }
    }

    @Override
    public long commSplitShared(long comm, int key) {
        try (Memory out = new Memory(4)) {
            check(Fn.MPI_Comm_split_type((int) comm, COMM_TYPE_SHARED, key, INFO_NULL, address(out)),
                    "MPI_Comm_split_type");
            return out.getInt(0);
        }
    }

    @Override
    public void commFree(long comm) {
        try (Memory handle = new Memory(4)) {
            handle.setInt(0, (int) comm);
            check(Fn.MPI_Comm_free(address(handle)), "MPI_Comm_free");
        }
    }

    @Override
    public void setErrorsReturn(long comm) {
        check(Fn.MPI_Comm_set_errhandler((int) comm, ERRORS_RETURN), "MPI_Comm_set_errhandler");
    }

    @Override
    public void barrier(long comm) {
        check(Fn.MPI_Barrier((int) comm), "MPI_Barrier");
    }

    @Override
    public void allreduce(long send, long recv, int count, long type, long op, long comm) {
        check(Fn.MPI_Allreduce(send, recv, count, (int) type, (int) op, (int) comm), "MPI_Allreduce");
    }

    @Override
    public void bcast(long buf, int count, long type, int root, long comm) {
        check(Fn.MPI_Bcast(buf, count, (int) type, root, (int) comm), "MPI_Bcast");
    }

    @Override
    public void allgather(long send, int sendCount, long recv, int recvCount, long type, long comm) {
        check(Fn.MPI_Allgather(send, sendCount, (int) type, recv, recvCount, (int) type, (int) comm), "MPI_Allgather");
    }

    @Override
    public void allgatherv(long send, int sendCount, long recv, long recvCounts, long displs, long type, long comm) {
        check(Fn.MPI_Allgatherv(send, sendCount, (int) type, recv, recvCounts, displs, (int) type,
                (int) comm), "MPI_Allgatherv");
    }

    @Override
    public void alltoall(long send, int count, long recv, long type, long comm) {
        check(Fn.MPI_Alltoall(send, count, (int) type, recv, count, (int) type, (int) comm), "MPI_Alltoall");
    }

    @Override
    public void reduceScatterBlock(long send, long recv, int recvCount, long type, long op, long comm) {
        check(Fn.MPI_Reduce_scatter_block(send, recv, recvCount, (int) type, (int) op, (int) comm), "MPI_Reduce_scatter_block");
    }

    @Override
    public double wtime() {
        return Fn.MPI_Wtime();
    }

    @Override
    public void abort(long comm, int code) {
        check(Fn.MPI_Abort((int) comm, code), "MPI_Abort");
    }

    @Override
    int errorString(int code, long text, long len) {
        return Fn.MPI_Error_string(code, text, len);
    }

    @Override
    int errorClass(int code, long out) {
        return Fn.MPI_Error_class(code, out);
    }

    @Override
    int libraryVersion(long text, long len) {
        return Fn.MPI_Get_library_version(text, len);
    }

    @Override
    int initialized(long flag) {
        return Fn.MPI_Initialized(flag);
    }

    @Override
    int finalized(long flag) {
        return Fn.MPI_Finalized(flag);
    }

    @Override
    int initThread(int required, long provided) {
        return Fn.MPI_Init_thread(0L, 0L, required, provided);
    }

    /** Direct-mapped natives; handles are {@code int}s, buffers addresses. */
    static final class Fn {
        private Fn() {}

        static native int MPI_Initialized(long flag);

        static native int MPI_Finalized(long flag);

        static native int MPI_Init_thread(long argc, long argv, int required, long provided);

        static native int MPI_Finalize();

        static native int MPI_Comm_rank(int comm, long rank);

        static native int MPI_Comm_size(int comm, long size);

        static native int MPI_Comm_split(int comm, int color, int key, long newcomm);

        static native int MPI_Comm_split_type(int comm, int type, int key, int info, long newcomm);

        static native int MPI_Comm_free(long comm);

        static native int MPI_Comm_set_errhandler(int comm, int errhandler);

        static native int MPI_Barrier(int comm);

        static native int MPI_Allreduce(long send, long recv, int count, int type, int op, int comm);

        static native int MPI_Bcast(long buf, int count, int type, int root, int comm);

        static native int MPI_Allgather(long send, int sendCount, int sendType, long recv, int recvCount,
                int recvType, int comm);

        static native int MPI_Allgatherv(long send, int sendCount, int sendType, long recv, long recvCounts,
                long displs, int recvType, int comm);

        static native int MPI_Alltoall(long send, int sendCount, int sendType, long recv, int recvCount,
                int recvType, int comm);

        static native int MPI_Reduce_scatter_block(long send, long recv, int recvCount, int type, int op, int comm);

        static native double MPI_Wtime();

        static native int MPI_Abort(int comm, int code);

        static native int MPI_Error_string(int code, long text, long len);

        static native int MPI_Error_class(int code, long errorClass);

        static native int MPI_Get_library_version(long text, long len);
    }
}
