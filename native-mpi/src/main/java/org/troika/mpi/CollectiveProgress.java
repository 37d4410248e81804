package org.troika.mpi;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.troika.mpi.spi.NativeMpi;

/**
 * Progress of this process's collectives, for troika's hang watchdog: how many collectives were entered and left, and
 * which one was entered last. The watchdog's reporter (troika-worker's {@code Progress}) samples these counters and
 * tells the launcher; a rank whose counters stop moving is stuck, and a rank blocked inside collective N is told apart
 * from the rank that never entered it.
 *
 * <p>Cost: {@link #watch} wraps the native layer only when the launcher asked for progress reports
 * ({@value #ADDR_ENV} is set); then each collective adds three plain stores with opaque (not volatile) semantics:
 * no fence, no locked instruction, so a few nanoseconds against a collective's microseconds (bench/progress.sh).
 * The counters assume one thread calls collectives at a time (MPI_THREAD_SINGLE/FUNNELED/SERIALIZED); under
 * MPI_THREAD_MULTIPLE concurrent collectives may miss a count, which only delays a change the sampler sees.
 * Otherwise the native layer is returned as it is and nothing is counted.
 */
public final class CollectiveProgress {
    /** Set by troika for ranks whose progress its watchdog watches (the launcher's progress service). */
    public static final String ADDR_ENV = org.troika.common.TroikaEnv.PROGRESS_ADDR;
    /** The reporter started reflectively when troika-worker is on the class path. */
    private static final String REPORTER = "org.troika.worker.Progress";

