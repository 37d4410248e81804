package diff;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import mpi.MPIException;

/**
 * What a rank of a differential program prints: one file per rank ({@code DIR/rank-N.txt}), compared line by line
 * between Open MPI's own Java binding and troika's. Only values every MPI must agree on are printed (no names the
 * library makes up, no error codes or messages, no timings).
 */
final class Out {
    private static PrintWriter w;
    private static String section = "";

    private Out() {}

    static void open(String dir, int rank) throws IOException {
        w = new PrintWriter(Files.newBufferedWriter(Path.of(dir, "rank-" + rank + ".txt")));
    }

    static void close() {
        w.close();
    }

    static void section(String name) {
        section = name;
        w.println("== " + name);
        w.flush();
    }

    static void p(String s) {
        w.println(s);
    }

    static void p(String label, Object value) {
        w.println(label + " " + str(value));
    }

    /** An exception as its type and MPI error class (messages differ between libraries). */
    static String err(Throwable t) {
        if (t instanceof MPIException e) {
            return "MPIException class " + e.getErrorClass();
        }
        return t.getClass().getSimpleName();
    }

    static String str(Object v) {
        if (v == null) {
            return "null";
        } else if (v instanceof int[] a) {
            return Arrays.toString(a);
        } else if (v instanceof long[] a) {
            return Arrays.toString(a);
        } else if (v instanceof double[] a) {
            return Arrays.toString(a);
        } else if (v instanceof float[] a) {
            return Arrays.toString(a);
        } else if (v instanceof short[] a) {
            return Arrays.toString(a);
        } else if (v instanceof char[] a) {
            int[] c = new int[a.length];
            for (int i = 0; i < a.length; i++) {
                c[i] = a[i];
            }
            return Arrays.toString(c);
        } else if (v instanceof byte[] a) {
            return Arrays.toString(a);
        } else if (v instanceof boolean[] a) {
            return Arrays.toString(a);
        } else if (v instanceof Buffer b) {
            return buf(b);
        }
        return String.valueOf(v);
    }

    /** A buffer's elements from 0 to its capacity (MPI ignores positions). */
    static String buf(Buffer b) {
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < b.capacity(); i++) {
            if (i > 0) {
                s.append(", ");
            }
            if (b instanceof IntBuffer x) {
                s.append(x.get(i));
            } else if (b instanceof LongBuffer x) {
                s.append(x.get(i));
            } else if (b instanceof DoubleBuffer x) {
                s.append(x.get(i));
            } else if (b instanceof FloatBuffer x) {
                s.append(x.get(i));
            } else if (b instanceof ShortBuffer x) {
                s.append(x.get(i));
            } else if (b instanceof CharBuffer x) {
                s.append((int) x.get(i));
            } else {
                s.append(((ByteBuffer) b).get(i));
            }
        }
        return s.append(']').toString();
    }

    static String section() {
        return section;
    }
}
