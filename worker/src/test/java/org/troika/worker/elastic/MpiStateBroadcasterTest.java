package org.troika.worker.elastic;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.troika.mpi.MpiException;

class MpiStateBroadcasterTest {
    @Test
    void passesBytesThroughAndTurnsMpiErrorsIntoCollectiveFailures() {
        assertArrayEquals(new byte[] {7}, MpiStateBroadcaster.of(b -> new byte[] {7}).broadcast(null));
        MpiException mpi = new MpiException("MPI_Bcast", 15, 15, "process failed");
        CollectiveFailure f = assertThrows(CollectiveFailure.class, () -> MpiStateBroadcaster.of(b -> {
            throw mpi;
        }).broadcast(new byte[0]));
        assertEquals(mpi, f.getCause());
        assertTrue(f.getMessage().startsWith("state broadcast failed: MPI_Bcast failed"), f.getMessage());
    }

    @Test
    void otherErrorsAreNotDisguisedAsPeerFailures() {
        assertThrows(IllegalArgumentException.class, () -> MpiStateBroadcaster.of(b -> {
            throw new IllegalArgumentException("bug");
        }).broadcast(null));
    }
}
