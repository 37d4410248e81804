package org.troika.mpi;

import com.sun.jna.Pointer;
import org.troika.mpi.spi.NativeMpi;

/** A one-rank MPI in Java: collectives copy send to recv. Counts the collectives it was asked for. */
final class FakeNativeMpi implements NativeMpi {
    static final long IN_PLACE = 1;
    int collectives;

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
        return new Communicator(this, ThreadLocal.withInitial(Staging::new), commWorld(), false);
    }
}
