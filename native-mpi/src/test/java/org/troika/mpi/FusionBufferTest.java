package org.troika.mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class FusionBufferTest {
    private final FakeNativeMpi mpi = new FakeNativeMpi();
    private final Communicator world = mpi.world();

    @Test
    void thousandSmallTensorsCostOneCollectiveUnderTheDefaultThreshold() {
        FusionBuffer fusion = new FusionBuffer(world, Datatype.FLOAT, Op.SUM, FusionBuffer.DEFAULT_THRESHOLD_BYTES);
        float[][] tensors = tensors(1000, 1024);
        for (float[] t : tensors) {
            fusion.add(t);
        }
        fusion.flush();
        assertEquals(1, fusion.collectives());
        assertEquals(1, mpi.collectives);
        assertArrayEquals(tensors(1000, 1024)[999], tensors[999]); // one rank: SUM is identity, data came back intact
    }

    @Test
    void flushesWhenTheNextTensorWouldOverflowTheThreshold() {
        FusionBuffer fusion = new FusionBuffer(world, Datatype.FLOAT, Op.SUM, 3 * 4096);
        for (float[] t : tensors(10, 1024)) { // 4 KiB each, 3 per flush
            fusion.add(t);
        }
        assertEquals(3, fusion.collectives());
        fusion.flush();
        assertEquals(4, fusion.collectives());
        fusion.flush();
        assertEquals(4, fusion.collectives(), "nothing pending: no collective");
    }

    @Test
    void aTensorLargerThanTheThresholdIsReducedAlone() {
        FusionBuffer fusion = new FusionBuffer(world, Datatype.DOUBLE, Op.MAX, 64);
        double[] small = {1, 2};
        double[] big = new double[100];
        big[99] = 7;
        fusion.add(small);
        fusion.add(big);
        assertEquals(2, fusion.collectives(), "pending small tensor flushed first, then the big one alone");
        assertEquals(7, big[99]);
        assertArrayEquals(new double[] {1, 2}, small);
    }

    @Test
    void rejectsOtherElementTypesAndByteFusion() {
        FusionBuffer fusion = new FusionBuffer(world, Datatype.FLOAT, Op.SUM, 1024);
        assertThrows(IllegalArgumentException.class, () -> fusion.add(new double[1]));
        assertThrows(IllegalArgumentException.class, () -> new FusionBuffer(world, Datatype.BYTE, Op.SUM, 1024));
        assertThrows(IllegalArgumentException.class, () -> new FusionBuffer(world, Datatype.LONG, Op.SUM, 4));
    }

    @Test
    void defaultThresholdComesFromTheEnvironment() {
        assertEquals(FusionBuffer.DEFAULT_THRESHOLD_BYTES, FusionBuffer.defaultThresholdBytes(java.util.Map.of()));
        assertEquals(FusionBuffer.DEFAULT_THRESHOLD_BYTES,
                FusionBuffer.defaultThresholdBytes(java.util.Map.of("TROIKA_FUSION_THRESHOLD", " ")));
        assertEquals(2097152, FusionBuffer.defaultThresholdBytes(java.util.Map.of("TROIKA_FUSION_THRESHOLD", "2097152")));
        assertEquals(0, FusionBuffer.defaultThresholdBytes(java.util.Map.of("TROIKA_FUSION_THRESHOLD", "0")));
        for (String bad : new String[] {"-1", "2MB", "99999999999"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> FusionBuffer.defaultThresholdBytes(java.util.Map.of("TROIKA_FUSION_THRESHOLD", bad)));
            assertEquals("TROIKA_FUSION_THRESHOLD='" + bad + "' is not a byte count from 0 to 2147483647", e.getMessage());
        }
    }

    @Test
    void threadLevelComesFromTheEnvironment() {
        assertEquals(ThreadLevel.SINGLE, ThreadLevel.fromEnv(java.util.Map.of()));
        assertEquals(ThreadLevel.MULTIPLE, ThreadLevel.fromEnv(java.util.Map.of("TROIKA_MPI_THREAD_LEVEL", "multiple")));
        assertEquals(ThreadLevel.FUNNELED, ThreadLevel.fromEnv(java.util.Map.of("TROIKA_MPI_THREAD_LEVEL", "Funneled")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ThreadLevel.fromEnv(java.util.Map.of("TROIKA_MPI_THREAD_LEVEL", "all")));
        assertEquals("TROIKA_MPI_THREAD_LEVEL='all' is not a thread level; use single, funneled, serialized or multiple",
                e.getMessage());
    }

    private static float[][] tensors(int count, int length) {
        float[][] t = new float[count][length];
        for (int i = 0; i < count; i++) {
            for (int j = 0; j < length; j++) {
                t[i][j] = i * 0.5f + j;
            }
        }
        return t;
    }
}
