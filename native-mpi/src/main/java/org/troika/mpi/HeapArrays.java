package org.troika.mpi;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;

/** Element types of Java arrays and NIO buffers, checked before anything reaches MPI. */
final class HeapArrays {
    private HeapArrays() {}

    /** The datatype of a {@code float[]}, {@code double[]}, {@code int[]}, {@code long[]} or {@code byte[]}. */
    static Datatype type(Object array) {
        if (array instanceof float[]) {
            return Datatype.FLOAT;
        } else if (array instanceof double[]) {
            return Datatype.DOUBLE;
        } else if (array instanceof int[]) {
            return Datatype.INT;
        } else if (array instanceof long[]) {
            return Datatype.LONG;
        } else if (array instanceof byte[]) {
            return Datatype.BYTE;
        }
        throw new IllegalArgumentException("unsupported array type "
                + (array == null ? "null" : array.getClass().getSimpleName())
                + ": use float[], double[], int[], long[] or byte[]");
    }

    static int length(Object array) {
        return java.lang.reflect.Array.getLength(array);
    }

    /** The datatype of a buffer's elements; rejects heap buffers and non-native byte order. */
    static Datatype type(Buffer buffer, String name) {
        if (buffer == null) {
            throw new IllegalArgumentException(name + " is null");
        }
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException(name + " is a heap buffer: MPI needs native memory, allocate it with "
                    + "ByteBuffer.allocateDirect(n).order(ByteOrder.nativeOrder()) or pass a Java array");
        }
        ByteOrder order;
        Datatype type;
        if (buffer instanceof FloatBuffer b) {
            order = b.order();
            type = Datatype.FLOAT;
        } else if (buffer instanceof DoubleBuffer b) {
            order = b.order();
            type = Datatype.DOUBLE;
        } else if (buffer instanceof IntBuffer b) {
            order = b.order();
            type = Datatype.INT;
        } else if (buffer instanceof LongBuffer b) {
            order = b.order();
            type = Datatype.LONG;
        } else if (buffer instanceof ByteBuffer) {
            return Datatype.BYTE;
        } else {
            throw new IllegalArgumentException(name + " is a " + buffer.getClass().getSimpleName()
                    + ": use a direct FloatBuffer, DoubleBuffer, IntBuffer, LongBuffer or ByteBuffer");
        }
        if (order != ByteOrder.nativeOrder()) {
            throw new IllegalArgumentException(name + " is " + order + " but MPI reads native order ("
                    + ByteOrder.nativeOrder() + "): view it with ByteBuffer.order(ByteOrder.nativeOrder())");
        }
        return type;
    }
}
