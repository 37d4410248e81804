package org.troika.mpi;

import com.sun.jna.Pointer;
import org.troika.mpi.spi.NativeMpi;

/**
 * A one-rank MPI in Java: collectives copy send to recv, point-to-point calls and requests only count. Counts every
 * data-moving call it was asked for in {@link #collectives}.
 */
final class FakeNativeMpi implements NativeMpi {
    static final long IN_PLACE = 1;
    int collectives;
    /** Native calls that completed many requests at once (waitAll and friends). */
    int batches;
    /** Look-ups of a direct buffer's address. */
    int addressLookups;

    @Override public String libraryName() { return "fake"; }
    @Override public String abi() { return "fake"; }
    @Override public boolean initialized() { return false; }
    @Override public boolean finalized() { return false; }
    @Override public int initThread(int required) { return required; }
    @Override public void finalizeMpi() {}
    @Override public long commWorld() { return 100; }
    @Override public long commNull() { return 0; }
    @Override public long inPlace() { return IN_PLACE; }
    @Override public long datatype(Datatype type) { return type.bytes(); }
    @Override public long op(Op op) { return op.ordinal(); }
    @Override public int undefined() { return Communicator.UNDEFINED; }
    @Override public int commRank(long comm) { return 0; }
    @Override public int commSize(long comm) { return 1; }
    @Override public long commSplit(long comm, int color, int key) { return color == undefined() ? 0 : 101; }
    @Override public long commSplitShared(long comm, int key) { return 102; }
    @Override public void commFree(long comm) {}
    @Override public void setErrorsReturn(long comm) {}
    @Override public void barrier(long comm) {}

    @Override
    public void allreduce(long send, long recv, int count, long type, long op, long comm) {
        collectives++;
        copy(send, recv, count * type);
    }

    @Override
    public void bcast(long buf, int count, long type, int root, long comm) {
        collectives++;
    }

    @Override
    public void allgather(long send, int sendCount, long recv, int recvCount, long type, long comm) {
        collectives++;
        copy(send, recv, sendCount * type);
    }

    @Override
    public void allgatherv(long send, int sendCount, long recv, long recvCounts, long displs, long type, long comm) {
        collectives++;
        copy(send, recv, sendCount * type);
    }

    @Override
    public void alltoall(long send, int count, long recv, long type, long comm) {
        collectives++;
        copy(send, recv, count * type);
    }

    @Override
    public void reduceScatterBlock(long send, long recv, int recvCount, long type, long op, long comm) {
        collectives++;
        copy(send, recv, recvCount * type);
    }

    @Override public int queryThread() { return 0; }
    @Override public long commDup(long comm) { return 103; }
    @Override public int commCompare(long comm1, long comm2) { return comm1 == comm2 ? 0 : 1; }
    @Override public long commCreate(long comm, long group) { return 104; }
    @Override public long commGroup(long comm) { return 200; }
    @Override public int groupSize(long group) { return 1; }
    @Override public int groupRank(long group) { return 0; }
    @Override public long groupIncl(long group, int[] ranks) { return 201; }
    @Override public long groupExcl(long group, int[] ranks) { return 202; }
    @Override public int[] groupTranslateRanks(long from, int[] ranks, long to) { return ranks.clone(); }
    @Override public void groupFree(long group) {}
    @Override public int anySource() { return -1; }
    @Override public int procNull() { return -2; }
    @Override public int tagUpperBound() { return 32767; }

    @Override
    public void send(long buf, int count, long type, int dest, int tag, long comm) {
        collectives++;
    }

    @Override
    public void recv(long buf, int count, long type, int source, int tag, long comm, int[] status) {
        collectives++;
    }

    @Override
    public void sendrecv(long send, int sendCount, int dest, int sendTag, long recv, int recvCount, int source,
            int recvTag, long type, long comm, int[] status) {
        collectives++;
        copy(send, recv, (long) Math.min(sendCount, recvCount) * type);
        if (status != null) {
            status[0] = 0;
            status[1] = sendTag;
            status[3] = sendCount; // in elements of the call's type, as MPI_Get_count
        }
    }

    @Override
    public void probe(int source, int tag, long comm, long type, int[] status) {
        collectives++;
    }

    @Override
    public boolean iprobe(int source, int tag, long comm, long type, int[] status) {
        collectives++;
        return false;
    }

    @Override
    public long isend(long buf, int count, long type, int dest, int tag, long comm) {
        collectives++;
        return 1;
    }

