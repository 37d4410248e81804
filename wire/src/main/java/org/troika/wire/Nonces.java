package org.troika.wire;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.SecureRandom;

/**
 * Random bytes for nonces and request ids. Reads the kernel's CSPRNG ({@code /dev/urandom}) directly: the same source
 * {@code SecureRandom}'s NativePRNG uses, without its ~40 ms of provider start-up in every short-lived agent JVM.
 * Falls back to {@link SecureRandom} where the device is missing.
 *
 * <p>Bytes are read {@value #POOL} at a time and each handed out once: a service accepting thousands of connections
 * at once (a driver with 10,000 task services) reads the device once per 64 nonces, not per connection.
 *
 * <p>The device stays open from the first use on (one descriptor for the process's life): a process that later runs
 * out of descriptors (a driver whose hosts and their agents hold all it may open) still gets its nonces. When each
 * refill opened the device, the fallback took over there: a {@code SecureRandom} whose provider could not open the
 * device either, seeded by the JDK's thread-timing seed generator, which kept a core busy for seconds while the
 * driver's selector thread waited for one nonce; 10,000 simulated task services, their heartbeats unread, were all
 * reported lost ({@code bench/scale.sh}, its generators under a 20,000-descriptor limit).
 */
public final class Nonces {
    static final int POOL = 1024;
    private static final byte[] pool = new byte[POOL];
    /** Bytes of {@link #pool} already handed out (guarded by the class). */
    private static int used = POOL;
    /** The device, open once (guarded by the class); null until the first refill or where it cannot be opened. */
    private static InputStream device;
    /** Where the device is missing: one generator for the process (guarded by the class). */
    private static SecureRandom fallback;

    private Nonces() {}

    public static byte[] random(int n) {
        byte[] b = new byte[n];
        synchronized (Nonces.class) {
            if (n > POOL) {
                fill(b);
                return b;
            }
            if (POOL - used < n) {
                fill(pool);
                used = 0;
            }
            System.arraycopy(pool, used, b, 0, n);
            java.util.Arrays.fill(pool, used, used + n, (byte) 0); // handed out once; nothing of it stays here
            used += n;
        }
        return b;
    }

    /** A random 64-bit number (ids and file names that must not be guessed or collide). */
    public static long randomLong() {
        return java.nio.ByteBuffer.wrap(random(8)).getLong();
    }

    /** Fills {@code b} from the device, opened on first use and kept open (caller holds the class's lock). */
    private static void fill(byte[] b) {
        try {
            if (device == null) {
                device = new FileInputStream("/dev/urandom");
            }
            if (device.readNBytes(b, 0, b.length) == b.length) {
                return;
            }
        } catch (IOException e) {
            // no device, or it failed: the generator below (the device is tried again next time)
        }
        closeDevice();
        if (fallback == null) {
            fallback = new SecureRandom();
        }
        fallback.nextBytes(b);
    }

    private static void closeDevice() {
        if (device != null) {
            try {
                device.close();
            } catch (IOException ignored) {
                // it failed already
            }
            device = null;
        }
    }
}
