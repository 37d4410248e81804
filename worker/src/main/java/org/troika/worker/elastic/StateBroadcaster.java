package org.troika.worker.elastic;

/**
 * Broadcasts bytes from rank 0 to every rank of the generation: the only way elastic state travels between
 * ranks. The real implementation is an MPI broadcast over the world communicator (length, then payload); tests
 * use an in-memory group. Never a socket: the bytes are decoded by the receiver.
 *
 * <p>A collective: every rank of the generation must call it, in the same order as the other collectives.
 */
@FunctionalInterface
public interface StateBroadcaster {
    /**
     * @param fromRank0 on rank 0, the bytes to send; ignored (may be {@code null}) on the other ranks
     * @return rank 0's bytes, on every rank
     * @throws CollectiveFailure if a peer died or the collective failed
     */
    byte[] broadcast(byte[] fromRank0);

    /**
     * Ends every rank of the generation at once (MPI_Abort), for a rank that cannot go on while its peers may wait in
     * a collective for it; a finalize there would hang. The default (no job to end, e.g. in-memory tests) returns.
     */
    default void abort(int exitCode) {}
}
