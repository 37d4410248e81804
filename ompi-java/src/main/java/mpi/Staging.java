package mpi;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;

/**
 * Buffer arguments of blocking calls, made into native addresses. A direct buffer is passed as it is (its element 0;
 * Open MPI's rule: an offset only through {@link MPI#slice}). A Java array, or a heap buffer (its array from its
 * array offset, as {@code MPI.slice(array, offset)} makes), is copied into this thread's native staging area before
 * the call and, when MPI writes it, back after {@link #finish}. Every argument is checked against the memory the
 * datatype and count reach, so a count too large is an {@link IllegalArgumentException} here instead of MPI
 * reading or writing past the end of the Java object.
 */
final class Staging {
    private static final ThreadLocal<Staging> CURRENT = ThreadLocal.withInitial(Staging::new);
    /** Array arguments one call can have (send, receive, and the two of a sendrecv). */
    private static final int SLOTS = 4;

    private final ArrayCopy[] slots = new ArrayCopy[SLOTS];
    private int next;

    private final Object[] outArray = new Object[SLOTS];
    private final int[] outFrom = new int[SLOTS];
    private final int[] outLength = new int[SLOTS];
    private final ArrayCopy[] outSlot = new ArrayCopy[SLOTS];
    private int pending;

    /** The last array argument (for {@link #finishReceived}). */
    private ArrayCopy lastSlot;
    private Object lastArray;
    private int lastFrom;
    private int lastLength;

    private Staging() {
        for (int i = 0; i < SLOTS; i++) {
            slots[i] = new ArrayCopy(16 * 1024);
        }
    }

    /** This thread's staging area, emptied. */
    static Staging get() {
        Staging s = CURRENT.get();
        s.next = 0;
        s.pending = 0;
        s.lastArray = null;
        return s;
    }

    /**
     * The hot paths' shortcut: the checked address of a direct buffer (0 for null), or -1 when {@code buf} needs
     * this thread's staging area ({@link #get()} then {@link #arg}): no thread-local lookup for direct buffers.
     */
    static long direct(Object buf, int count, Datatype type) {
        if (buf == null) {
            return 0;
        }
        if (buf instanceof Buffer b && b.isDirect()) {
            checkReach(buf, type.spanLow(count), type.spanHigh(count), (long) b.capacity() * elementBytes(b), 0,
                    count, type);
            return Native.address(b);
        }
        return -1;
    }

    /** Throws {@link IllegalArgumentException} unless {@code count} elements of {@code type} fit in {@code buf}. */
    static void checkFits(Object buf, int count, Datatype type) {
        if (buf instanceof Buffer b && b.isDirect()) {
            checkReach(buf, type.spanLow(count), type.spanHigh(count), (long) b.capacity() * elementBytes(b), 0,
                    count, type);
        } else {
            long length = java.lang.reflect.Array.getLength(buf);
            checkReach(buf, type.spanLow(count), type.spanHigh(count), length * elementBytes(buf), 0, count, type);
        }
    }

    /** {@link #checkFits} for an array used from element {@code offset}. */
    static void checkFits(Object array, int offset, int count, Datatype type) {
        long length = java.lang.reflect.Array.getLength(array);
        checkReach(array, type.spanLow(count), type.spanHigh(count), (length - offset) * elementBytes(array), offset,
                count, type);
    }

    /** The reach of a v-collective's buffer: blocks of {@code counts[i]} elements at {@code displs[i]} extents. */
    long argV(Object buf, int[] counts, int[] displs, int n, Datatype type, int mode) {
        if (buf == null) {
            return 0;
        }
        long low = Long.MAX_VALUE;
        long high = Long.MIN_VALUE;
        long extent = type.byteExtent();
        for (int i = 0; i < n; i++) {
            if (counts[i] > 0) {
                low = Math.min(low, displs[i] * extent + type.spanLow(counts[i]));
                high = Math.max(high, displs[i] * extent + type.spanHigh(counts[i]));
            }
        }
        if (high == Long.MIN_VALUE) {
            low = high = 0;
        }
        return argSpan(buf, low, high, true, mode != IN, n, type);
    }

    /** MPI only reads the buffer. */
    static final int IN = 1;
    /** MPI writes all of the buffer's reach (collectives): copied in only to keep the holes of a sparse type. */
    static final int OUT = 2;
    /** MPI reads and writes it (in-place collectives). */
    static final int INOUT = 3;
    /**
     * A point-to-point receive: MPI may write less than the count. A dense type's array is not copied in and only
     * the received bytes are copied back ({@link #finishReceived}); a sparse type's is copied both ways.
     */
    static final int RECV = 4;

