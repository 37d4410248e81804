package org.troika.mpi.spi;

import java.lang.ref.WeakReference;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The base addresses (element 0) of the direct buffers recently passed to MPI. A buffer object's base address never
 * changes, and training loops and benchmarks pass the same buffers every call, so this saves the backend's look-up
 * ({@code MemorySegment.ofBuffer} on FFM, a JNI call on JNA: 25-30 ns a buffer, more before the JIT is done) on every
 * call but the first.
 *
 * <p>Room for {@link #CAPACITY} buffers, because a window of non-blocking calls cycles through one buffer per request
 * (OMB-J's bandwidth test: 64) and a cache of the last two, as this was, missed on every call there: the look-up was
 * ~45 % of the sending rank's time at 8 bytes. Two ways to find a buffer, each one look, never a scan: the buffers
 * are kept in the order they came and the first look is at the one after the last hit (a buffer used again and
 * again, two used in turn and a window used in order are found there); then a table by identity hash (other orders;
 * two buffers that share a place there take turns). A buffer found by neither is looked up and replaces the oldest.
 * So a program that passes a new buffer every call pays two looks more than the look-up, not a walk through the
 * cache. Entries hold their buffers weakly, so the cache never keeps a buffer's native memory from being freed.
 * Shared by threads without locking: entries are immutable and every index stays in range, so a race only costs a
 * look-up.
 */
public final class BufferAddresses {
    /** Buffers kept in order: the largest window of requests measured (OMB-J's 64) and as many again. */
    public static final int CAPACITY = 128;
    /** Places in the table by identity hash (a power of two, twice {@link #CAPACITY}). */
    private static final int TABLE = 2 * CAPACITY;

    /*
     * The buffer classes the JDK makes by itself mid-run, loaded before any MPI call is compiled. While a class
     * has no subclass loaded, C2 compiles type checks against it as exact (DirectByteBuffer and IntBuffer as "leaf
     * types", DirectByteBuffer.isDirect() as a "unique concrete method"). When String.format first loads locale data
     * (OMB-J after its first size, OmbTroika likewise) the JDK opens its module image, with a read-only direct byte
     * buffer (DirectByteBufferR) and direct int views (DirectIntBufferU, DirectIntBufferRU); that threw away the drop-in's
     * compiled send and recv and troika-mpi's compiled send and recvIgnoreStatus (HeapArrays.type's IntBuffer check),
     * and the next sizes ran in slower code until compiled again. Only these three: +0.1-0.5 ms at start-up; the
     * other typed views and read-only forms (not in the JDK's class-data archive) would cost every rank ~3 ms, and
     * come only from a program's own calls. The FFM backend does the same for its heap segment classes (FfmMpi's
     * static initializer): it is the only place that can name them.
     */
    static {
        ByteBuffer b = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        b.asIntBuffer();
        b.asReadOnlyBuffer().order(ByteOrder.nativeOrder()).asIntBuffer();
    }

    private final NativeMpi mpi;
    private final Entry[] order = new Entry[CAPACITY];
    private final Entry[] table = new Entry[TABLE];
    /** Where the next look in {@link #order} is: after the last hit. */
    private int next;
    /** Where the next new buffer goes in {@link #order} (the oldest, once all places are taken). */
    private int oldest;

    public BufferAddresses(NativeMpi mpi) {
        this.mpi = mpi;
    }

    /** {@link NativeMpi#address} of {@code direct}, from the cache when it holds that buffer. */
    public long base(Buffer direct) {
        Entry hit = order[next];
        if (hit == null || hit.get() != direct) {
            int place = System.identityHashCode(direct) & (TABLE - 1);
            hit = table[place];
            if (hit == null || hit.get() != direct) {
                return add(direct, place);
            }
        }
        next = hit.at + 1 < CAPACITY ? hit.at + 1 : 0;
        return hit.base;
    }

    /** Looks {@code direct} up and keeps it: in {@link #order} at the oldest place, in {@link #table} at {@code place}.
     */
    private long add(Buffer direct, int place) {
        int at = oldest;
        Entry e = new Entry(direct, mpi.address(direct), at);
        order[at] = e;
        table[place] = e;
        int after = at + 1 < CAPACITY ? at + 1 : 0;
        oldest = after;
        next = after;
        return e.base;
    }

    private static final class Entry extends WeakReference<Buffer> {
        final long base;
        /** Its place in {@link #order}. */
        final int at;

        Entry(Buffer buffer, long base, int at) {
            super(buffer);
            this.base = base;
            this.at = at;
        }
    }
}
