package org.troika.mpi;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import org.troika.mpi.spi.NativeMpi;

/**
 * One thread's native staging area for collectives on Java arrays: arrays are copied in, MPI works on native memory,
 * results are copied out. Used by the JNA backend (which would copy arrays anyway), by FFM for point-to-point calls
 * and when {@code TROIKA_MPI_HEAP=copy}. It grows to the largest request and is kept for reuse. Not thread-safe: one
 * per thread. Its memory is {@link NativeBuffers#ALIGNMENT}-aligned.
 */
final class Staging {
    private static final int MAX_BYTES = Integer.MAX_VALUE - 2 * NativeBuffers.ALIGNMENT;
    private final NativeMpi mpi;
    private ByteBuffer bytes = NativeBuffers.allocate(0);
    private long address;
    private FloatBuffer floats;
    private DoubleBuffer doubles;
    private IntBuffer ints;
    private LongBuffer longs;

    Staging(NativeMpi mpi) {
        this(mpi, 4096);
    }

    Staging(NativeMpi mpi, int capacity) {
        this.mpi = mpi;
        reallocate(capacity);
    }

    /** Bytes available without reallocating. */
    int capacity() {
        return bytes.capacity();
    }

    /** Makes room for {@code size} bytes (content is not preserved) and returns the base address. */
    long ensure(long size) {
        if (size > MAX_BYTES) {
            throw new IllegalArgumentException("a collective on Java arrays is limited to 2 GiB; got " + size
                    + " bytes: split it, or pass native memory by address");
        }
        if (size > bytes.capacity()) {
            reallocate((int) Math.min(MAX_BYTES, Math.max(size, 2L * bytes.capacity())));
        }
        return address;
    }

    private void reallocate(int capacity) {
        bytes = NativeBuffers.allocate(capacity);
        address = mpi.address(bytes);
        floats = bytes.asFloatBuffer();
        doubles = bytes.asDoubleBuffer();
        ints = bytes.asIntBuffer();
        longs = bytes.asLongBuffer();
    }

    /** Copies {@code length} elements of {@code array} from {@code from} to byte offset {@code at} (element-aligned). */
    void put(Object array, int from, int length, long at) {
        int i = (int) (at / HeapArrays.type(array).bytes());
        if (array instanceof float[] a) {
            floats.put(i, a, from, length);
        } else if (array instanceof double[] a) {
            doubles.put(i, a, from, length);
        } else if (array instanceof int[] a) {
            ints.put(i, a, from, length);
        } else if (array instanceof long[] a) {
            longs.put(i, a, from, length);
        } else {
            bytes.put(i, (byte[]) array, from, length);
        }
    }

    /** Copies {@code length} elements at byte offset {@code at} into {@code array} from {@code from}. */
    void get(long at, Object array, int from, int length) {
        int i = (int) (at / HeapArrays.type(array).bytes());
        if (array instanceof float[] a) {
            floats.get(i, a, from, length);
        } else if (array instanceof double[] a) {
            doubles.get(i, a, from, length);
        } else if (array instanceof int[] a) {
            ints.get(i, a, from, length);
        } else if (array instanceof long[] a) {
            longs.get(i, a, from, length);
        } else {
            bytes.get(i, (byte[]) array, from, length);
        }
    }
}
