package org.troika.mpi.spi;

import java.lang.ref.WeakReference;
import java.nio.Buffer;

/**
 * The base addresses (element 0) of the direct buffers recently passed to MPI. A buffer object's base address never
 * changes, and training loops and benchmarks pass the same buffers every call, so this saves the backend's look-up
 * ({@code MemorySegment.ofBuffer} on FFM, a JNI call on JNA: 25-30 ns a buffer, more before the JIT is done) on every
 * call but the first.
 *
 * <p>Room for {@link #CAPACITY} buffers, because a window of non-blocking calls cycles through one buffer per request
 * (OMB-J's bandwidth test: 64) and a cache of the last two, as this was, missed on every call there: the look-up was
 * ~45 % of the sending rank's time at 8 bytes. The buffers are kept in the order they came, and the first place looked
 * at is the one after the last hit: a buffer used again and again, two used in turn and a window used in order are
 * each found at the first look; other orders scan the buffers kept (at most {@link #CAPACITY}). When all places are
 * taken, a new buffer replaces the oldest. Entries hold their buffers weakly, so the cache never keeps a buffer's
 * native memory from being freed. Shared by threads without locking: entries are immutable and every index stays in
 * range, so a race only costs a look-up.
 */
public final class BufferAddresses {
    /** Buffers kept: the largest window of requests measured (OMB-J's 64) and as many again. */
    public static final int CAPACITY = 128;

    private final NativeMpi mpi;
    private final Entry[] entries = new Entry[CAPACITY];
    /** Entries in use: they are [0, used). */
    private int used;
    /** Where the next look starts: after the last hit, modulo {@link #used}. */
    private int next;
    /** Where the next new buffer goes once all places are taken (the oldest). */
    private int oldest;

    public BufferAddresses(NativeMpi mpi) {
        this.mpi = mpi;
    }

    /** {@link NativeMpi#address} of {@code direct}, from the cache when it holds that buffer. */
    public long base(Buffer direct) {
        Entry[] e = entries;
        int n = used;
        int at = next;
        Entry hit = e[at];
        if (hit == null || hit.get() != direct) {
            at = -1;
            for (int i = 0; i < n; i++) {
                Entry x = e[i];
                if (x != null && x.get() == direct) {
                    at = i;
                    hit = x;
                    break;
                }
            }
            if (at < 0) {
                return add(direct);
            }
        }
        next = at + 1 < n ? at + 1 : 0;
        return hit.base;
    }

    private long add(Buffer direct) {
        Entry x = new Entry(direct, mpi.address(direct));
        int n = used;
        int at;
        if (n < CAPACITY) {
            at = n;
            entries[at] = x;
            used = n + 1;
        } else {
            at = oldest;
            entries[at] = x;
            oldest = at + 1 < CAPACITY ? at + 1 : 0;
        }
        next = at + 1 < used ? at + 1 : 0;
        return x.base;
    }

    private static final class Entry extends WeakReference<Buffer> {
        final long base;

        Entry(Buffer buffer, long base) {
            super(buffer);
            this.base = base;
        }
    }
}
