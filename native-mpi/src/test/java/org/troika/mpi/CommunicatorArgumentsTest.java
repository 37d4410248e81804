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
    void refusesBadPointToPointAndRootedArgumentsWithoutCallingMpi() {
        assertAll(
                refused("dest = size", () -> world.send(new int[1], 1, 0), "not a rank"),
                refused("ANY_SOURCE as dest", () -> world.send(new int[1], Communicator.ANY_SOURCE, 0), "not a rank"),
                refused("source below", () -> world.recv(new float[1], -7, 0), "ANY_SOURCE or PROC_NULL"),
                refused("negative tag", () -> world.isend(new int[1], 0, -2), "tag -2"),
                refused("ANY_TAG on send", () -> world.send(direct(1), 0, Communicator.ANY_TAG), "tag -1"),
                refused("tag above bound", () -> world.send(new byte[1], 0, 32768), "0..32767"),
                refused("heap buffer isend", () -> world.isend(FloatBuffer.allocate(1), 0, 0), "allocateDirect"),
                refused("read-only irecv", () -> world.irecv(direct(1).asReadOnlyBuffer(), 0, 0), "read-only"),
                refused("mixed sendrecv types", () -> world.sendrecv(direct(1), 0, 0, directInts(1), 0, 0),
                        "one element type"),
                refused("null address", () -> world.isend(0L, 2, Datatype.INT, 0, 0), "null address"),
                refused("reduce root", () -> world.reduce(new int[1], new int[1], Op.SUM, 1), "not a rank"),
                refused("reduce without out", () -> world.reduce(new int[1], null, Op.SUM, 0), "receives the result"),
                refused("reduce lengths", () -> world.reduce(new long[2], new long[3], Op.SUM, 0), "must match"),
                refused("gather lengths", () -> world.gather(new double[2], new double[3], 0), "must match"),
                refused("scatter lengths", () -> world.scatter(new float[3], new float[2], 0), "must match"),
                refused("scatterv counts", () -> world.scatterv(new int[3], new int[] {1, 2}, 0), "entries"),
                refused("scatterv sum", () -> world.scatterv(new int[3], new int[] {2}, 0), "must match"),
                refused("scatterv negative", () -> world.scatterv(new int[0], new int[] {-1}, 0), ">= 0"),
                refused("scan in place", () -> {
                    int[] x = new int[1];
                    world.scan(x, x, Op.SUM);
                }, "two arrays"),
                refused("iallreduce bytes", () -> world.iallreduce(ByteBuffer.allocateDirect(4), Op.SUM), "numeric"),
                refused("iallgather lengths", () -> world.iallgather(new int[2], new int[3]), "must match"),
                refused("ibcast root", () -> world.ibcast(new byte[1], 2), "not a rank"),
                refused("split color", () -> world.split(-3, 0), "negative"),
                refused("group incl", () -> world.group().incl(1), "not in this group"),
                refused("group incl twice", () -> world.group().incl(0, 0), "twice"));
        assertEquals(0, mpi.collectives);
    }

    @Test
    void sendrecvStatusReportsTheMessageInBytesAndElements() {
        float[] got = new float[3];
        Status s = world.sendrecv(new float[] {1f, 2f, 3f}, 0, 9, got, 0, 9);
        assertAll(() -> assertArrayEquals(new float[] {1f, 2f, 3f}, got), () -> assertEquals(12, s.bytes()),
                () -> assertEquals(3, s.count(Datatype.FLOAT)), () -> assertEquals(9, s.tag()));
    }

    @Test
    void nonBlockingArrayCallsCopyTheResultBackOnCompletion() {
        int[] data = {4, 5};
        Request r = world.iallreduce(data, Op.SUM);
        data[0] = 99; // MPI works on a native copy: the array may change before completion...
        r.waitFor();
        assertArrayEquals(new int[] {4, 5}, data); // ...and receives the result when the request completes
        assertTrue(r.isDone());
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