    private static long entered; // accessed through ENTERED (opaque)
    private static long left; // accessed through LEFT (opaque)
    private static String last = ""; // accessed through LAST (opaque)
    private static final VarHandle ENTERED;
    private static final VarHandle LEFT;
    private static final VarHandle LAST;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            ENTERED = l.findStaticVarHandle(CollectiveProgress.class, "entered", long.class);
            LEFT = l.findStaticVarHandle(CollectiveProgress.class, "left", long.class);
            LAST = l.findStaticVarHandle(CollectiveProgress.class, "last", String.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private CollectiveProgress() {}

    /** Collectives entered so far. */
    public static long entered() {
        return (long) ENTERED.getOpaque();
    }

    /** Collectives left (returned or failed) so far. */
    public static long left() {
        return (long) LEFT.getOpaque();
    }

    /** The name of the collective entered last ({@code allreduce}, {@code bcast}, ...), or empty. */
    public static String lastEntered() {
        return (String) LAST.getOpaque();
    }

    static void enter(String name) {
        LAST.setOpaque(name);
        ENTERED.setOpaque((long) ENTERED.getOpaque() + 1);
    }

    static void leave() {
        LEFT.setOpaque((long) LEFT.getOpaque() + 1);
    }

    /**
     * {@code backend} with its collectives counted when progress is reported in this process, else {@code backend}
     * itself. Starts troika-worker's reporter when it is on the class path.
     */
    static NativeMpi watch(NativeMpi backend) {
        String addr = System.getenv(ADDR_ENV);
        if (addr == null || addr.isBlank() || backend instanceof Counting) {
            return backend;
        }
        try {
            Class.forName(REPORTER).getMethod("start").invoke(null);
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            // no troika-worker: the launcher watches this rank by its output only
        }
        return counting(backend);
    }

    /** {@code backend} with every collective counted (tests use it directly). */
    static NativeMpi counting(NativeMpi backend) {
        return backend instanceof Counting ? backend : new Counting(backend);
    }

    /** The native layer with every collective counted. */
    private static final class Counting implements NativeMpi {
        private final NativeMpi d;

        Counting(NativeMpi d) {
            this.d = d;
        }

        @Override public String libraryName() { return d.libraryName(); }
        @Override public String abi() { return d.abi(); }
        @Override public boolean initialized() { return d.initialized(); }
        @Override public boolean finalized() { return d.finalized(); }
        @Override public int initThread(int required) { return d.initThread(required); }
        @Override public void finalizeMpi() { d.finalizeMpi(); }
        @Override public long commWorld() { return d.commWorld(); }
        @Override public long commNull() { return d.commNull(); }
        @Override public long inPlace() { return d.inPlace(); }
        @Override public long datatype(Datatype type) { return d.datatype(type); }
        @Override public long op(Op op) { return d.op(op); }
        @Override public int undefined() { return d.undefined(); }
        @Override public int commRank(long comm) { return d.commRank(comm); }
        @Override public int commSize(long comm) { return d.commSize(comm); }
        @Override public void commFree(long comm) { d.commFree(comm); }
        @Override public void setErrorsReturn(long comm) { d.setErrorsReturn(comm); }
        @Override public double wtime() { return d.wtime(); }
        @Override public String libraryVersion() { return d.libraryVersion(); }
        @Override public String errorString(int code) { return d.errorString(code); }
        @Override public void abort(long comm, int code) { d.abort(comm, code); }

        @Override
        public long commSplit(long comm, int color, int key) {
            enter("comm_split");
            try {
                return d.commSplit(comm, color, key);
            } finally {
                leave();
            }
        }

        @Override
        public long commSplitShared(long comm, int key) {
            enter("comm_split_type");
            try {
                return d.commSplitShared(comm, key);
            } finally {
                leave();
            }
        }

        @Override
        public void barrier(long comm) {
            enter("barrier");
            try {
                d.barrier(comm);
            } finally {
                leave();
            }
        }

        @Override
        public void allreduce(long send, long recv, int count, long type, long op, long comm) {
            enter("allreduce");
            try {
                d.allreduce(send, recv, count, type, op, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void bcast(long buf, int count, long type, int root, long comm) {
            enter("bcast");
            try {
                d.bcast(buf, count, type, root, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void allgather(long send, int sendCount, long recv, int recvCount, long type, long comm) {
            enter("allgather");
            try {
                d.allgather(send, sendCount, recv, recvCount, type, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void allgatherv(long send, int sendCount, long recv, long recvCounts, long displs, long type, long comm) {
            enter("allgatherv");
            try {
                d.allgatherv(send, sendCount, recv, recvCounts, displs, type, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void alltoall(long send, int count, long recv, long type, long comm) {
            enter("alltoall");
            try {
                d.alltoall(send, count, recv, type, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void reduceScatterBlock(long send, long recv, int recvCount, long type, long op, long comm) {
            enter("reduce_scatter_block");
            try {
                d.reduceScatterBlock(send, recv, recvCount, type, op, comm);
            } finally {
                leave();
            }
        }

        // ---- troika-mpi's other calls (issue 17): blocking collectives counted, the rest delegated ----
        @Override public int queryThread() { return d.queryThread(); }
        @Override public long commDup(long comm) { return d.commDup(comm); }
        @Override public int commCompare(long a, long b) { return d.commCompare(a, b); }
        @Override public long commCreate(long comm, long group) { return d.commCreate(comm, group); }
        @Override public long commGroup(long comm) { return d.commGroup(comm); }
        @Override public int groupSize(long group) { return d.groupSize(group); }
        @Override public int groupRank(long group) { return d.groupRank(group); }
        @Override public long groupIncl(long group, int[] ranks) { return d.groupIncl(group, ranks); }
        @Override public long groupExcl(long group, int[] ranks) { return d.groupExcl(group, ranks); }
        @Override public int[] groupTranslateRanks(long f, int[] r, long t) { return d.groupTranslateRanks(f, r, t); }
        @Override public void groupFree(long group) { d.groupFree(group); }
        @Override public int anySource() { return d.anySource(); }
        @Override public int procNull() { return d.procNull(); }
        @Override public int anyTag() { return d.anyTag(); }
        @Override public int tagUpperBound() { return d.tagUpperBound(); }
        @Override public long address(java.nio.Buffer direct) { return d.address(direct); }
        @Override public boolean heapAccess() { return d.heapAccess(); }
        @Override public org.troika.mpi.spi.NativeFunction function(String name, String signature) {
            return d.function(name, signature);
        }
        @Override public long predefined(String name) { return d.predefined(name); }
        @Override public java.nio.ByteBuffer memory(long address, int bytes) { return d.memory(address, bytes); }
        @Override public org.troika.mpi.spi.Upcall reductionFunction(org.troika.mpi.spi.Upcall.Reduction body) {
            return d.reductionFunction(body);
        }

        @Override
        public void recvStatus(long buf, int count, long type, int source, int tag, long comm, long status) {
            d.recvStatus(buf, count, type, source, tag, comm, status);
        }

        @Override
        public void send(long buf, int count, long type, int dest, int tag, long comm) {
            d.send(buf, count, type, dest, tag, comm);
        }

        @Override
        public void recv(long buf, int count, long type, int source, int tag, long comm, int[] status) {
            d.recv(buf, count, type, source, tag, comm, status);
        }

        @Override
        public void sendrecv(long send, int sendCount, int dest, int sendTag, long recv, int recvCount, int source,
                int recvTag, long type, long comm, int[] status) {
            d.sendrecv(send, sendCount, dest, sendTag, recv, recvCount, source, recvTag, type, comm, status);
        }

        @Override
        public void probe(int source, int tag, long comm, long type, int[] status) {
            d.probe(source, tag, comm, type, status);
        }

        @Override
        public boolean iprobe(int source, int tag, long comm, long type, int[] status) {
            return d.iprobe(source, tag, comm, type, status);
        }

        @Override
        public long isend(long buf, int count, long type, int dest, int tag, long comm) {
            return d.isend(buf, count, type, dest, tag, comm);
        }

        @Override
        public long irecv(long buf, int count, long type, int source, int tag, long comm) {
            return d.irecv(buf, count, type, source, tag, comm);
        }

        @Override
        public void waitRequest(long request, long type, int[] status) {
            d.waitRequest(request, type, status);
        }

        @Override
        public boolean test(long request, long type, int[] status) {
            return d.test(request, type, status);
        }

        @Override public void cancel(long request) { d.cancel(request); }
        @Override public long requestNull() { return d.requestNull(); }

        @Override
        public void waitAll(int count, long[] requests, long type, int[] statuses) {
            d.waitAll(count, requests, type, statuses);
        }

        @Override
        public boolean testAll(int count, long[] requests, long type, int[] statuses) {
            return d.testAll(count, requests, type, statuses);
        }

        @Override
        public int waitAny(int count, long[] requests, long type, int[] status) {
            return d.waitAny(count, requests, type, status);
        }

        @Override
        public int testAny(int count, long[] requests, long type, int[] status) {
            return d.testAny(count, requests, type, status);
        }

        @Override
        public int waitSome(int count, long[] requests, int[] indices, long type, int[] statuses) {
            return d.waitSome(count, requests, indices, type, statuses);
        }

        @Override
        public int testSome(int count, long[] requests, int[] indices, long type, int[] statuses) {
            return d.testSome(count, requests, indices, type, statuses);
        }
        @Override public long ibarrier(long comm) { return d.ibarrier(comm); }

        @Override
        public long iallreduce(long send, long recv, int count, long type, long op, long comm) {
            return d.iallreduce(send, recv, count, type, op, comm);
        }

        @Override
        public long ibcast(long buf, int count, long type, int root, long comm) {
            return d.ibcast(buf, count, type, root, comm);
        }

        @Override
        public long iallgather(long send, int sendCount, long recv, int recvCount, long type, long comm) {
            return d.iallgather(send, sendCount, recv, recvCount, type, comm);
        }

        @Override
        public void reduce(long send, long recv, int count, long type, long op, int root, long comm) {
            enter("reduce");
            try {
                d.reduce(send, recv, count, type, op, root, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void gather(long send, int sendCount, long recv, int recvCount, long type, int root, long comm) {
            enter("gather");
            try {
                d.gather(send, sendCount, recv, recvCount, type, root, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void gatherv(long send, int sendCount, long recv, int[] counts, int[] displs, long type, int root,
                long comm) {
            enter("gatherv");
            try {
                d.gatherv(send, sendCount, recv, counts, displs, type, root, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void scatter(long send, int sendCount, long recv, int recvCount, long type, int root, long comm) {
            enter("scatter");
            try {
                d.scatter(send, sendCount, recv, recvCount, type, root, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void scatterv(long send, int[] counts, int[] displs, long recv, int recvCount, long type, int root,
                long comm) {
            enter("scatterv");
            try {
                d.scatterv(send, counts, displs, recv, recvCount, type, root, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void scan(long send, long recv, int count, long type, long op, long comm) {
            enter("scan");
            try {
                d.scan(send, recv, count, type, op, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void exscan(long send, long recv, int count, long type, long op, long comm) {
            enter("exscan");
            try {
                d.exscan(send, recv, count, type, op, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void allreduceHeap(Object send, Object recv, int count, long type, long op, long comm) {
            enter("allreduce");
            try {
                d.allreduceHeap(send, recv, count, type, op, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void bcastHeap(Object buf, int count, long type, int root, long comm) {
            enter("bcast");
            try {
                d.bcastHeap(buf, count, type, root, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void allgatherHeap(Object send, int sendCount, Object recv, int recvCount, long type, long comm) {
            enter("allgather");
            try {
                d.allgatherHeap(send, sendCount, recv, recvCount, type, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void reduceHeap(Object send, Object recv, int count, long type, long op, int root, long comm) {
            enter("reduce");
            try {
                d.reduceHeap(send, recv, count, type, op, root, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void gatherHeap(Object send, int sendCount, Object recv, int recvCount, long type, int root, long comm) {
            enter("gather");
            try {
                d.gatherHeap(send, sendCount, recv, recvCount, type, root, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void scatterHeap(Object send, int sendCount, Object recv, int recvCount, long type, int root,
                long comm) {
            enter("scatter");
            try {
                d.scatterHeap(send, sendCount, recv, recvCount, type, root, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void scanHeap(Object send, Object recv, int count, long type, long op, boolean exclusive, long comm) {
            enter(exclusive ? "exscan" : "scan");
            try {
                d.scanHeap(send, recv, count, type, op, exclusive, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void alltoallHeap(Object send, int count, Object recv, long type, long comm) {
            enter("alltoall");
            try {
                d.alltoallHeap(send, count, recv, type, comm);
            } finally {
                leave();
            }
        }

        @Override
        public void reduceScatterBlockHeap(Object send, Object recv, int recvCount, long type, long op, long comm) {
            enter("reduce_scatter_block");
            try {
                d.reduceScatterBlockHeap(send, recv, recvCount, type, op, comm);
            } finally {
                leave();
            }
        }
    }
}
