package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The body of a user-defined reduction ({@link Op#Op(UserFunction, boolean)}): combine {@code inVec} into
 * {@code inOutVec}, element by element. Override one of the two {@code call} methods. MPI hands the data as direct
 * byte buffers over its own memory ({@link #call(ByteBuffer, ByteBuffer, int, Datatype)}); by default that method
 * copies them into arrays of the datatype's base type ({@code int[]} for {@code MPI.INT}, ...), calls
 * {@link #call(Object, Object, int, Datatype)} and copies the result back.
 */
public abstract class UserFunction {
    public UserFunction() {}

    /** Combines arrays of the base type; {@code count} is the number of datatype elements. */
    public void call(Object inVec, Object inOutVec, int count, Datatype datatype) throws MPIException {
        throw new UnsupportedOperationException("Not supported yet.");
    }

    /** Combines MPI's buffers ({@code count} datatype elements each, native byte order). */
    public void call(ByteBuffer in, ByteBuffer inOut, int count, Datatype datatype) throws MPIException {
        in.order(ByteOrder.nativeOrder());
        inOut.order(ByteOrder.nativeOrder());
        switch (datatype.baseType) {
            case Datatype.CHAR -> {
                char[] x = new char[in.capacity() / 2];
                char[] y = new char[inOut.capacity() / 2];
                in.asCharBuffer().get(x);
                inOut.asCharBuffer().get(y);
                call(x, y, count, datatype);
                inOut.asCharBuffer().put(y);
                return;
            }
            case Datatype.SHORT -> {
                short[] x = new short[in.capacity() / 2];
                short[] y = new short[inOut.capacity() / 2];
                in.asShortBuffer().get(x);
                inOut.asShortBuffer().get(y);
                call(x, y, count, datatype);
                inOut.asShortBuffer().put(y);
                return;
            }
            case Datatype.INT -> {
                int[] x = new int[in.capacity() / 4];
                int[] y = new int[inOut.capacity() / 4];
                in.asIntBuffer().get(x);
                inOut.asIntBuffer().get(y);
                call(x, y, count, datatype);
                inOut.asIntBuffer().put(y);
                return;
            }
            case Datatype.LONG -> {
                long[] x = new long[in.capacity() / 8];
                long[] y = new long[inOut.capacity() / 8];
                in.asLongBuffer().get(x);
                inOut.asLongBuffer().get(y);
                call(x, y, count, datatype);
                inOut.asLongBuffer().put(y);
                return;
            }
            case Datatype.FLOAT, Datatype.FLOAT_COMPLEX -> {
                float[] x = new float[in.capacity() / 4];
                float[] y = new float[inOut.capacity() / 4];
                in.asFloatBuffer().get(x);
                inOut.asFloatBuffer().get(y);
                call(x, y, count, datatype);
                inOut.asFloatBuffer().put(y);
                return;
            }
            case Datatype.DOUBLE, Datatype.DOUBLE_COMPLEX -> {
                double[] x = new double[in.capacity() / 8];
                double[] y = new double[inOut.capacity() / 8];
                in.asDoubleBuffer().get(x);
                inOut.asDoubleBuffer().get(y);
                call(x, y, count, datatype);
                inOut.asDoubleBuffer().put(y);
                return;
            }
            default -> {
                byte[] x = new byte[in.capacity()];
                byte[] y = new byte[inOut.capacity()];
                in.get(0, x);
                inOut.get(0, y);
                call(x, y, count, datatype);
                inOut.put(0, y);
            }
        }
    }
}
