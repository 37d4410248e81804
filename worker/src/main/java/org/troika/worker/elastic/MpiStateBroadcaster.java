package org.troika.worker.elastic;

import java.util.Objects;
import java.util.function.UnaryOperator;
import org.troika.mpi.Communicator;
import org.troika.mpi.MpiException;

/** {@link StateBroadcaster} over an MPI communicator: {@code MPI_Bcast} of the length, then the bytes, from rank 0. */
public final class MpiStateBroadcaster {
    private MpiStateBroadcaster() {}

    /** Broadcasts from rank 0 of {@code comm} (the generation's world); MPI errors become {@link CollectiveFailure}. */
    public static StateBroadcaster over(Communicator comm) {
        Objects.requireNonNull(comm, "comm");
        return withMpiAbort(bytes -> comm.broadcastBytes(bytes, 0));
    }

    /**
     * {@link #of} whose {@link StateBroadcaster#abort} is {@code MPI_Abort} on the world: a rank that cannot go on
     * (no worker key, no driver) ends the generation instead of leaving its peers in a collective.
     */
    static StateBroadcaster withMpiAbort(UnaryOperator<byte[]> broadcastFromRank0) {
        StateBroadcaster b = of(broadcastFromRank0);
        return new StateBroadcaster() {
            @Override
            public byte[] broadcast(byte[] fromRank0) {
                return b.broadcast(fromRank0);
            }

            @Override
            public void abort(int exitCode) {
                org.troika.mpi.Mpi.abort(exitCode);
            }
        };
    }

    /** The broadcaster around a raw broadcast call: MPI errors become {@link CollectiveFailure}. */
    static StateBroadcaster of(UnaryOperator<byte[]> broadcastFromRank0) {
        return bytes -> {
            try {
                return broadcastFromRank0.apply(bytes);
            } catch (MpiException e) {
                throw new CollectiveFailure("state broadcast failed: " + e.getMessage(), e);
            }
        };
    }
}
