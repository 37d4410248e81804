package org.troika.mpi.spi;

/**
 * The MPI fault-tolerance extension (ULFM, {@code MPIX_Comm_*}) of one loaded library, looked up by symbol at run
 * time. Handles are the {@code long}s of {@link NativeMpi}; every method throws {@link org.troika.mpi.MpiException}
 * (or its typed subclasses) when the call fails.
 */
public interface NativeUlfm {
    /** {@code MPIX_Comm_revoke}. */
    void revoke(long comm);

    /** {@code MPIX_Comm_shrink}: a new communicator of the live processes. */
    long shrink(long comm);

    /** {@code MPIX_Comm_agree}: the bitwise AND of {@code flag} over the live processes. */
    int agree(long comm, int flag);

    /** {@code MPIX_Comm_failure_ack}. */
    void failureAck(long comm);

    /** The size of the group from {@code MPIX_Comm_failure_get_acked} (the group is freed). */
    int failedAcked(long comm);
}
