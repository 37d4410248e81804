package org.troika.mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Large arrays go through the staging copy in pieces of STAGING_CHUNK bytes: one MPI call per piece, same result. */
class StagedArraysTest {
    private final FakeNativeMpi mpi = new FakeNativeMpi();
    private final Communicator world = mpi.world(); // no pinning: the copy path

    private static float[] values(int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = i % 1000 + 0.5f;
        }
        return a;
    }

    @Test
    void allreduceOfAnArrayLargerThanAPieceIsOneCallPerPiece() {
        int per = Communicator.STAGING_CHUNK / 4;
        float[] in = values(2 * per + 5);
        float[] out = new float[in.length];
        world.allreduce(in, out, Op.SUM);
        assertEquals(3, mpi.collectives);
        assertArrayEquals(in, out); // one rank: the sum is the array itself, piece by piece in place
        world.allreduce(new float[per], Op.SUM);
        assertEquals(4, mpi.collectives, "an array of one piece: one call");
        world.allreduce(new float[0], Op.SUM);
        assertEquals(5, mpi.collectives, "an empty array: one call, as in C");
    }

    @Test
    void broadcastOfALargeArrayIsOneCallPerPiece() {
        double[] data = new double[Communicator.STAGING_CHUNK / 8 * 3 + 1];
        data[data.length - 1] = 7;
        world.broadcast(data, 0);
        assertEquals(4, mpi.collectives);
        assertEquals(7, data[data.length - 1]);
    }
}
