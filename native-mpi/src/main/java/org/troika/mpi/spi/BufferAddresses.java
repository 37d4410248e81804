package org.troika.mpi.spi;

import java.nio.Buffer;

/**
 * The base addresses (element 0) of the last two direct buffers passed to MPI. A buffer object's base address never
 * changes, and training loops and benchmarks pass the same buffers every call, so this saves the backend's look-up
 * ({@code MemorySegment.ofBuffer} on FFM, a JNI call on JNA: 25-30 ns a buffer) on every call but the first. It
 * keeps those two buffers reachable until others replace them. Shared by threads without locking: entries are
 * immutable, so a race only loses an entry.
 */
public final class BufferAddresses {
    private final NativeMpi mpi;
    private Entry recent0;
    private Entry recent1;

    public BufferAddresses(NativeMpi mpi) {
        this.mpi = mpi;
    }

    /** {@link NativeMpi#address} of {@code direct}, from the cache when it is one of the last two buffers. */
    public long base(Buffer direct) {
        Entry a = recent0;
        if (a != null && a.buffer == direct) {
            return a.base;
        }
        a = recent1;
        if (a != null && a.buffer == direct) {
            return a.base;
        }
        a = new Entry(direct, mpi.address(direct));
        recent1 = recent0;
        recent0 = a;
        return a.base;
    }

    private record Entry(Buffer buffer, long base) {}
}
