package org.troika.mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** waitAll and friends complete many requests with one native call each (a fake one-rank MPI counts them). */
class RequestTest {
    private final FakeNativeMpi mpi = new FakeNativeMpi();
    private final Communicator world = mpi.world();

    private Request[] window(int n) {
        ByteBuffer b = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        Request[] r = new Request[n];
        for (int i = 0; i < n; i++) {
            r[i] = i % 2 == 0 ? world.isend(b, 0, 1) : world.irecv(b, 0, 1);
        }
        return r;
    }

    @Test
    void waitAllIsOneNativeCallAndGivesEveryRequestItsStatus() {
        Request[] r = window(64);
        Request.waitAll(r);
        assertEquals(1, mpi.batches);
        assertTrue(Arrays.stream(r).allMatch(Request::isDone));
        assertSame(Request.NO_MESSAGE, r[0].status());
        assertEquals(new Status(0, 7, 0, 3), r[1].status());
        Request.waitAll(r); // all done: MPI sees only inactive requests, nothing changes
        assertEquals(new Status(0, 7, 0, 3), r[1].status());
    }

    @Test
    void waitAnyCompletesOneAtATimeThenSaysUndefined() {
        Request[] r = window(3);
        assertEquals(0, Request.waitAny(r));
        assertEquals(1, Request.waitAny(r));
        assertTrue(r[1].isDone());
        assertFalse(r[2].isDone());
        assertEquals(2, Request.testAny(r));
        assertEquals(Communicator.UNDEFINED, Request.waitAny(r));
        assertEquals(Communicator.UNDEFINED, Request.testAny(r));
    }

    @Test
    void waitSomeAndTestSomeReturnTheCompletedIndices() {
        Request[] r = window(4);
        r[1].waitFor();
        assertArrayEquals(new int[] {0, 2, 3}, Request.waitSome(r));
        assertEquals(new Status(0, 7, 0, 3), r[3].status());
        assertArrayEquals(new int[0], Request.waitSome(r));
        assertArrayEquals(new int[0], Request.testSome(r));
        assertTrue(Request.testAll(r));
    }

    @Test
    void arrayRequestsCopyBackWhenCompletedTogether() {
        int[] data = {4, 5};
        Request a = world.iallreduce(data, Op.SUM);
        data[0] = 99;
        Request.waitAll(a, world.ibarrier());
        assertArrayEquals(new int[] {4, 5}, data);
        assertEquals(1, mpi.batches);
    }
}
