package diff;

import java.nio.Buffer;
import mpi.Datatype;
import mpi.MPI;

/** One Java array (and matching direct buffer) per element type, with its datatype, filled from a seed. */
final class Arrays8 {
    private Arrays8() {}

    static final String[] NAMES = {"byte", "char", "short", "boolean", "int", "long", "float", "double"};

    static Datatype type(int k) {
        return new Datatype[] {MPI.BYTE, MPI.CHAR, MPI.SHORT, MPI.BOOLEAN, MPI.INT, MPI.LONG, MPI.FLOAT,
            MPI.DOUBLE}[k];
    }

    /** An array of kind {@code k} with {@code n} elements: seed*100 + i (booleans: parity). */
    static Object array(int k, int n, int seed) {
        switch (k) {
            case 0: { byte[] a = new byte[n]; for (int i = 0; i < n; i++) { a[i] = (byte) (seed * 10 + i); } return a; }
            case 1: { char[] a = new char[n]; for (int i = 0; i < n; i++) { a[i] = (char) (seed * 100 + i + 1000); } return a; }
            case 2: { short[] a = new short[n]; for (int i = 0; i < n; i++) { a[i] = (short) (seed * 100 - i); } return a; }
            case 3: { boolean[] a = new boolean[n]; for (int i = 0; i < n; i++) { a[i] = (seed + i) % 3 == 0; } return a; }
            case 4: { int[] a = new int[n]; for (int i = 0; i < n; i++) { a[i] = seed * 1000 + i; } return a; }
            case 5: { long[] a = new long[n]; for (int i = 0; i < n; i++) { a[i] = seed * 10_000_000_000L + i; } return a; }
            case 6: { float[] a = new float[n]; for (int i = 0; i < n; i++) { a[i] = seed + i / 4f; } return a; }
            default: { double[] a = new double[n]; for (int i = 0; i < n; i++) { a[i] = seed * 0.5 + i; } return a; }
        }
    }

    /** A direct buffer of kind {@code k} (booleans travel as bytes) holding {@link #array}'s values. */
    static Buffer buffer(int k, int n, int seed) {
        Object a = array(k, n, seed);
        switch (k) {
            case 0: { java.nio.ByteBuffer b = MPI.newByteBuffer(n); b.put((byte[]) a).clear(); return b; }
            case 1: { java.nio.CharBuffer b = MPI.newCharBuffer(n); b.put((char[]) a).clear(); return b; }
            case 2: { java.nio.ShortBuffer b = MPI.newShortBuffer(n); b.put((short[]) a).clear(); return b; }
            case 3: { java.nio.ByteBuffer b = MPI.newByteBuffer(n); boolean[] z = (boolean[]) a; for (int i = 0; i < n; i++) { b.put(i, z[i] ? (byte) 1 : 0); } return b; }
            case 4: { java.nio.IntBuffer b = MPI.newIntBuffer(n); b.put((int[]) a).clear(); return b; }
            case 5: { java.nio.LongBuffer b = MPI.newLongBuffer(n); b.put((long[]) a).clear(); return b; }
            case 6: { java.nio.FloatBuffer b = MPI.newFloatBuffer(n); b.put((float[]) a).clear(); return b; }
            default: { java.nio.DoubleBuffer b = MPI.newDoubleBuffer(n); b.put((double[]) a).clear(); return b; }
        }
    }

    /** An empty direct buffer of kind {@code k}. */
    static Buffer empty(int k, int n) {
        switch (k) {
            case 0: case 3: return MPI.newByteBuffer(n);
            case 1: return MPI.newCharBuffer(n);
            case 2: return MPI.newShortBuffer(n);
            case 4: return MPI.newIntBuffer(n);
            case 5: return MPI.newLongBuffer(n);
            case 6: return MPI.newFloatBuffer(n);
            default: return MPI.newDoubleBuffer(n);
        }
    }

    /** The first {@code n} elements of an array. */
    static Object prefix(Object array, int n) {
        Object out = java.lang.reflect.Array.newInstance(array.getClass().getComponentType(), n);
        System.arraycopy(array, 0, out, 0, n);
        return out;
    }

    /** {@code MPI.slice(array, offset)} for kind {@code k}. */
    static Buffer slice(Object array, int offset) {
        if (array instanceof byte[] a) {
            return MPI.slice(a, offset);
        } else if (array instanceof char[] a) {
            return MPI.slice(a, offset);
        } else if (array instanceof short[] a) {
            return MPI.slice(a, offset);
        } else if (array instanceof int[] a) {
            return MPI.slice(a, offset);
        } else if (array instanceof long[] a) {
            return MPI.slice(a, offset);
        } else if (array instanceof float[] a) {
            return MPI.slice(a, offset);
        }
        return MPI.slice((double[]) array, offset);
    }

    /** {@code MPI.slice(buffer, offset)} for a direct buffer. */
    static Buffer slice(Buffer b, int offset) {
        if (b instanceof java.nio.ByteBuffer x) {
            return MPI.slice(x, offset);
        } else if (b instanceof java.nio.CharBuffer x) {
            return MPI.slice(x, offset);
        } else if (b instanceof java.nio.ShortBuffer x) {
            return MPI.slice(x, offset);
        } else if (b instanceof java.nio.IntBuffer x) {
            return MPI.slice(x, offset);
        } else if (b instanceof java.nio.LongBuffer x) {
            return MPI.slice(x, offset);
        } else if (b instanceof java.nio.FloatBuffer x) {
            return MPI.slice(x, offset);
        }
        return MPI.slice((java.nio.DoubleBuffer) b, offset);
    }
}
