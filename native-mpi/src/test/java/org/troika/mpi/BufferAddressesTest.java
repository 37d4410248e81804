package org.troika.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import org.junit.jupiter.api.Test;
import org.troika.mpi.spi.BufferAddresses;

/** The two most recent direct buffers' addresses are looked up once, and the answers stay right. */
class BufferAddressesTest {
    private static long real(java.nio.Buffer b) {
        return Pointer.nativeValue(Native.getDirectBufferPointer(b));
    }

    @Test
    void twoBuffersUsedInTurnAreLookedUpOnceEach() {
        FakeNativeMpi mpi = new FakeNativeMpi();
        BufferAddresses cache = new BufferAddresses(mpi);
        ByteBuffer a = NativeBuffers.allocate(256);
        FloatBuffer b = NativeBuffers.allocate(256).asFloatBuffer();
        for (int i = 0; i < 1000; i++) {
            assertEquals(real(a), cache.base(a));
            assertEquals(real(b), cache.base(b));
        }
        assertEquals(2, mpi.addressLookups);
    }

    @Test
    void aThirdBufferEvictsTheOldestAndSlicesAreTheirOwnBuffers() {
        FakeNativeMpi mpi = new FakeNativeMpi();
        BufferAddresses cache = new BufferAddresses(mpi);
        ByteBuffer a = NativeBuffers.allocate(256);
        ByteBuffer b = NativeBuffers.allocate(256);
        ByteBuffer c = a.slice(64, 64);
        cache.base(a);
        cache.base(b);
        assertEquals(real(a) + 64, cache.base(c)); // a slice is another object with its own base
        assertEquals(3, mpi.addressLookups);
        cache.base(b); // still cached
        assertEquals(3, mpi.addressLookups);
        assertEquals(real(a), cache.base(a)); // evicted by c
        assertEquals(4, mpi.addressLookups);
    }
}
