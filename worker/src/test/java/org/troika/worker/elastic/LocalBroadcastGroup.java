package org.troika.worker.elastic;

import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** An in-memory broadcast among the threads of one simulated generation; {@link #fail()} plays a dead peer. */
final class LocalBroadcastGroup {
    private final CyclicBarrier barrier;
    private volatile byte[] slot;
    private volatile boolean failed;

    LocalBroadcastGroup(int size) {
        barrier = new CyclicBarrier(size);
    }

    StateBroadcaster member(int rank) {
        return bytes -> {
            if (rank == 0) {
                slot = bytes.clone();
            }
            await();
            byte[] out = slot.clone();
            await();
            return out;
        };
    }

    /** Breaks the group: every rank now waiting or arriving later gets a {@link CollectiveFailure}. */
    void fail() {
        failed = true;
        barrier.reset();
    }

    private void await() {
        if (failed) {
            throw new CollectiveFailure("peer lost");
        }
        try {
            barrier.await(60, TimeUnit.SECONDS);
        } catch (BrokenBarrierException | TimeoutException e) {
            throw new CollectiveFailure("peer lost", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CollectiveFailure("interrupted", e);
        }
    }
}
