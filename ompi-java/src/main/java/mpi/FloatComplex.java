package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;

/** One float complex number (real, imaginary) in a buffer or array, as {@code MPI.FLOAT_COMPLEX} transfers it. */
public final class FloatComplex {
    private final int offset;
    private final FloatBuffer buffer;

    private FloatComplex(FloatBuffer buffer, int index) {
        this.offset = 0;
        this.buffer = buffer.duplicate().position(2 * index).slice();
    }

    public static FloatComplex get(FloatBuffer buffer) {
        return new FloatComplex(buffer, 0);
    }

    public static FloatComplex get(FloatBuffer buffer, int index) {
        return new FloatComplex(buffer, index);
    }

    public static FloatComplex get(float[] array) {
        return new FloatComplex(FloatBuffer.wrap(array), 0);
    }

    public static FloatComplex get(float[] array, int index) {
        return new FloatComplex(FloatBuffer.wrap(array), index);
    }

    public static FloatComplex get(ByteBuffer buffer) {
        return new FloatComplex(buffer.duplicate().order(ByteOrder.nativeOrder()).asFloatBuffer(), 0);
    }

    public static FloatComplex get(ByteBuffer buffer, int index) {
        return new FloatComplex(buffer.duplicate().order(ByteOrder.nativeOrder()).asFloatBuffer(), index);
    }

    public float getReal() {
        return buffer.get(offset);
    }

    public float getImag() {
        return buffer.get(offset + 1);
    }

    public void putReal(float real) {
        buffer.put(offset, real);
    }

    public void putImag(float imag) {
        buffer.put(offset + 1, imag);
    }

    /** The two elements of this number. */
    public FloatBuffer getBuffer() {
        return buffer;
    }
}
