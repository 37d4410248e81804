package org.troika.mpi;

import java.util.List;
import java.util.Objects;
import org.troika.mpi.spi.NativeMpi;

/**
 * A non-blocking operation in flight ({@code MPI_Request}). Complete it with {@link #waitFor()} or poll it with
 * {@link #test()}, or many at once with {@link #waitAll}, {@link #waitAny}, {@link #waitSome}, {@link #testAll},
 * {@link #testAny} and {@link #testSome} (one native call each: {@code MPI_Waitall} and friends; nothing is allocated
 * per request). Until then its buffers belong to MPI: don't touch or free them. A request on Java arrays holds a native
 * copy of them (MPI cannot be given heap memory that the GC may move while the call is in flight) and copies the
 * result back into the array when it completes. Not thread-safe: complete a request on one thread.
 */
public final class Request {
    private final Context ctx;
    private final long handle;
    private final Runnable onComplete; // copies a staged result back into the caller's array, or null
    private final boolean receive; // only a receive's status says something: others complete with MPI_STATUS_IGNORE
    private Object keepAlive; // native memory MPI uses until completion
    private boolean done;
    // a completed receive's status, kept as ints: the Status object is made when asked for
    private int source;
    private int tag;
    private int error;
    private int bytes;
    private Status status;

    /** The status of a completed request that received nothing (a send or a collective): no source, no tag. */
    public static final Status NO_MESSAGE = new Status(Communicator.UNDEFINED, Communicator.UNDEFINED, 0, 0);

    Request(Context ctx, long handle, Object keepAlive, Runnable onComplete, boolean receive) {
        this.ctx = ctx;
        this.receive = receive;
        this.handle = handle;
        this.keepAlive = keepAlive;
        this.onComplete = onComplete;
    }

    /**
     * {@code MPI_Wait}: blocks until the operation completes; returns its status (again on later calls). Only
     * receives report a source, tag and size; sends and collectives complete with {@link #NO_MESSAGE} (their MPI
     * status is undefined, so it is not even asked for).
     */
    public Status waitFor() {
        if (!done) {
            int[] s = receive ? ctx.requestScratch().statuses(1) : null;
            ctx.mpi.waitRequest(handle, ctx.byteType, s);
            complete(s, 0);
        }
        return status();
    }

    /** {@code MPI_Test}: whether the operation completed (the request is then done, see {@link #status()}). */
    public boolean test() {
        if (!done) {
            int[] s = receive ? ctx.requestScratch().statuses(1) : null;
            if (ctx.mpi.test(handle, ctx.byteType, s)) {
                complete(s, 0);
            }
        }
        return done;
    }

    /** Whether the request completed (through this class's wait and test calls). */
    public boolean isDone() {
        return done;
    }

    /** The status of a completed request, or null while it is in flight. */
    public Status status() {
        if (!done) {
            return null;
        }
        if (status == null) {
            int src = source == ctx.procNull ? Communicator.PROC_NULL : source == ctx.anySource ? Communicator.ANY_SOURCE
                    : source;
            status = receive ? new Status(src, tag, error, bytes) : NO_MESSAGE;
        }
        return status;
    }

    /** {@code MPI_Cancel} then waits: for a receive nobody will match. Returns the status. */
    public Status cancel() {
        if (!done) {
            ctx.mpi.cancel(handle);
        }
        return waitFor();
    }

    /**
     * {@code MPI_Waitall}: completes every request, in any order, in one native call. Each request's status is then
     * {@link #status()}. Requests done already are skipped. If MPI reports an error ({@link MpiException}), the
     * requests it completed are done and the others are still in flight.
     */
    public static void waitAll(Request... requests) {
        Batch b = Batch.of(requests);
        if (b == null) {
            return;
        }
        try {
            b.mpi.waitAll(b.count, b.handles, b.ctx.byteType, b.statuses);
        } finally {
            b.completeNulled(requests);
        }
    }

    /** {@link #waitAll(Request...)} over a list. */
    public static void waitAll(List<Request> requests) {
        waitAll(requests.toArray(new Request[0]));
    }

    /**
     * {@code MPI_Testall}: true when every request has completed (then all are done); false leaves every request as
     * it was.
     */
    public static boolean testAll(Request... requests) {
        Batch b = Batch.of(requests);
        if (b == null) {
            return true;
        }
        boolean all = false;
        try {
            all = b.mpi.testAll(b.count, b.handles, b.ctx.byteType, b.statuses);
        } finally {
            b.completeNulled(requests);
        }
        return all;
    }

    /**
     * {@code MPI_Waitany}: blocks until one request completes and returns its index, or {@link Communicator#UNDEFINED}
     * when every request is done already.
     */
    public static int waitAny(Request... requests) {
        Batch b = Batch.of(requests);
        if (b == null) {
            return Communicator.UNDEFINED;
        }
        int i = b.mpi.waitAny(b.count, b.handles, b.ctx.byteType, b.statuses);
        return b.completeAt(requests, i);
    }

