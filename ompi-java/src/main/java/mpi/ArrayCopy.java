package mpi;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;

/**
 * Native memory holding a copy of part of a Java array: a direct buffer in native order with its address and typed
 * views made once, so copying in and out allocates nothing. Used for the arguments of blocking calls
 * ({@link Staging}) and for the arrays of non-blocking calls ({@link Blocks}).
 */
final class ArrayCopy {
    ByteBuffer bytes;
    long base;
    CharBuffer chars;
    ShortBuffer shorts;
    IntBuffer ints;
    LongBuffer longs;
    FloatBuffer floats;
    DoubleBuffer doubles;

    ArrayCopy(int capacity) {
        reallocate(capacity);
    }

    void ensure(long size) {
        if (size > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("a call on Java arrays is limited to 2 GiB per array; got " + size
                    + " bytes: use direct buffers");
        }
        if (size > bytes.capacity()) {
            reallocate((int) Math.min(Integer.MAX_VALUE - 64, Math.max(size, 2L * bytes.capacity())));
        }
    }

    private void reallocate(int capacity) {
        bytes = Native.allocate(capacity);
        base = Native.address(bytes);
        chars = bytes.asCharBuffer();
        shorts = bytes.asShortBuffer();
        ints = bytes.asIntBuffer();
        longs = bytes.asLongBuffer();
        floats = bytes.asFloatBuffer();
        doubles = bytes.asDoubleBuffer();
    }

    void put(Object array, int from, int n) {
        if (array instanceof byte[] a) {
            bytes.put(0, a, from, n);
        } else if (array instanceof int[] a) {
            ints.put(0, a, from, n);
        } else if (array instanceof float[] a) {
            floats.put(0, a, from, n);
        } else if (array instanceof double[] a) {
            doubles.put(0, a, from, n);
        } else if (array instanceof long[] a) {
            longs.put(0, a, from, n);
        } else if (array instanceof char[] a) {
            chars.put(0, a, from, n);
        } else if (array instanceof short[] a) {
            shorts.put(0, a, from, n);
        } else {
            boolean[] a = (boolean[]) array;
            for (int i = 0; i < n; i++) {
                bytes.put(i, a[from + i] ? (byte) 1 : (byte) 0);
            }
        }
    }

    void get(Object array, int from, int n) {
        if (array instanceof byte[] a) {
            bytes.get(0, a, from, n);
        } else if (array instanceof int[] a) {
            ints.get(0, a, from, n);
        } else if (array instanceof float[] a) {
            floats.get(0, a, from, n);
        } else if (array instanceof double[] a) {
            doubles.get(0, a, from, n);
        } else if (array instanceof long[] a) {
            longs.get(0, a, from, n);
        } else if (array instanceof char[] a) {
            chars.get(0, a, from, n);
        } else if (array instanceof short[] a) {
            shorts.get(0, a, from, n);
        } else {
            boolean[] a = (boolean[]) array;
            for (int i = 0; i < n; i++) {
                a[from + i] = bytes.get(i) != 0;
            }
        }
    }
}
