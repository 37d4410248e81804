package org.troika.mpi.jna;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import org.troika.mpi.Datatype;
import org.troika.mpi.Op;
import org.troika.mpi.spi.MpiAbi;

/**
 * Open MPI's ABI ({@link MpiAbi.OpenMpi}): every handle is the address of a predefined global object
 * ({@code ompi_mpi_comm_world}, {@code ompi_mpi_float}, {@code ompi_mpi_op_sum}, ...).
 */
final class OpenMpiAbi extends JnaMpi {
    private static final long IN_PLACE = MpiAbi.OpenMpi.IN_PLACE;
    private static final int COMM_TYPE_SHARED = MpiAbi.OpenMpi.COMM_TYPE_SHARED;

    private final long commWorld;
    private final long commNull;
    private final long infoNull;
    private final long errorsReturn;
    private final long[] datatypes = new long[Datatype.values().length];
    private final long[] ops = new long[Op.values().length];

    private OpenMpiAbi(String name, NativeLibrary lib) {
        super(name);
        commWorld = global(lib, MpiAbi.OpenMpi.COMM_WORLD);
        commNull = global(lib, MpiAbi.OpenMpi.COMM_NULL);
        infoNull = global(lib, MpiAbi.OpenMpi.INFO_NULL);
        errorsReturn = global(lib, MpiAbi.OpenMpi.ERRORS_RETURN);
        for (Datatype t : Datatype.values()) {
            datatypes[t.ordinal()] = global(lib, MpiAbi.OpenMpi.datatypeSymbol(t));
        }
        for (Op o : Op.values()) {
            ops[o.ordinal()] = global(lib, MpiAbi.OpenMpi.opSymbol(o));
        }
    }

    static OpenMpiAbi bind(String name, NativeLibrary lib) {
        Native.register(Fn.class, lib);
        return new OpenMpiAbi(name, lib);
    }

    private static long global(NativeLibrary lib, String symbol) {
        return Pointer.nativeValue(lib.getGlobalVariableAddress(symbol));
    }

    @Override
    public String abi() {
        return "open-mpi";
    }

    @Override
    public long commWorld() {
        return commWorld;
    }

    @Override
    public long commNull() {
        return commNull;
    }

    @Override
    public long inPlace() {
        return IN_PLACE;
    }

    @Override
    public long datatype(Datatype type) {
        return datatypes[type.ordinal()];
    }

    @Override
    public long op(Op op) {
        return ops[op.ordinal()];
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
            check(Fn.MPI_Comm_rank(comm, address(out)), "MPI_Comm_rank");
            return out.getInt(0);
        }
    }

    @Override
    public int commSize(long comm) {
        try (Memory out = new Memory(4)) {
            check(Fn.MPI_Comm_size(comm, address(out)), "MPI_Comm_size");
            return out.getInt(0);
        }
    }

    @Override
    public long commSplit(long comm, int color, int key) {
        try (Memory out = new Memory(8)) {
            check(Fn.MPI_Comm_split(comm, color, key, address(out)), "MPI_Comm_split");
            return out.getLong(0);
        }
    }

    @Override
    public long commSplitShared(long comm, int key) {
        try (Memory out = new Memory(8)) {
            check(Fn.MPI_Comm_split_type(comm, COMM_TYPE_SHARED, key, infoNull, address(out)), "MPI_Comm_split_type");
            return out.getLong(0);
        }
    }

    @Override
    public void commFree(long comm) {
        try (Memory handle = new Memory(8)) {
            handle.setLong(0, comm);
            check(Fn.MPI_Comm_free(address(handle)), "MPI_Comm_free");
        }
    }

    @Override
    public void setErrorsReturn(long comm) {
        check(Fn.MPI_Comm_set_errhandler(comm, errorsReturn), "MPI_Comm_set_errhandler");
    }

    @Override
    public void barrier(long comm) {
        check(Fn.MPI_Barrier(comm), "MPI_Barrier");
    }

    @Override
    public void allreduce(long send, long recv, int count, long type, long op, long comm) {
        check(Fn.MPI_Allreduce(send, recv, count, type, op, comm), "MPI_Allreduce");
    }

    @Override
    public void bcast(long buf, int count, long type, int root, long comm) {
        check(Fn.MPI_Bcast(buf, count, type, root, comm), "MPI_Bcast");
    }

    @Override
    public void allgather(long send, int sendCount, long recv, int recvCount, long type, long comm) {
        check(Fn.MPI_Allgather(send, sendCount, type, recv, recvCount, type, comm), "MPI_Allgather");
    }

    @Override
    public void allgatherv(long send, int sendCount, long recv, long recvCounts, long displs, long type, long comm) {
        check(Fn.MPI_Allgatherv(send, sendCount, type, recv, recvCounts, displs, type, comm), "MPI_Allgatherv");
    }

    @Override
    public void alltoall(long send, int count, long recv, long type, long comm) {
        check(Fn.MPI_Alltoall(send, count, type, recv, count, type, comm), "MPI_Alltoall");
    }

    @Override
    public void reduceScatterBlock(long send, long recv, int recvCount, long type, long op, long comm) {
        check(Fn.MPI_Reduce_scatter_block(send, recv, recvCount, type, op, comm), "MPI_Reduce_scatter_block");
    }

    @Override
    public double wtime() {
        return Fn.MPI_Wtime();
    }

    @Override
    public void abort(long comm, int code) {
        check(Fn.MPI_Abort(comm, code), "MPI_Abort");
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

    /** Direct-mapped natives; handles are pointers, passed as {@code long}. */
    static final class Fn {
        private Fn() {}

        static native int MPI_Initialized(long flag);

        static native int MPI_Finalized(long flag);

        static native int MPI_Init_thread(long argc, long argv, int required, long provided);

        static native int MPI_Finalize();

        static native int MPI_Comm_rank(long comm, long rank);

        static native int MPI_Comm_size(long comm, long size);

        static native int MPI_Comm_split(long comm, int color, int key, long newcomm);

        static native int MPI_Comm_split_type(long comm, int type, int key, long info, long newcomm);

        static native int MPI_Comm_free(long comm);

        static native int MPI_Comm_set_errhandler(long comm, long errhandler);

        static native int MPI_Barrier(long comm);

        static native int MPI_Allreduce(long send, long recv, int count, long type, long op, long comm);

        static native int MPI_Bcast(long buf, int count, long type, int root, long comm);

        static native int MPI_Allgather(long send, int sendCount, long sendType, long recv, int recvCount,
                long recvType, long comm);

        static native int MPI_Allgatherv(long send, int sendCount, long sendType, long recv, long recvCounts,
                long displs, long recvType, long comm);

        static native int MPI_Alltoall(long send, int sendCount, long sendType, long recv, int recvCount,
                long recvType, long comm);

        static native int MPI_Reduce_scatter_block(long send, long recv, int recvCount, long type, long op, long comm);

        static native double MPI_Wtime();

        static native int MPI_Abort(long comm, int code);

        static native int MPI_Error_string(int code, long text, long len);

        static native int MPI_Error_class(int code, long errorClass);

        static native int MPI_Get_library_version(long text, long len);
    }
}