    /**
     * {@code MPI_Testany}: the index of a request that has completed, -1 when none has yet, or
     * {@link Communicator#UNDEFINED} when every request is done already.
     */
    public static int testAny(Request... requests) {
        Batch b = Batch.of(requests);
        if (b == null) {
            return Communicator.UNDEFINED;
        }
        int i = b.mpi.testAny(b.count, b.handles, b.ctx.byteType, b.statuses);
        return i < 0 ? i : b.completeAt(requests, i);
    }

    /**
     * {@code MPI_Waitsome}: blocks until at least one request completes; returns the indices of those that did (an
     * empty array when every request is done already).
     */
    public static int[] waitSome(Request... requests) {
        return some(true, requests);
    }

    /** {@code MPI_Testsome}: the indices of the requests that have completed (maybe none). */
    public static int[] testSome(Request... requests) {
        return some(false, requests);
    }

    private static int[] some(boolean wait, Request[] requests) {
        Batch b = Batch.of(requests);
        if (b == null) {
            return new int[0];
        }
        int[] indices = b.scratch.indices(b.count);
        int n = wait ? b.mpi.waitSome(b.count, b.handles, indices, b.ctx.byteType, b.statuses)
                : b.mpi.testSome(b.count, b.handles, indices, b.ctx.byteType, b.statuses);
        if (n == b.ctx.undefined) {
            return new int[0];
        }
        int[] result = new int[n];
        for (int k = 0; k < n; k++) {
            result[k] = indices[k];
            requests[indices[k]].complete(b.statuses, k);
        }
        return result;
    }

    /** Marks the request done with the status at {@code s[STATUS_INTS * at]} (a receive's), then copies back. */
    private void complete(int[] s, int at) {
        done = true;
        if (receive && s != null) {
            int i = at * NativeMpi.STATUS_INTS;
            source = s[i];
            tag = s[i + 1];
            error = s[i + 2];
            bytes = s[i + 3];
        }
        if (onComplete != null) {
            onComplete.run();
        }
        keepAlive = null;
    }

    /** This thread's reusable arrays for waitAll and friends: handles, statuses and indices. */
    static final class Scratch {
        private long[] handles = new long[64];
        private int[] statuses = new int[64 * NativeMpi.STATUS_INTS];
        private int[] indices = new int[64];

        long[] handles(int count) {
            if (handles.length < count) {
                handles = new long[count];
            }
            return handles;
        }

        int[] statuses(int count) {
            if (statuses.length < count * NativeMpi.STATUS_INTS) {
                statuses = new int[count * NativeMpi.STATUS_INTS];
            }
            return statuses;
        }

        int[] indices(int count) {
            if (indices.length < count) {
                indices = new int[count];
            }
            return indices;
        }
    }

    /** The native handles of an array of requests, done ones as MPI_REQUEST_NULL (inactive), in this thread's scratch. */
    private static final class Batch {
        final Context ctx;
        final NativeMpi mpi;
        final Scratch scratch;
        final int count;
        final long[] handles;
        final long nullHandle;
        final int[] statuses; // null when no receive is active: MPI_STATUSES_IGNORE

        private Batch(Context ctx, Request[] requests) {
            this.ctx = ctx;
            this.mpi = ctx.mpi;
            this.scratch = ctx.requestScratch();
            this.count = requests.length;
            this.handles = scratch.handles(count);
            this.nullHandle = ctx.requestNull;
            boolean receives = false;
            for (int i = 0; i < count; i++) {
                Request r = requests[i];
                handles[i] = r.done ? nullHandle : r.handle;
                receives |= r.receive && !r.done;
            }
            this.statuses = receives ? scratch.statuses(count) : null;
        }

        /** null when there is no request (nothing to do). */
        static Batch of(Request[] requests) {
            for (int i = 0; i < requests.length; i++) {
                Objects.requireNonNull(requests[i], "requests[" + i + "]");
            }
            return requests.length == 0 ? null : new Batch(requests[0].ctx, requests);
        }

        /** Completes the requests MPI set to MPI_REQUEST_NULL (statuses by position). */
        void completeNulled(Request[] requests) {
            for (int i = 0; i < count; i++) {
                Request r = requests[i];
                if (!r.done && handles[i] == nullHandle) {
                    r.complete(statuses, i);
                }
            }
        }

        /** Completes request {@code i} (its status is the first of the statuses); returns {@code i}. */
        int completeAt(Request[] requests, int i) {
            if (i >= 0 && i != ctx.undefined) {
                requests[i].complete(statuses, 0);
            }
            return i;
        }
    }
}
