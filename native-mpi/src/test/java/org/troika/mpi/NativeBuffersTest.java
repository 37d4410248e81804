package org.troika.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** Direct buffers on a 64-byte boundary, exactly as large as asked, in native order. */
class NativeBuffersTest {
    @Test
    void startOnA64ByteBoundaryWithTheSizeAskedFor() {
        for (int bytes : new int[] {0, 1, 63, 64, 65, 4096, (1 << 20) + 3}) {
            ByteBuffer b = NativeBuffers.allocate(bytes);
            long address = Pointer.nativeValue(Native.getDirectBufferPointer(b));
            assertEquals(0, address % NativeBuffers.ALIGNMENT, bytes + " bytes at " + Long.toHexString(address));
            assertEquals(bytes, b.capacity());
            assertEquals(bytes, b.limit());
            assertEquals(ByteOrder.nativeOrder(), b.order());
            assertTrue(b.isDirect());
        }
        assertThrows(IllegalArgumentException.class, () -> NativeBuffers.allocate(-1));
    }
}
