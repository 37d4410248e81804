package org.troika.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import org.junit.jupiter.api.Test;
import org.troika.mpi.spi.BufferAddresses;

/** Direct buffers' addresses are looked up once while the cache holds them, and the answers stay right. */
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
    void aWindowOfBuffersIsLookedUpOnceEachInOrderAndMostlyNotAgainOutOfOrder() {
        FakeNativeMpi mpi = new FakeNativeMpi();
        BufferAddresses cache = new BufferAddresses(mpi);
        java.util.List<ByteBuffer> window = new java.util.ArrayList<>();
        for (int i = 0; i < 64; i++) { // OMB-J's bandwidth test: one buffer per request of a window of 64
            window.add(NativeBuffers.allocate(64));
        }
        for (int round = 0; round < 50; round++) {
            for (ByteBuffer b : window) {
                assertEquals(real(b), cache.base(b));
            }
        }
        // in order: each found where the last hit points, but the first again after the window's end, through the
        // identity-hash table, where a later buffer may have taken its place (22 % for 64 buffers in 256 places):
        // then it is looked up once more and kept in order after the window, and so is the next while its place is
        // taken too (8 in a row: one in ~200,000). Without a cache: 3,200 look-ups; with the two-entry one, as many
        org.junit.jupiter.api.Assertions.assertTrue(mpi.addressLookups <= 64 + 8, mpi.addressLookups + " look-ups");
        int inOrder = mpi.addressLookups;
        java.util.Random random = new java.util.Random(7);
        for (int round = 0; round < 50; round++) {
            java.util.List<ByteBuffer> order = new java.util.ArrayList<>(window);
            java.util.Collections.shuffle(order, random);
            for (ByteBuffer b : order) {
                assertEquals(real(b), cache.base(b));
            }
        }
        // out of order: through the table, 256 places for 64 buffers; without a cache 3,200 look-ups
        int shuffled = mpi.addressLookups - inOrder;
        org.junit.jupiter.api.Assertions.assertTrue(shuffled < 50 * 64 / 2, shuffled + " look-ups");
    }

    @Test
    void slicesAreTheirOwnBuffersAndANewBufferReplacesTheOldestWhenAllPlacesAreTaken() {
        FakeNativeMpi mpi = new FakeNativeMpi();
        BufferAddresses cache = new BufferAddresses(mpi);
        ByteBuffer first = NativeBuffers.allocate(256);
        assertEquals(real(first) + 64, cache.base(first.slice(64, 64))); // another object with its own base
        assertEquals(real(first), cache.base(first));
        java.util.List<ByteBuffer> kept = new java.util.ArrayList<>();
        for (int i = 2; i < BufferAddresses.CAPACITY; i++) {
            kept.add(NativeBuffers.allocate(16));
            cache.base(kept.get(kept.size() - 1));
        }
        assertEquals(BufferAddresses.CAPACITY, mpi.addressLookups); // every place taken
        ByteBuffer late = NativeBuffers.allocate(16);
        assertEquals(real(late), cache.base(late)); // replaces the slice, the oldest
        assertEquals(BufferAddresses.CAPACITY + 1, mpi.addressLookups);
        assertEquals(real(first), cache.base(first)); // the ones after it, still kept, in order
        assertEquals(real(kept.get(0)), cache.base(kept.get(0)));
        assertEquals(BufferAddresses.CAPACITY + 1, mpi.addressLookups);
    }

    @Test
    void theCacheDoesNotKeepABufferAlive() throws InterruptedException {
        BufferAddresses cache = new BufferAddresses(new FakeNativeMpi());
        java.lang.ref.WeakReference<ByteBuffer> gone = cacheOne(cache);
        for (int i = 0; i < 100 && gone.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        org.junit.jupiter.api.Assertions.assertNull(gone.get(), "the cache kept a buffer nobody else holds");
    }

    private static java.lang.ref.WeakReference<ByteBuffer> cacheOne(BufferAddresses cache) {
        ByteBuffer b = NativeBuffers.allocate(1024);
        cache.base(b);
        return new java.lang.ref.WeakReference<>(b);
    }
}
