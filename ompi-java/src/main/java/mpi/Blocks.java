package mpi;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Native copies of Java arrays for non-blocking calls (a heap array cannot stay pinned across calls): direct
 * buffers in power-of-two size classes, reused from request to request, so a window of {@code iSend}s on arrays
 * allocates nothing once warm. A request returns its block when it completes (possibly on another thread).
 */
final class Blocks {
    private static final int CLASSES = 31;
    /** Blocks kept per size class beyond those in use. */
    private static final int KEEP = 256;
    @SuppressWarnings("unchecked")
    private static final ConcurrentLinkedQueue<ArrayCopy>[] FREE = new ConcurrentLinkedQueue[CLASSES];
    private static final AtomicIntegerArray KEPT = new AtomicIntegerArray(CLASSES);

    static {
        for (int i = 0; i < CLASSES; i++) {
            FREE[i] = new ConcurrentLinkedQueue<>();
        }
    }

    private Blocks() {}

    private static int sizeClass(long bytes) {
        int c = 64 - Long.numberOfLeadingZeros(Math.max(bytes, 64) - 1);
        if (c >= CLASSES) {
            throw new IllegalArgumentException("a non-blocking call on a Java array is limited to 1 GiB; got " + bytes
                    + " bytes: use a direct buffer");
        }
        return c;
    }

    /** A native block of at least {@code bytes} bytes (content undefined). */
    static ArrayCopy take(long bytes) {
        int c = sizeClass(bytes);
        ArrayCopy b = FREE[c].poll();
        if (b != null) {
            KEPT.decrementAndGet(c);
            return b;
        }
        return new ArrayCopy(1 << c);
    }

    static void give(ArrayCopy b) {
        int c = sizeClass(b.bytes.capacity());
        if (KEPT.incrementAndGet(c) <= KEEP) {
            FREE[c].offer(b);
        } else {
            KEPT.decrementAndGet(c);
        }
    }
}
