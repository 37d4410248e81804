package org.troika.mpi;

import java.util.List;
import java.util.Objects;
import org.troika.mpi.spi.NativeMpi;

/**
 * A non-blocking operation in flight ({@code MPI_Request}). Complete it with {@link #waitFor()} or poll it with
 * {@link #test()}; until then its buffers belong to MPI: don't touch or free them. A request on Java arrays holds a
 * native copy of them (MPI cannot be given heap memory that the GC may move while the call is in flight) and copies
 * the result back into the array when it completes. Not thread-safe: complete a request on one thread.
 */
public final class Request {
    private final NativeMpi mpi;
    private final long byteType;
    private final int procNull;
    private final int anySource;
    private final long handle;
    private final Runnable onComplete; // copies a staged result back into the caller's array, or null
    private final boolean receive; // only a receive's status says something: others complete with MPI_STATUS_IGNORE
    private Object keepAlive; // native memory MPI uses until completion
    private Status status;

    /** The status of a completed request that received nothing (a send or a collective): no source, no tag. */
    public static final Status NO_MESSAGE = new Status(Communicator.UNDEFINED, Communicator.UNDEFINED, 0, 0);

    Request(Context ctx, long handle, Object keepAlive, Runnable onComplete, boolean receive) {
        this.receive = receive;
        this.mpi = ctx.mpi;
        this.byteType = ctx.byteType;
        this.procNull = ctx.procNull;
        this.anySource = ctx.anySource;
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
        if (status == null) {
            int[] s = receive ? new int[NativeMpi.STATUS_INTS] : null;
            mpi.waitRequest(handle, byteType, s);
            complete(s);
        }
        return status;
    }

    /** {@code MPI_Test}: whether the operation completed (the request is then done, see {@link #status()}). */
    public boolean test() {
        if (status == null) {
            int[] s = receive ? new int[NativeMpi.STATUS_INTS] : null;
            if (mpi.test(handle, byteType, s)) {
                complete(s);
            }
        }
        return status != null;
    }

    /** Whether the request completed through {@link #waitFor()} or {@link #test()}. */
    public boolean isDone() {
        return status != null;
    }

    /** The status of a completed request, or null while it is in flight. */
    public Status status() {
        return status;
    }

    /** {@code MPI_Cancel} then waits: for a receive nobody will match. Returns the status. */
    public Status cancel() {
        if (status == null) {
            mpi.cancel(handle);
        }
        return waitFor();
    }

    /** {@code MPI_Waitall}: completes every request, in any order; returns their statuses in the given order. */
    public static Status[] waitAll(Request... requests) {
        Status[] result = new Status[requests.length];
        for (int i = 0; i < requests.length; i++) {
            result[i] = Objects.requireNonNull(requests[i], "requests[" + i + "]").waitFor();
        }
        return result;
    }

    /** {@link #waitAll(Request...)} over a list. */
    public static Status[] waitAll(List<Request> requests) {
        return waitAll(requests.toArray(new Request[0]));
    }

    /** {@code MPI_Testall}: true when every request has completed (completing those that have). */
    public static boolean testAll(Request... requests) {
        boolean all = true;
        for (Request r : requests) {
            all &= r.test();
        }
        return all;
    }

    private void complete(int[] s) {
        if (s == null) {
            status = NO_MESSAGE;
        } else {
            int source = s[0] == procNull ? Communicator.PROC_NULL : s[0] == anySource ? Communicator.ANY_SOURCE : s[0];
            status = new Status(source, s[1], s[2], s[3]);
        }
        if (onComplete != null) {
            onComplete.run();
        }
        keepAlive = null;
    }
}
