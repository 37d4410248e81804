package org.troika.mpi.jna;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
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

    private MpichAbi(String name, NativeLibrary lib) {
        super(name, lib, false);
    }

    /** The library the natives below are registered with (one per ABI and JVM), set before any is called. */
    private static NativeLibrary bound;

    private static NativeLibrary bound() {
        return bound;
    }

    static MpichAbi bind(String name, NativeLibrary lib) {
        bound = lib;
        return new MpichAbi(name, lib);
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
    public long predefined(String name) {
        return MpiAbi.Mpich.predefined(name, v -> Pointer.nativeValue(lib.getGlobalVariableAddress(v).getPointer(0)));
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
        int[] out = new int[1];
        check(Fn.MPI_Comm_rank((int) comm, out), "MPI_Comm_rank");
        return out[0];
    }

    @Override
    public int commSize(long comm) {
        int[] out = new int[1];
        check(Fn.MPI_Comm_size((int) comm, out), "MPI_Comm_size");
        return out[0];
    }

    @Override
    public long commSplit(long comm, int color, int key) {
        int[] out = new int[1];
        check(Comms.MPI_Comm_split((int) comm, color, key, out), "MPI_Comm_split");
        return out[0];
    }

    @Override
    public long commSplitShared(long comm, int key) {
        int[] out = new int[1];
        check(Comms.MPI_Comm_split_type((int) comm, COMM_TYPE_SHARED, key, INFO_NULL, out), "MPI_Comm_split_type");
        return out[0];
    }

    @Override
    public void commFree(long comm) {
        check(Comms.MPI_Comm_free(new int[] {(int) comm}), "MPI_Comm_free");
    }

    @Override
    public void setErrorsReturn(long comm) {
        check(Fn.MPI_Comm_set_errhandler((int) comm, ERRORS_RETURN), "MPI_Comm_set_errhandler");
    }

    @Override
    public void barrier(long comm) {
        check(Coll.MPI_Barrier((int) comm), "MPI_Barrier");
    }

    @Override
    public void allreduce(long send, long recv, int count, long type, long op, long comm) {
        check(Coll.MPI_Allreduce(send, recv, count, (int) type, (int) op, (int) comm), "MPI_Allreduce");
    }

    @Override
    public void bcast(long buf, int count, long type, int root, long comm) {
        check(Coll.MPI_Bcast(buf, count, (int) type, root, (int) comm), "MPI_Bcast");
    }

    @Override
    public void allgather(long send, int sendCount, long recv, int recvCount, long type, long comm) {
        check(Coll.MPI_Allgather(send, sendCount, (int) type, recv, recvCount, (int) type, (int) comm), "MPI_Allgather");
    }

    @Override
    public void allgatherv(long send, int sendCount, long recv, long recvCounts, long displs, long type, long comm) {
        check(Coll.MPI_Allgatherv(send, sendCount, (int) type, recv, recvCounts, displs, (int) type,
                (int) comm), "MPI_Allgatherv");
    }

    @Override
    public void alltoall(long send, int count, long recv, long type, long comm) {
        check(Coll.MPI_Alltoall(send, count, (int) type, recv, count, (int) type, (int) comm), "MPI_Alltoall");
    }

    @Override
    public void reduceScatterBlock(long send, long recv, int recvCount, long type, long op, long comm) {
        check(Coll.MPI_Reduce_scatter_block(send, recv, recvCount, (int) type, (int) op, (int) comm), "MPI_Reduce_scatter_block");
    }

    @Override
    public double wtime() {
        return Fn.MPI_Wtime();
    }

    @Override
    public void abort(long comm, int code) {
        check(Fn.MPI_Abort((int) comm, code), "MPI_Abort");
    }

    // ---- communicators, groups ----

    @Override
    public long commDup(long comm) {
        int[] out = new int[1];
        check(Comms.MPI_Comm_dup((int) comm, out), "MPI_Comm_dup");
        return out[0];
    }

    @Override
    public int commCompare(long comm1, long comm2) {
        int[] out = new int[1];
        check(Comms.MPI_Comm_compare((int) comm1, (int) comm2, out), "MPI_Comm_compare");
        return out[0];
    }

    @Override
    public long commCreate(long comm, long group) {
        int[] out = new int[1];
        check(Comms.MPI_Comm_create((int) comm, (int) group, out), "MPI_Comm_create");
        return out[0];
    }

    @Override
    public long commGroup(long comm) {
        int[] out = new int[1];
        check(Comms.MPI_Comm_group((int) comm, out), "MPI_Comm_group");
        return out[0];
    }

    @Override
    public int groupSize(long group) {
        int[] out = new int[1];
        check(Comms.MPI_Group_size((int) group, out), "MPI_Group_size");
        return out[0];
    }

    @Override
    public int groupRank(long group) {
        int[] out = new int[1];
        check(Comms.MPI_Group_rank((int) group, out), "MPI_Group_rank");
        return out[0];
    }

    @Override
    public long groupIncl(long group, int[] ranks) {
        int[] out = new int[1];
        check(Comms.MPI_Group_incl((int) group, ranks.length, ranks, out), "MPI_Group_incl");
        return out[0];
    }

    @Override
    public long groupExcl(long group, int[] ranks) {
        int[] out = new int[1];
        check(Comms.MPI_Group_excl((int) group, ranks.length, ranks, out), "MPI_Group_excl");
        return out[0];
    }

    @Override
    public int[] groupTranslateRanks(long from, int[] ranks, long to) {
        int[] out = new int[ranks.length];
        check(Comms.MPI_Group_translate_ranks((int) from, ranks.length, ranks, (int) to, out), "MPI_Group_translate_ranks");
        return out;
    }

    @Override
    public void groupFree(long group) {
        check(Comms.MPI_Group_free(new int[] {(int) group}), "MPI_Group_free");
    }

    // ---- point-to-point ----

    @Override
    public int anySource() {
        return MpiAbi.Mpich.ANY_SOURCE;
    }

    @Override
    public int procNull() {
        return MpiAbi.Mpich.PROC_NULL;
    }

    @Override
    public int tagUpperBound() {
        long[] value = new long[1];
        int[] flag = new int[1];
        check(Fn.MPI_Comm_get_attr(COMM_WORLD, MpiAbi.Mpich.TAG_UB_KEY, value, flag), "MPI_Comm_get_attr");
        return flag[0] == 0 ? 32767 : new Pointer(value[0]).getInt(0);
    }

    @Override
    public void send(long buf, int count, long type, int dest, int tag, long comm) {
        check(P2p.MPI_Send(buf, count, (int) type, dest, tag, (int) comm), "MPI_Send");
    }

    @Override
    public void recv(long buf, int count, long type, int source, int tag, long comm, int[] status) {
        int[] raw = rawStatuses(1);
        check(P2p.MPI_Recv(buf, count, (int) type, source, tag, (int) comm, raw), "MPI_Recv");
        status(raw, type, status);
    }

    @Override
    public void recvStatus(long buf, int count, long type, int source, int tag, long comm, long status) {
        check(P2p.MPI_Recv(buf, count, (int) type, source, tag, (int) comm, status), "MPI_Recv");
    }

    @Override
    public void sendrecv(long send, int sendCount, int dest, int sendTag, long recv, int recvCount, int source,
            int recvTag, long type, long comm, int[] status) {
        int[] raw = rawStatuses(1);
        check(P2p.MPI_Sendrecv(send, sendCount, (int) type, dest, sendTag, recv, recvCount, (int) type, source, recvTag, (int) comm, raw),
                "MPI_Sendrecv");
        status(raw, type, status);
    }

    @Override
    public void probe(int source, int tag, long comm, long type, int[] status) {
        int[] raw = rawStatuses(1);
        check(P2p.MPI_Probe(source, tag, (int) comm, raw), "MPI_Probe");
        status(raw, type, status);
    }

    @Override
    public boolean iprobe(int source, int tag, long comm, long type, int[] status) {
        int[] raw = rawStatuses(1);
        int[] flag = new int[1];
        check(P2p.MPI_Iprobe(source, tag, (int) comm, flag, raw), "MPI_Iprobe");
        if (flag[0] != 0) {
            status(raw, type, status);
        }
        return flag[0] != 0;
    }

    @Override
    public long isend(long buf, int count, long type, int dest, int tag, long comm) {
        int[] request = new int[1];
        check(P2p.MPI_Isend(buf, count, (int) type, dest, tag, (int) comm, request), "MPI_Isend");
        return request[0];
    }

    @Override
    public long irecv(long buf, int count, long type, int source, int tag, long comm) {
        int[] request = new int[1];
        check(P2p.MPI_Irecv(buf, count, (int) type, source, tag, (int) comm, request), "MPI_Irecv");
        return request[0];
    }

    @Override
    public void waitRequest(long request, long type, int[] status) {
        int[] raw = rawStatuses(1);
        check(P2p.MPI_Wait(new int[] {(int) request}, raw), "MPI_Wait");
        status(raw, type, status);
    }

    @Override
    public boolean test(long request, long type, int[] status) {
        int[] raw = rawStatuses(1);
        int[] flag = new int[1];
        check(P2p.MPI_Test(new int[] {(int) request}, flag, raw), "MPI_Test");
        if (flag[0] != 0) {
            status(raw, type, status);
        }
        return flag[0] != 0;
    }

    @Override
    public void cancel(long request) {
        check(P2p.MPI_Cancel(new int[] {(int) request}), "MPI_Cancel");
    }

    @Override
    public long requestNull() {
        return MpiAbi.Mpich.REQUEST_NULL;
    }

    // MPI_Request is an int: the handles are narrowed into an int[] and the completed ones written back
    private static int[] narrow(int count, long[] requests) {
        int[] handles = new int[count];
        for (int i = 0; i < count; i++) {
            handles[i] = (int) requests[i];
        }
        return handles;
    }

    private static int widen(int rc, int[] handles, long[] requests) {
        for (int i = 0; i < handles.length; i++) {
            requests[i] = handles[i];
        }
        return rc;
    }

    @Override
    int waitall(int count, long[] requests, int[] statuses) {
        int[] h = narrow(count, requests);
        return widen(P2p.MPI_Waitall(count, h, statuses), h, requests);
    }

    @Override
    int testall(int count, long[] requests, int[] flag, int[] statuses) {
        int[] h = narrow(count, requests);
        return widen(P2p.MPI_Testall(count, h, flag, statuses), h, requests);
    }

    @Override
    int waitany(int count, long[] requests, int[] index, int[] status) {
        int[] h = narrow(count, requests);
        return widen(P2p.MPI_Waitany(count, h, index, status), h, requests);
    }

    @Override
    int testany(int count, long[] requests, int[] index, int[] flag, int[] status) {
        int[] h = narrow(count, requests);
        return widen(P2p.MPI_Testany(count, h, index, flag, status), h, requests);
    }

    @Override
    int waitsome(int count, long[] requests, int[] outCount, int[] indices, int[] statuses) {
        int[] h = narrow(count, requests);
        return widen(P2p.MPI_Waitsome(count, h, outCount, indices, statuses), h, requests);
    }

    @Override
    int testsome(int count, long[] requests, int[] outCount, int[] indices, int[] statuses) {
        int[] h = narrow(count, requests);
        return widen(P2p.MPI_Testsome(count, h, outCount, indices, statuses), h, requests);
    }

    // ---- more collectives ----

    @Override
    public void reduce(long send, long recv, int count, long type, long op, int root, long comm) {
        check(Coll.MPI_Reduce(send, recv, count, (int) type, (int) op, root, (int) comm), "MPI_Reduce");
    }

    @Override
    public void gather(long send, int sendCount, long recv, int recvCount, long type, int root, long comm) {
        check(Coll.MPI_Gather(send, sendCount, (int) type, recv, recvCount, (int) type, root, (int) comm), "MPI_Gather");
    }

    @Override
    public void gatherv(long send, int sendCount, long recv, int[] recvCounts, int[] displs, long type, int root,
            long comm) {
        check(Coll.MPI_Gatherv(send, sendCount, (int) type, recv, recvCounts, displs, (int) type, root, (int) comm), "MPI_Gatherv");
    }

    @Override
    public void scatter(long send, int sendCount, long recv, int recvCount, long type, int root, long comm) {
        check(Coll.MPI_Scatter(send, sendCount, (int) type, recv, recvCount, (int) type, root, (int) comm), "MPI_Scatter");
    }

    @Override
    public void scatterv(long send, int[] sendCounts, int[] displs, long recv, int recvCount, long type, int root,
            long comm) {
        check(Coll.MPI_Scatterv(send, sendCounts, displs, (int) type, recv, recvCount, (int) type, root, (int) comm), "MPI_Scatterv");
    }

    @Override
    public void scan(long send, long recv, int count, long type, long op, long comm) {
        check(Coll.MPI_Scan(send, recv, count, (int) type, (int) op, (int) comm), "MPI_Scan");
    }

    @Override
    public void exscan(long send, long recv, int count, long type, long op, long comm) {
        check(Coll.MPI_Exscan(send, recv, count, (int) type, (int) op, (int) comm), "MPI_Exscan");
    }

    @Override
    public long ibarrier(long comm) {
        int[] request = new int[1];
        check(Nbc.MPI_Ibarrier((int) comm, request), "MPI_Ibarrier");
        return request[0];
    }

    @Override
    public long iallreduce(long send, long recv, int count, long type, long op, long comm) {
        int[] request = new int[1];
        check(Nbc.MPI_Iallreduce(send, recv, count, (int) type, (int) op, (int) comm, request), "MPI_Iallreduce");
        return request[0];
    }

    @Override
    public long ibcast(long buf, int count, long type, int root, long comm) {
        int[] request = new int[1];
        check(Nbc.MPI_Ibcast(buf, count, (int) type, root, (int) comm, request), "MPI_Ibcast");
        return request[0];
    }

    @Override
    public long iallgather(long send, int sendCount, long recv, int recvCount, long type, long comm) {
        int[] request = new int[1];
        check(Nbc.MPI_Iallgather(send, sendCount, (int) type, recv, recvCount, (int) type, (int) comm, request), "MPI_Iallgather");
        return request[0];
    }

    @Override
    int getCount(int[] status, long type, int[] count) {
        return P2p.MPI_Get_count(status, (int) type, count);
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

    // Direct-mapped natives (handles are ints, buffers addresses), in groups: JNA registers a group's natives when the
    // group is first used (its class initialises), so a rank pays only for what it calls (issue 25.3).

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

        static native int MPI_Comm_rank(int comm, int[] rank);

        static native int MPI_Comm_size(int comm, int[] size);

        static native int MPI_Comm_set_errhandler(int comm, int errhandler);

        static native double MPI_Wtime();

        static native int MPI_Abort(int comm, int code);

        static native int MPI_Error_string(int code, byte[] text, int[] len);

        static native int MPI_Error_class(int code, int[] errorClass);

        static native int MPI_Get_library_version(byte[] text, int[] len);

        static native int MPI_Query_thread(int[] provided);

        static native int MPI_Comm_get_attr(int comm, int key, long[] value, int[] flag);
    }

    /** Communicators and groups beyond the world communicator. */
    static final class Comms {
        static {
            Native.register(Comms.class, bound());
        }

        private Comms() {}

        static native int MPI_Comm_split(int comm, int color, int key, int[] newcomm);

        static native int MPI_Comm_split_type(int comm, int type, int key, int info, int[] newcomm);

        static native int MPI_Comm_free(int[] comm);

        static native int MPI_Comm_dup(int comm, int[] newcomm);

        static native int MPI_Comm_compare(int comm1, int comm2, int[] result);

        static native int MPI_Comm_create(int comm, int group, int[] newcomm);

        static native int MPI_Comm_group(int comm, int[] group);

        static native int MPI_Group_size(int group, int[] size);

        static native int MPI_Group_rank(int group, int[] rank);

        static native int MPI_Group_incl(int group, int n, int[] ranks, int[] newgroup);

        static native int MPI_Group_excl(int group, int n, int[] ranks, int[] newgroup);

        static native int MPI_Group_translate_ranks(int group1, int n, int[] ranks1, int group2, int[] ranks2);

        static native int MPI_Group_free(int[] group);
    }

    /** Blocking collectives. */
    static final class Coll {
        static {
            Native.register(Coll.class, bound());
        }

        private Coll() {}

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

        static native int MPI_Reduce(long send, long recv, int count, int type, int op, int root, int comm);

        static native int MPI_Gather(long send, int sendCount, int sendType, long recv, int recvCount, int recvType,
                int root, int comm);

        static native int MPI_Gatherv(long send, int sendCount, int sendType, long recv, int[] recvCounts,
                int[] displs, int recvType, int root, int comm);

        static native int MPI_Scatter(long send, int sendCount, int sendType, long recv, int recvCount,
                int recvType, int root, int comm);

        static native int MPI_Scatterv(long send, int[] sendCounts, int[] displs, int sendType, long recv,
                int recvCount, int recvType, int root, int comm);

        static native int MPI_Scan(long send, long recv, int count, int type, int op, int comm);

        static native int MPI_Exscan(long send, long recv, int count, int type, int op, int comm);
    }

    /** Point-to-point calls and request completion. */
    static final class P2p {
        static {
            Native.register(P2p.class, bound());
        }

        private P2p() {}

        static native int MPI_Send(long buf, int count, int type, int dest, int tag, int comm);

        static native int MPI_Recv(long buf, int count, int type, int source, int tag, int comm, int[] status);

        static native int MPI_Recv(long buf, int count, int type, int source, int tag, int comm, long status);

        static native int MPI_Sendrecv(long send, int sendCount, int sendType, int dest, int sendTag, long recv,
                int recvCount, int recvType, int source, int recvTag, int comm, int[] status);

        static native int MPI_Probe(int source, int tag, int comm, int[] status);

        static native int MPI_Iprobe(int source, int tag, int comm, int[] flag, int[] status);

        static native int MPI_Isend(long buf, int count, int type, int dest, int tag, int comm, int[] request);

        static native int MPI_Irecv(long buf, int count, int type, int source, int tag, int comm, int[] request);

        static native int MPI_Wait(int[] request, int[] status);

        static native int MPI_Test(int[] request, int[] flag, int[] status);

        static native int MPI_Cancel(int[] request);

        static native int MPI_Waitall(int count, int[] requests, int[] statuses);

        static native int MPI_Testall(int count, int[] requests, int[] flag, int[] statuses);

        static native int MPI_Waitany(int count, int[] requests, int[] index, int[] status);

        static native int MPI_Testany(int count, int[] requests, int[] index, int[] flag, int[] status);

        static native int MPI_Waitsome(int count, int[] requests, int[] outCount, int[] indices, int[] statuses);

        static native int MPI_Testsome(int count, int[] requests, int[] outCount, int[] indices, int[] statuses);

        static native int MPI_Get_count(int[] status, int type, int[] count);
    }

    /** Non-blocking collectives. */
    static final class Nbc {
        static {
            Native.register(Nbc.class, bound());
        }

        private Nbc() {}

        static native int MPI_Ibarrier(int comm, int[] request);

        static native int MPI_Iallreduce(long send, long recv, int count, int type, int op, int comm,
                int[] request);

        static native int MPI_Ibcast(long buf, int count, int type, int root, int comm, int[] request);

        static native int MPI_Iallgather(long send, int sendCount, int sendType, long recv, int recvCount,
                int recvType, int comm, int[] request);
    }
}
