package org.troika.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.FloatBuffer;
import org.junit.jupiter.api.Test;

class TensorBucketTest {
    private final FakeNativeMpi mpi = new FakeNativeMpi();
    private final Communicator world = mpi.world();

    @Test
    void viewsShareOneBufferAndOneCollective() {
        TensorBucket bucket = new TensorBucket(world, Datatype.FLOAT, Op.SUM, 1000 * 1024 * 4);
        FloatBuffer[] views = new FloatBuffer[1000];
        for (int i = 0; i < views.length; i++) {
            views[i] = bucket.floats(1024);
            views[i].put(1023, i);
        }
        bucket.allreduce();
        assertEquals(1, bucket.collectives());
        assertEquals(1, mpi.collectives);
        assertEquals(1000 * 1024 * 4, bucket.usedBytes());
        assertEquals(999f, views[999].get(1023));
        assertEquals(1024, views[5].capacity(), "a view covers exactly its tensor");
    }

    @Test
    void refusesOverflowOtherTypesAndEmptyReduction() {
        TensorBucket bucket = new TensorBucket(world, Datatype.DOUBLE, Op.MAX, 16);
        bucket.doubles(2);
        assertThrows(IllegalStateException.class, () -> bucket.doubles(1));
        assertThrows(IllegalArgumentException.class, () -> bucket.floats(1));
        TensorBucket empty = new TensorBucket(world, Datatype.INT, Op.SUM, 64);
        empty.allreduce();
        assertEquals(0, empty.collectives());
        assertThrows(IllegalArgumentException.class, () -> new TensorBucket(world, Datatype.BYTE, Op.SUM, 8));
    }
}
