package mpi;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One thread's native memory for out-parameters and small argument arrays (counts, displacements, handles,
 * strings): a bump allocator over a direct buffer that grows and is reused. A call starts with {@link #get()} (which
 * resets it), takes regions with {@link #alloc}, and reads results back by offset.
 */
final class Scratch {
    private static final ThreadLocal<Scratch> CURRENT = ThreadLocal.withInitial(Scratch::new);

    private ByteBuffer buf = Native.allocate(4096);
    /** Buffers outgrown during the current call: addresses taken from them stay valid until the next get(). */
    private final java.util.List<ByteBuffer> retired = new java.util.ArrayList<>();
    /** Request handles for troika-mpi's typed wait/test-all calls, grown and reused. */
    private long[] handles = new long[64];
    private long base = Native.address(buf);
    private int used;
    /** The words of the last status read ({@link #words}): the next equal status shares them. */
    private Status.Words lastWords = Status.Words.ZERO;

    /** This thread's scratch area, emptied. */
    static Scratch get() {
        Scratch s = CURRENT.get();
        s.used = 0;
        s.retired.clear();
        return s;
    }

    /** This thread's scratch area as it is: for helpers that take room after the caller's and give it back. */
    static Scratch current() {
        return CURRENT.get();
    }

    /** Where the next region would start ({@link #release} gives back everything taken after it). */
    int mark() {
        return used;
    }

    void release(int mark) {
        used = mark;
    }

    /** A reusable {@code long[]} of at least {@code n} entries (content undefined). */
    long[] handleArray(int n) {
        if (handles.length < n) {
            handles = new long[Math.max(n, 2 * handles.length)];
        }
        return handles;
    }

    /** The address of byte {@code offset}. */
    long at(int offset) {
        return base + offset;
    }

    ByteBuffer buf() {
        return buf;
    }

    /** Reserves {@code bytes} bytes (8-aligned, content undefined) and returns their offset. */
    int alloc(long bytes) {
        if (bytes < 0 || used + bytes > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("argument arrays too large: " + bytes + " bytes");
        }
        int at = used;
        int end = (int) ((used + bytes + 7) & ~7L);
        if (end > buf.capacity()) {
            ByteBuffer bigger = Native.allocate(Math.max(end, 2 * buf.capacity()));
            bigger.put(0, buf, 0, used);
            retired.add(buf);
            buf = bigger;
            base = Native.address(buf);
        }
        used = end;
        return at;
    }

    int getInt(int at) {
        return buf.getInt(at);
    }

    long getLong(int at) {
        return buf.getLong(at);
    }

    long getHandle(int at) {
        return Native.readHandle(buf, at);
    }

    /** A zeroed {@code int} out-parameter; returns its offset. */
    int intOut() {
        int at = alloc(8);
        buf.putLong(at, 0);
        return at;
    }

    /**
     * A zeroed native status ({@code MpiAbi.STATUS_BYTES}); returns its offset. Zeroed because a library need not
     * set every field (MPICH's MPI_Mprobe leaves the cancelled bit as it finds it).
     */
    int status() {
        return zeros(org.troika.mpi.spi.MpiAbi.STATUS_BYTES);
    }

    /** The native status at {@code at} of this scratch, as status words (those of the last one if equal). */
    Status.Words words(int at) {
        long v0 = buf.getLong(at);
        long v1 = buf.getLong(at + 8);
        long v2 = buf.getLong(at + 16);
        long v3 = buf.getLong(at + 24);
        Status.Words last = lastWords;
        if (last.sameAs(v0, v1, v2, v3)) {
            return last;
        }
        Status.Words w = new Status.Words(v0, v1, v2, v3, 0);
        lastWords = w;
        return w;
    }

    /** {@code bytes} zeroed bytes; returns their offset. */
    int zeros(long bytes) {
        int at = alloc(bytes);
        for (int i = 0; i < bytes; i += 8) {
            buf.putLong(at + i, 0L);
        }
        return at;
    }

    /** A zeroed handle or pointer out-parameter; returns its offset. */
    int handleOut() {
        return intOut();
    }

    /** Copies {@code values} in; returns the offset ({@code null}: none copied, offset of an empty region). */
    int ints(int[] values) {
        int n = values == null ? 0 : values.length;
        int at = alloc(4L * n);
        for (int i = 0; i < n; i++) {
            buf.putInt(at + 4 * i, values[i]);
        }
        return at;
    }

    /** {@code values} as {@code MPI_Aint}s (64-bit). */
    int aints(int[] values) {
        int at = alloc(8L * values.length);
        for (int i = 0; i < values.length; i++) {
            buf.putLong(at + 8 * i, values[i]);
        }
        return at;
    }

    /** Handles in the ABI's width. */
    int handles(long[] values) {
        int at = alloc((long) Native.handleBytes * values.length);
        for (int i = 0; i < values.length; i++) {
            Native.writeHandle(buf, at + Native.handleBytes * i, values[i]);
        }
        return at;
    }

    int[] readInts(int at, int n) {
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = buf.getInt(at + 4 * i);
        }
        return out;
    }

    /** A NUL-terminated UTF-8 copy of {@code s}; returns its offset. */
    int string(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        int at = alloc(b.length + 1L);
        buf.put(at, b);
        buf.put(at + b.length, (byte) 0);
        return at;
    }

    /** A zeroed region of {@code bytes} for a string the library writes. */
    int chars(int bytes) {
        int at = alloc(bytes + 1L);
        for (int i = 0; i <= bytes; i++) {
            buf.put(at + i, (byte) 0);
        }
        return at;
    }

    /** The NUL-terminated string at {@code at} (at most {@code max} bytes). */
    String getString(int at, int max) {
        int n = 0;
        while (n < max && buf.get(at + n) != 0) {
            n++;
        }
        byte[] b = new byte[n];
        buf.get(at, b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