    @Override
    public long irecv(long buf, int count, long type, int source, int tag, long comm) {
        collectives++;
        return 2;
    }

    @Override public void waitRequest(long request, long type, int[] status) {}
    @Override public boolean test(long request, long type, int[] status) { return true; }
    @Override public void cancel(long request) {}
    @Override public long requestNull() { return 0; }

    /** Completes the active requests (all, or the first {@code limit}); a receive's status says tag 7, 3 elements. */
    private int complete(int count, long[] requests, int[] indices, int[] statuses, int limit) {
        batches++;
        int n = 0;
        for (int i = 0; i < count && n < limit; i++) {
            if (requests[i] != requestNull()) {
                if (statuses != null) {
                    System.arraycopy(new int[] {0, 7, 0, 3}, 0, statuses, STATUS_INTS * (indices == null ? i : n), 4);
                }
                requests[i] = requestNull();
                if (indices != null) {
                    indices[n] = i;
                }
                n++;
            }
        }
        return n;
    }

    @Override
    public void waitAll(int count, long[] requests, long type, int[] statuses) {
        complete(count, requests, null, statuses, count);
    }

    @Override
    public boolean testAll(int count, long[] requests, long type, int[] statuses) {
        complete(count, requests, null, statuses, count);
        return true;
    }

    @Override
    public int waitAny(int count, long[] requests, long type, int[] status) {
        int[] index = new int[1];
        return complete(count, requests, index, status, 1) == 0 ? undefined() : index[0];
    }

    @Override
    public int testAny(int count, long[] requests, long type, int[] status) {
        return waitAny(count, requests, type, status);
    }

    @Override
    public int waitSome(int count, long[] requests, int[] indices, long type, int[] statuses) {
        int n = complete(count, requests, indices, statuses, count);
        return n == 0 ? undefined() : n;
    }

    @Override
    public int testSome(int count, long[] requests, int[] indices, long type, int[] statuses) {
        return complete(count, requests, indices, statuses, count);
    }

    @Override
    public void reduce(long send, long recv, int count, long type, long op, int root, long comm) {
        collectives++;
        copy(send, recv, count * type);
    }

    @Override
    public void gather(long send, int sendCount, long recv, int recvCount, long type, int root, long comm) {
        collectives++;
        copy(send, recv, sendCount * type);
    }

    @Override
    public void gatherv(long send, int sendCount, long recv, int[] recvCounts, int[] displs, long type, int root,
            long comm) {
        collectives++;
        copy(send, recv, sendCount * type);
    }

    @Override
    public void scatter(long send, int sendCount, long recv, int recvCount, long type, int root, long comm) {
        collectives++;
        copy(send, recv, sendCount * type);
    }

    @Override
    public void scatterv(long send, int[] sendCounts, int[] displs, long recv, int recvCount, long type, int root,
            long comm) {
        collectives++;
        copy(send, recv, recvCount * type);
    }

    @Override
    public void scan(long send, long recv, int count, long type, long op, long comm) {
        collectives++;
        copy(send, recv, count * type);
    }

    @Override
    public void exscan(long send, long recv, int count, long type, long op, long comm) {
        collectives++;
    }

    @Override public long ibarrier(long comm) { collectives++; return 3; }

    @Override
    public long iallreduce(long send, long recv, int count, long type, long op, long comm) {
        allreduce(send, recv, count, type, op, comm);
        return 4;
    }

    @Override
    public long ibcast(long buf, int count, long type, int root, long comm) {
        collectives++;
        return 5;
    }

    @Override
    public long iallgather(long send, int sendCount, long recv, int recvCount, long type, long comm) {
        allgather(send, sendCount, recv, recvCount, type, comm);
        return 6;
    }

    @Override
    public long address(java.nio.Buffer direct) {
        addressLookups++;
        return Pointer.nativeValue(com.sun.jna.Native.getDirectBufferPointer(direct));
    }

    @Override public double wtime() { return System.nanoTime() / 1e9; }
    @Override public String libraryVersion() { return "fake"; }
    @Override public String errorString(int code) { return "fake error " + code; }
    @Override public void abort(long comm, int code) { throw new IllegalStateException("abort " + code); }

    private static void copy(long from, long to, long bytes) {
        if (from != IN_PLACE && bytes > 0) {
            new Pointer(to).write(0, new Pointer(from).getByteArray(0, (int) bytes), 0, (int) bytes);
        }
    }

    Communicator world() {
        return new Communicator(new Context(this, false, tagUpperBound()), commWorld(), false);
    }
}
