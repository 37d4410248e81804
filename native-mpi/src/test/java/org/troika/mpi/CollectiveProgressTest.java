package org.troika.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;
import org.troika.mpi.spi.NativeMpi;

class CollectiveProgressTest {
    @Test
    void everyCollectiveIsCountedOnEntryAndOnLeavingEvenWhenItFails() {
        long[] insideSeen = new long[2];
        NativeMpi fake = (NativeMpi) Proxy.newProxyInstance(NativeMpi.class.getClassLoader(),
                new Class<?>[] {NativeMpi.class}, (proxy, method, args) -> {
                    if (method.getName().equals("barrier")) {
                        insideSeen[0] = CollectiveProgress.entered();
                        insideSeen[1] = CollectiveProgress.left();
                        throw new MpiException("MPI_Barrier", 1, 1, "failed");
                    }
                    return method.getReturnType() == int.class ? 0 : null;
                });
        NativeMpi counted = CollectiveProgress.counting(fake);
        assertSame(counted, CollectiveProgress.counting(counted), "never wrapped twice");
        long in = CollectiveProgress.entered();
        long out = CollectiveProgress.left();
        counted.allreduce(0, 0, 0, 4, 0, 100);
        counted.bcast(0, 0, 4, 0, 100);
        assertEquals("bcast", CollectiveProgress.lastEntered());
        assertThrows(MpiException.class, () -> counted.barrier(100));
        assertEquals(in + 3, insideSeen[0], "inside the barrier it is entered...");
        assertEquals(out + 2, insideSeen[1], "...and not yet left");
        assertEquals("barrier", CollectiveProgress.lastEntered());
        assertEquals(in + 3, CollectiveProgress.entered());
        assertEquals(out + 3, CollectiveProgress.left(), "a failed collective is left too");
        counted.commRank(100); // not a collective
        assertEquals(in + 3, CollectiveProgress.entered());
    }
}