    /**
     * The native address MPI gets for {@code count} elements of {@code type} in {@code buf} used as {@code mode}
     * says; {@code null} gives 0 (NULL, for arguments MPI ignores on this rank).
     */
    long arg(Object buf, int count, Datatype type, int mode) {
        if (buf == null) {
            return 0;
        }
        boolean dense = type.isDense();
        boolean copyIn = mode == IN || mode == INOUT || !dense;
        boolean copyOut = mode == INOUT || mode == OUT || (mode == RECV && !dense);
        return argSpan(buf, type.spanLow(count), type.spanHigh(count), copyIn, copyOut, count, type);
    }

    /** {@link #arg} for a reach of {@code [low, high)} bytes from the buffer's start (v-collectives). */
    long argSpan(Object buf, long low, long high, boolean copyIn, boolean copyOut, int count, Datatype type) {
        if (buf instanceof Buffer b && b.isDirect()) {
            checkReach(buf, low, high, (long) b.capacity() * elementBytes(b), 0, count, type);
            return Native.address(b);
        }
        Object array = buf;
        int offset = 0;
        if (buf instanceof Buffer b) {
            if (!b.hasArray()) {
                throw new IllegalArgumentException("a read-only heap " + b.getClass().getSimpleName()
                        + " has no array MPI could use: pass a direct buffer or an array");
            }
            array = b.array();
            offset = b.arrayOffset();
        }
        int es = elementBytes(array);
        long length = java.lang.reflect.Array.getLength(array);
        checkReach(array, low, high, (length - offset) * es, offset, count, type);
        if (next == SLOTS) {
            throw new IllegalStateException("more than " + SLOTS + " array arguments in one call");
        }
        ArrayCopy slot = slots[next++];
        if (high <= low) {
            return slot.base; // nothing is read or written
        }
        int first = (int) (low / es);
        int n = (int) ((high + es - 1) / es) - first;
        slot.ensure((long) n * es);
        if (copyIn) {
            slot.put(array, offset + first, n);
        }
        lastSlot = slot;
        lastArray = array;
        lastFrom = offset + first;
        lastLength = n;
        if (copyOut) {
            outArray[pending] = array;
            outFrom[pending] = offset + first;
            outLength[pending] = n;
            outSlot[pending] = slot;
            pending++;
        }
        return slot.base - (long) first * es;
    }

    /** Copies what MPI wrote back into the arrays. */
    void finish() {
        for (int i = 0; i < pending; i++) {
            outSlot[i].get(outArray[i], outFrom[i], outLength[i]);
            outArray[i] = null;
        }
        pending = 0;
    }

    /**
     * For a receive into a dense type's array, staged without copying in ({@code read} and {@code write} false):
     * copies back only the {@code bytes} MPI received, leaving the rest of the array as it was.
     */
    void finishReceived(Object buf, long bytes) {
        if (lastArray == null || buf instanceof Buffer b && b.isDirect()) {
            return;
        }
        int es = elementBytes(lastArray);
        int n = (int) Math.min(lastLength, (bytes + es - 1) / es);
        lastSlot.get(lastArray, lastFrom, n);
        lastArray = null;
    }

    /** Forgets the pending copies (the call failed). */
    void abandon() {
        for (int i = 0; i < pending; i++) {
            outArray[i] = null;
        }
        pending = 0;
    }

    private static void checkReach(Object buf, long low, long high, long available, int offset, int count,
            Datatype type) {
        if (low < 0 || high > available) {
            String what = buf instanceof Buffer ? buf.getClass().getSimpleName() + " of capacity "
                    + ((Buffer) buf).capacity() : buf.getClass().getSimpleName() + " of length "
                    + java.lang.reflect.Array.getLength(buf) + (offset == 0 ? "" : " from offset " + offset);
            throw new IllegalArgumentException("count " + count + " of " + type.describe() + " reaches bytes ["
                    + low + ", " + high + ") of the buffer but the " + what + " holds " + available
                    + " bytes: pass a larger buffer or a smaller count");
        }
    }

    static int elementBytes(Object array) {
        if (array instanceof byte[] || array instanceof boolean[]) {
            return 1;
        } else if (array instanceof int[] || array instanceof float[]) {
            return 4;
        } else if (array instanceof long[] || array instanceof double[]) {
            return 8;
        } else if (array instanceof char[] || array instanceof short[]) {
            return 2;
        }
        throw new IllegalArgumentException("MPI buffers are Java arrays of primitives or direct NIO buffers; got "
                + (array == null ? "null" : array.getClass().getName()));
    }

    static int elementBytes(Buffer b) {
        if (b instanceof ByteBuffer) {
            return 1;
        } else if (b instanceof IntBuffer || b instanceof FloatBuffer) {
            return 4;
        } else if (b instanceof LongBuffer || b instanceof DoubleBuffer) {
            return 8;
        }
        return 2;
    }
}
