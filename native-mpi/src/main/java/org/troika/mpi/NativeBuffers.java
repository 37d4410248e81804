package org.troika.mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Direct buffers for MPI: native byte order, the first byte on a {@value #ALIGNMENT}-byte boundary (a cache line, and
 * the widest vector register MPI's reduction loops and copies use). {@code ByteBuffer.allocateDirect} returns memory
 * 16 bytes past a page boundary for large buffers (glibc's block header), so every 64-byte vector access of MPI's
 * reduction splits two cache lines. troika-mpi allocates its own native memory (staging areas, {@link TensorBucket})
 * here; so can a program for its message buffers.
 */
public final class NativeBuffers {
    /** Bytes the first element is aligned to. */
    public static final int ALIGNMENT = 64;

    private NativeBuffers() {}

    /** A direct buffer of {@code bytes} bytes (capacity and limit), native order, {@value #ALIGNMENT}-byte aligned. */
    public static ByteBuffer allocate(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("a buffer of " + bytes + " bytes: the size must be >= 0");
        }
        if (bytes > Integer.MAX_VALUE - 2 * ALIGNMENT) {
            throw new IllegalArgumentException("a direct buffer holds at most " + (Integer.MAX_VALUE - 2 * ALIGNMENT)
                    + " bytes here; got " + bytes);
        }
        int rounded = (bytes + ALIGNMENT - 1) & -ALIGNMENT;
        ByteBuffer aligned = ByteBuffer.allocateDirect(rounded + ALIGNMENT - 1).alignedSlice(ALIGNMENT);
        return aligned.limit(bytes).slice().order(ByteOrder.nativeOrder());
    }
}
