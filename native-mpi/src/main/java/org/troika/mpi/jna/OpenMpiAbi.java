package org.troika.mpi.jna;

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

    private final long requestNull;
    private final long commWorld;
    private final long commNull;
    private final long infoNull;
    private final long errorsReturn;
    private final long[] datatypes = new long[Datatype.values().length];
    private final long[] ops = new long[Op.values().length];

    private OpenMpiAbi(String name, NativeLibrary lib) {
        super(name, lib, true);
        requestNull = global(lib, MpiAbi.OpenMpi.REQUEST_NULL);
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

    /** The library the natives below are registered with (one per ABI and JVM), set before any is called. */
    private static NativeLibrary bound;

    private static NativeLibrary bound() {
        return bound;
    }

    static OpenMpiAbi bind(String name, NativeLibrary lib) {
        bound = lib;
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
    public long predefined(String name) {
        return MpiAbi.OpenMpi.predefined(name, symbol -> global(lib, symbol));
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
        int[] out = new int[1];
        check(Fn.MPI_Comm_rank(comm, out), "MPI_Comm_rank");
        return out[0];
    }

    @Override
    public int commSize(long comm) {
        int[] out = new int[1];
        check(Fn.MPI_Comm_size(comm, out), "MPI_Comm_size");
        return out[0];
    }

    @Override
    public long commSplit(long comm, int color, int key) {
        long[] out = new long[1];
        check(Comms.MPI_Comm_split(comm, color, key, out), "MPI_Comm_split");
        return out[0];
    }

    @Override
    public long commSplitShared(long comm, int key) {
        long[] out = new long[1];
        check(Comms.MPI_Comm_split_type(comm, COMM_TYPE_SHARED, key, infoNull, out), "MPI_Comm_split_type");
        return out[0];
    }

    @Override
    public void commFree(long comm) {
        check(Comms.MPI_Comm_free(new long[] {comm}), "MPI_Comm_free");
    }

    @Override
    public void setErrorsReturn(long comm) {
        check(Fn.MPI_Comm_set_errhandler(comm, errorsReturn), "MPI_Comm_set_errhandler");
    }

    @Override
    public void barrier(long comm) {
        check(Coll.MPI_Barrier(comm), "MPI_Barrier");
    }

    @Override
    public void allreduce(long send, long recv, int count, long type, long op, long comm) {
        check(Coll.MPI_Allreduce(send, recv, count, type, op, comm), "MPI_Allreduce");
    }

    @Override
    public void bcast(long buf, int count, long type, int root, long comm) {
        check(Coll.MPI_Bcast(buf, count, type, root, comm), "MPI_Bcast");
    }

    @Override
    public void allgather(long send, int sendCount, long recv, int recvCount, long type, long comm) {
        check(Coll.MPI_Allgather(send, sendCount, type, recv, recvCount, type, comm), "MPI_Allgather");
    }

    @Override
    public void allgatherv(long send, int sendCount, long recv, long recvCounts, long displs, long type, long comm) {
        check(Coll.MPI_Allgatherv(send, sendCount, type, recv, recvCounts, displs, type, comm), "MPI_Allgatherv");
    }

    @Override
    public void alltoall(long send, int count, long recv, long type, long comm) {
        check(Coll.MPI_Alltoall(send, count, type, recv, count, type, comm), "MPI_Alltoall");
    }

    @Override
    public void reduceScatterBlock(long send, long recv, int recvCount, long type, long op, long comm) {
        check(Coll.MPI_Reduce_scatter_block(send, recv, recvCount, type, op, comm), "MPI_Reduce_scatter_block");
    }

    @Override
    public double wtime() {
        return Fn.MPI_Wtime();
    }

    @Override
    public void abort(long comm, int code) {
        check(Fn.MPI_Abort(comm, code), "MPI_Abort");
    }

    // ---- communicators, groups ----

    @Override
    public long commDup(long comm) {
        long[] out = new long[1];
        check(Comms.MPI_Comm_dup(comm, out), "MPI_Comm_dup");
        return out[0];
    }

    @Override
    public int commCompare(long comm1, long comm2) {
        int[] out = new int[1];
        check(Comms.MPI_Comm_compare(comm1, comm2, out), "MPI_Comm_compare");
        return out[0];
    }

    @Override
    public long commCreate(long comm, long group) {
        long[] out = new long[1];
        check(Comms.MPI_Comm_create(comm, group, out), "MPI_Comm_create");
        return out[0];
    }

    @Override
    public long commGroup(long comm) {
        long[] out = new long[1];
        check(Comms.MPI_Comm_group(comm, out), "MPI_Comm_group");
        return out[0];
    }

    @Override
    public int groupSize(long group) {
        int[] out = new int[1];
        check(Comms.MPI_Group_size(group, out), "MPI_Group_size");
        return out[0];
    }

    @Override
    public int groupRank(long group) {
        int[] out = new int[1];
        check(Comms.MPI_Group_rank(group, out), "MPI_Group_rank");
        return out[0];
    }

    @Override
    public long groupIncl(long group, int[] ranks) {
        long[] out = new long[1];
        check(Comms.MPI_Group_incl(group, ranks.length, ranks, out), "MPI_Group_incl");
        return out[0];
    }

    @Override
    public long groupExcl(long group, int[] ranks) {
        long[] out = new long[1];
        check(Comms.MPI_Group_excl(group, ranks.length, ranks, out), "MPI_Group_excl");
        return out[0];
    }

    @Override
    public int[] groupTranslateRanks(long from, int[] ranks, long to) {
        int[] out = new int[ranks.length];
        check(Comms.MPI_Group_translate_ranks(from, ranks.length, ranks, to, out), "MPI_Group_translate_ranks");
        return out;
    }

    @Override
    public void groupFree(long group) {
        check(Comms.MPI_Group_free(new long[] {group}), "MPI_Group_free");
    }

    // ---- point-to-point ----

    @Override
    public int anySource() {
        return MpiAbi.OpenMpi.ANY_SOURCE;
    }

    @Override
    public int procNull() {
        return MpiAbi.OpenMpi.PROC_NULL;
    }

    @Override
    public int tagUpperBound() {
        long[] value = new long[1];
        int[] flag = new int[1];
        check(Fn.MPI_Comm_get_attr(commWorld, MpiAbi.OpenMpi.TAG_UB_KEY, value, flag), "MPI_Comm_get_attr");
        return flag[0] == 0 ? 32767 : new Pointer(value[0]).getInt(0);
    }

    @Override
    public void send(long buf, int count, long type, int dest, int tag, long comm) {
        check(P2p.MPI_Send(buf, count, type, dest, tag, comm), "MPI_Send");
    }

    @Override
    public void recv(long buf, int count, long type, int source, int tag, long comm, int[] status) {
        int[] raw = rawStatuses(1);
        check(P2p.MPI_Recv(buf, count, type, source, tag, comm, raw), "MPI_Recv");
        status(raw, type, status);
    }

    @Override
    public void recvStatus(long buf, int count, long type, int source, int tag, long comm, long status) {
        check(P2p.MPI_Recv(buf, count, type, source, tag, comm, status), "MPI_Recv");
    }

    @Override
    public void sendrecv(long send, int sendCount, int dest, int sendTag, long recv, int recvCount, int source,
            int recvTag, long type, long comm, int[] status) {
        int[] raw = rawStatuses(1);
        check(P2p.MPI_Sendrecv(send, sendCount, type, dest, sendTag, recv, recvCount, type, source, recvTag, comm, raw),
                "MPI_Sendrecv");
        status(raw, type, status);
    }

    @Override
    public void probe(int source, int tag, long comm, long type, int[] status) {
        int[] raw = rawStatuses(1);
        check(P2p.MPI_Probe(source, tag, comm, raw), "MPI_Probe");
        status(raw, type, status);
    }

    @Override
    public boolean iprobe(int source, int tag, long comm, long type, int[] status) {
        int[] raw = rawStatuses(1);
        int[] flag = new int[1];
        check(P2p.MPI_Iprobe(source, tag, comm, flag, raw), "MPI_Iprobe");
        if (flag[0] != 0) {
            status(raw, type, status);
        }
        return flag[0] != 0;
    }

    @Override
    public long isend(long buf, int count, long type, int dest, int tag, long comm) {
        long[] request = new long[1];
        check(P2p.MPI_Isend(buf, count, type, dest, tag, comm, request), "MPI_Isend");
        return request[0];
    }

    @Override
    public long irecv(long buf, int count, long type, int source, int tag, long comm) {
        long[] request = new long[1];
        check(P2p.MPI_Irecv(buf, count, type, source, tag, comm, request), "MPI_Irecv");
        return request[0];
    }

    @Override
    public void waitRequest(long request, long type, int[] status) {
        int[] raw = rawStatuses(1);
        check(P2p.MPI_Wait(new long[] {request}, raw), "MPI_Wait");
        status(raw, type, status);
    }

    @Override
    public boolean test(long request, long type, int[] status) {
        int[] raw = rawStatuses(1);
        int[] flag = new int[1];
        check(P2p.MPI_Test(new long[] {request}, flag, raw), "MPI_Test");
        if (flag[0] != 0) {
            status(raw, type, status);
        }
        return flag[0] != 0;
    }

    @Override
    public void cancel(long request) {
        check(P2p.MPI_Cancel(new long[] {request}), "MPI_Cancel");
    }

    @Override
    public long requestNull() {
        return requestNull;
    }

    // MPI_Request is a pointer: a long[] is the native request array as it is
    @Override
    int waitall(int count, long[] requests, int[] statuses) {
        return P2p.MPI_Waitall(count, requests, statuses);
    }

    @Override
    int testall(int count, long[] requests, int[] flag, int[] statuses) {
        return P2p.MPI_Testall(count, requests, flag, statuses);
    }

    @Override
    int waitany(int count, long[] requests, int[] index, int[] status) {
        return P2p.MPI_Waitany(count, requests, index, status);
    }

    @Override
    int testany(int count, long[] requests, int[] index, int[] flag, int[] status) {
        return P2p.MPI_Testany(count, requests, index, flag, status);
    }

    @Override
    int waitsome(int count, long[] requests, int[] outCount, int[] indices, int[] statuses) {
        return P2p.MPI_Waitsome(count, requests, outCount, indices, statuses);
    }

    @Override
    int testsome(int count, long[] requests, int[] outCount, int[] indices, int[] statuses) {
        return P2p.MPI_Testsome(count, requests, outCount, indices, statuses);
    }

    // ---- more collectives ----

    @Override
    public void reduce(long send, long recv, int count, long type, long op, int root, long comm) {
        check(Coll.MPI_Reduce(send, recv, count, type, op, root, comm), "MPI_Reduce");
    }

    @Override
    public void gather(long send, int sendCount, long recv, int recvCount, long type, int root, long comm) {
        check(Coll.MPI_Gather(send, sendCount, type, recv, recvCount, type, root, comm), "MPI_Gather");
    }

    @Override
    public void gatherv(long send, int sendCount, long recv, int[] recvCounts, int[] displs, long type, int root,
            long comm) {
        check(Coll.MPI_Gatherv(send, sendCount, type, recv, recvCounts, displs, type, root, comm), "MPI_Gatherv");
    }

    @Override
    public void scatter(long send, int sendCount, long recv, int recvCount, long type, int root, long comm) {
        check(Coll.MPI_Scatter(send, sendCount, type, recv, recvCount, type, root, comm), "MPI_Scatter");
    }

    @Override
    public void scatterv(long send, int[] sendCounts, int[] displs, long recv, int recvCount, long type, int root,
            long comm) {
        check(Coll.MPI_Scatterv(send, sendCounts, displs, type, recv, recvCount, type, root, comm), "MPI_Scatterv");
    }

    @Override
    public void scan(long send, long recv, int count, long type, long op, long comm) {
        check(Coll.MPI_Scan(send, recv, count, type, op, comm), "MPI_Scan");
    }

    @Override
    public void exscan(long send, long recv, int count, long type, long op, long comm) {
        check(Coll.MPI_Exscan(send, recv, count, type, op, comm), "MPI_Exscan");
    }

    @Override
    public long ibarrier(long comm) {
        long[] request = new long[1];
        check(Nbc.MPI_Ibarrier(comm, request), "MPI_Ibarrier");
        return request[0];
    }

    @Override
    public long iallreduce(long send, long recv, int count, long type, long op, long comm) {
        long[] request = new long[1];
        check(Nbc.MPI_Iallreduce(send, recv, count, type, op, comm, request), "MPI_Iallreduce");
        return request[0];
    }

    @Override
    public long ibcast(long buf, int count, long type, int root, long comm) {
        long[] request = new long[1];
        check(Nbc.MPI_Ibcast(buf, count, type, root, comm, request), "MPI_Ibcast");
        return request[0];
    }

    @Override
    public long iallgather(long send, int sendCount, long recv, int recvCount, long type, long comm) {
        long[] request = new long[1];
        check(Nbc.MPI_Iallgather(send, sendCount, type, recv, recvCount, type, comm, request), "MPI_Iallgather");
        return request[0];
    }

    @Override
    int getCount(int[] status, long type, int[] count) {
        return P2p.MPI_Get_count(status, type, count);
    }

    @Override
    int queryThread(int[] provided) {
        return Fn.MPI_Query_thread(provided);
    }

    @Override
    int errorString(int code, byte[] text, int[] len) {
        return Fn.MPI_Error_string(code, text, len);
    }

    @Override
    int errorClass(int code, int[] out) {
        return Fn.MPI_Error_class(code, out);
    }

    @Override
    int libraryVersion(byte[] text, int[] len) {
        return Fn.MPI_Get_library_version(text, len);
    }

    @Override
    int initialized(int[] flag) {
        return Fn.MPI_Initialized(flag);
    }

    @Override
    int finalized(int[] flag) {
        return Fn.MPI_Finalized(flag);
    }

    @Override
    int initThread(int required, int[] provided) {
        return Fn.MPI_Init_thread(0L, 0L, required, provided);
    }

    // Direct-mapped natives (handles are pointers, passed as long), in groups: JNA registers a group's natives
    // when the group is first used (its class initialises), so a rank pays only for what it calls (issue 25.3).

    /** Initialisation, errors and the environment: what MPI_Init and every rank need. */
    static final class Fn {
        static {
            Native.register(Fn.class, bound());
        }

        private Fn() {}

        static native int MPI_Initialized(int[] flag);

        static native int MPI_Finalized(int[] flag);

        static native int MPI_Init_thread(long argc, long argv, int required, int[] provided);

        static native int MPI_Finalize();

        static native int MPI_Comm_rank(long comm, int[] rank);

        static native int MPI_Comm_size(long comm, int[] size);

        static native int MPI_Comm_set_errhandler(long comm, long errhandler);

        static native double MPI_Wtime();

        static native int MPI_Abort(long comm, int code);

        static native int MPI_Error_string(int code, byte[] text, int[] len);

        static native int MPI_Error_class(int code, int[] errorClass);

        static native int MPI_Get_library_version(byte[] text, int[] len);

        static native int MPI_Query_thread(int[] provided);

        static native int MPI_Comm_get_attr(long comm, int key, long[] value, int[] flag);
    }

    /** Communicators and groups beyond the world communicator. */
    static final class Comms {
        static {
            Native.register(Comms.class, bound());
        }

        private Comms() {}

        static native int MPI_Comm_split(long comm, int color, int key, long[] newcomm);

        static native int MPI_Comm_split_type(long comm, int type, int key, long info, long[] newcomm);

        static native int MPI_Comm_free(long[] comm);

        static native int MPI_Comm_dup(long comm, long[] newcomm);

        static native int MPI_Comm_compare(long comm1, long comm2, int[] result);

        static native int MPI_Comm_create(long comm, long group, long[] newcomm);

        static native int MPI_Comm_group(long comm, long[] group);

        static native int MPI_Group_size(long group, int[] size);

        static native int MPI_Group_rank(long group, int[] rank);

        static native int MPI_Group_incl(long group, int n, int[] ranks, long[] newgroup);

        static native int MPI_Group_excl(long group, int n, int[] ranks, long[] newgroup);

        static native int MPI_Group_translate_ranks(long group1, int n, int[] ranks1, long group2, int[] ranks2);

        static native int MPI_Group_free(long[] group);
    }

    /** Blocking collectives. */
    static final class Coll {
        static {
            Native.register(Coll.class, bound());
        }

        private Coll() {}

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

        static native int MPI_Reduce(long send, long recv, int count, long type, long op, int root, long comm);

        static native int MPI_Gather(long send, int sendCount, long sendType, long recv, int recvCount, long recvType,
                int root, long comm);

        static native int MPI_Gatherv(long send, int sendCount, long sendType, long recv, int[] recvCounts,
                int[] displs, long recvType, int root, long comm);

        static native int MPI_Scatter(long send, int sendCount, long sendType, long recv, int recvCount,
                long recvType, int root, long comm);

        static native int MPI_Scatterv(long send, int[] sendCounts, int[] displs, long sendType, long recv,
                int recvCount, long recvType, int root, long comm);

        static native int MPI_Scan(long send, long recv, int count, long type, long op, long comm);

        static native int MPI_Exscan(long send, long recv, int count, long type, long op, long comm);
    }

    /** Point-to-point calls and request completion. */
    static final class P2p {
        static {
            Native.register(P2p.class, bound());
        }

        private P2p() {}

        static native int MPI_Send(long buf, int count, long type, int dest, int tag, long comm);

        static native int MPI_Recv(long buf, int count, long type, int source, int tag, long comm, int[] status);

        static native int MPI_Recv(long buf, int count, long type, int source, int tag, long comm, long status);

        static native int MPI_Sendrecv(long send, int sendCount, long sendType, int dest, int sendTag, long recv,
                int recvCount, long recvType, int source, int recvTag, long comm, int[] status);

        static native int MPI_Probe(int source, int tag, long comm, int[] status);

        static native int MPI_Iprobe(int source, int tag, long comm, int[] flag, int[] status);

        static native int MPI_Isend(long buf, int count, long type, int dest, int tag, long comm, long[] request);

        static native int MPI_Irecv(long buf, int count, long type, int source, int tag, long comm, long[] request);

        static native int MPI_Wait(long[] request, int[] status);

        static native int MPI_Test(long[] request, int[] flag, int[] status);

        static native int MPI_Cancel(long[] request);

        static native int MPI_Waitall(int count, long[] requests, int[] statuses);

        static native int MPI_Testall(int count, long[] requests, int[] flag, int[] statuses);

        static native int MPI_Waitany(int count, long[] requests, int[] index, int[] status);

        static native int MPI_Testany(int count, long[] requests, int[] index, int[] flag, int[] status);

        static native int MPI_Waitsome(int count, long[] requests, int[] outCount, int[] indices, int[] statuses);

        static native int MPI_Testsome(int count, long[] requests, int[] outCount, int[] indices, int[] statuses);

        static native int MPI_Get_count(int[] status, long type, int[] count);
    }

    /** Non-blocking collectives. */
    static final class Nbc {
        static {
            Native.register(Nbc.class, bound());
        }

        private Nbc() {}

        static native int MPI_Ibarrier(long comm, long[] request);

        static native int MPI_Iallreduce(long send, long recv, int count, long type, long op, long comm,
                long[] request);

        static native int MPI_Ibcast(long buf, int count, long type, int root, long comm, long[] request);

        static native int MPI_Iallgather(long send, int sendCount, long sendType, long recv, int recvCount,
                long recvType, long comm, long[] request);
    }
}
