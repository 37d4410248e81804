package org.troika.mpi;

/**
 * An inter-communicator between two groups of processes: the processes a {@link Communicator#spawn} started and their
 * parents ({@link Mpi#parent()} on the children's side), or two groups joined through their leaders
 * ({@link Communicator#intercommCreate}). Its use here is {@link #merge}: one intra-communicator of both
 * groups, on which every {@link Communicator} call works. Close it when done ({@code MPI_Comm_free}), or
 * {@link #disconnect} it.
 */
public final class Intercommunicator implements AutoCloseable {
    private final Context ctx;
    private final long handle;
    private boolean freed; // guarded by this

    Intercommunicator(Context ctx, long handle) {
        this.ctx = ctx;
        this.handle = handle;
        ctx.mpi.setErrorsReturn(handle);
    }

    /** The native handle. */
    public long handle() {
        return handle;
    }

    /** This process's rank in its own group. */
    public int rank() {
        return ctx.mpi.commRank(handle);
    }

    /** The size of this process's own group. */
    public int size() {
        return ctx.mpi.commSize(handle);
    }

    /** {@code MPI_Comm_remote_size}: the size of the other group. */
    public int remoteSize() {
        return DynamicProcesses.of(ctx.mpi).remoteSize(handle);
    }

    /**
     * {@code MPI_Intercomm_merge}: both groups as one intra-communicator. Collective over both groups; the group whose
     * processes pass {@code high = true} comes last (children usually do, so the parents keep ranks 0..n-1). Close the
     * result when done.
     */
    public Communicator merge(boolean high) {
        long merged = DynamicProcesses.of(ctx.mpi).merge(handle, high);
        ctx.mpi.setErrorsReturn(merged);
        return new Communicator(ctx, merged, true);
    }

    /** {@code MPI_Comm_disconnect}: collective over both groups, waits for pending communication, then frees it. */
    public synchronized void disconnect() {
        if (!freed) {
            freed = true;
            DynamicProcesses.of(ctx.mpi).disconnect(handle);
        }
    }

    /** {@code MPI_Comm_free} (local). */
    @Override
    public synchronized void close() {
        if (!freed) {
            freed = true;
            ctx.mpi.commFree(handle);
        }
    }
}
