package org.troika.mpi;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Bad arguments are refused in Java, before any native call (a fake one-rank MPI counts the calls). */
class CommunicatorArgumentsTest {
    private final FakeNativeMpi mpi = new FakeNativeMpi();
    private final Communicator world = mpi.world();

    @Test
    void refusesBadArgumentsWithoutCallingMpi() {
        FloatBuffer bigEndian = ByteBuffer.allocateDirect(16).order(ByteOrder.BIG_ENDIAN).asFloatBuffer();
        FloatBuffer littleEndian = ByteBuffer.allocateDirect(16).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        FloatBuffer foreignOrder = ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN ? littleEndian : bigEndian;
        assertAll(
                refused("in/out lengths", () -> world.allreduce(new float[2], new float[3], Op.SUM), "must match"),
                refused("heap buffer", () -> world.allreduce(FloatBuffer.allocate(2), Op.SUM), "allocateDirect"),
                refused("byte order", () -> world.allreduce(foreignOrder, Op.SUM), "native order"),
                refused("element types", () -> world.allreduce(direct(2), directInts(2), Op.SUM), "one element type"),
                refused("byte reduction", () -> world.allreduce(ByteBuffer.allocateDirect(8), Op.SUM), "numeric"),
                refused("read-only result", () -> world.allreduce(direct(2), direct(2).asReadOnlyBuffer(), Op.SUM),
                        "read-only"),
                refused("root", () -> world.broadcast(new int[1], 1), "not a rank"),
                refused("negative root", () -> world.broadcast(new long[1], -1), "not a rank"),
                refused("negative count", () -> world.allreduceInPlace(64, -1, Datatype.INT, Op.SUM), ">= 0"),
                refused("null address", () -> world.allreduce(0, 64, 1, Datatype.INT, Op.SUM), "null address"),
                refused("allgather recv", () -> world.allgather(new int[2], new int[3]), "must match"),
                refused("alltoall lengths", () -> world.alltoall(new int[2], new int[1]), "must match"),
                refused("reduceScatter lengths", () -> world.reduceScatterBlock(new double[2], new double[1], Op.SUM),
                        "must match"));
        assertEquals(0, mpi.collectives);
    }

    @Test
    void buffersAreUsedFromTheirPositionAndKeepIt() {
        FloatBuffer send = direct(4);
        FloatBuffer recv = direct(2);
        send.put(2, 5f).put(3, 6f).position(2);
        world.allreduce(send, recv, Op.SUM);
        assertAll(() -> assertEquals(5f, recv.get(0)), () -> assertEquals(6f, recv.get(1)),
                () -> assertEquals(2, send.position()));
    }

    @Test
    void arrayPathsRoundTripThroughTheStagingArea() {
        long[] in = {1L << 40, -3};
        long[] out = new long[2];
        world.allreduce(in, out, Op.MAX);
        assertArrayEquals(in, out);
        double[] gathered = world.allgatherv(new double[] {1.5, 2.5, 3.5});
        assertArrayEquals(new double[] {1.5, 2.5, 3.5}, gathered);
        assertArrayEquals(new byte[] {1, 2, 3}, world.broadcastBytes(new byte[] {1, 2, 3}, 0));
    }

    @Test
    void splitWithUndefinedColorGivesNull() {
        assertNull(world.split(Communicator.UNDEFINED, 0));
        try (Communicator c = world.split(0, 0)) {
            assertEquals(1, c.size());
        }
    }

    private static Executable refused(String what, Executable call, String messagePart) {
        return () -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call, what);
            assertTrue(e.getMessage().contains(messagePart), what + ": " + e.getMessage());
        };
    }

    private static FloatBuffer direct(int n) {
        return ByteBuffer.allocateDirect(4 * n).order(ByteOrder.nativeOrder()).asFloatBuffer();
    }

    private static IntBuffer directInts(int n) {
        return ByteBuffer.allocateDirect(4 * n).order(ByteOrder.nativeOrder()).asIntBuffer();
    }
}
