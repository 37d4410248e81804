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
 * at once (a driver with 10,000 task services) opens, reads and closes the device once per 64 nonces, not per
 * connection.
 */
public final class Nonces {
    static final int POOL = 1024;
    private static final byte[] pool = new byte[POOL];
    /** Bytes of {@link #pool} already handed out (guarded by the class). */
    private static int used = POOL;

    private Nonces() {}

    public static byte[] random(int n) {
        byte[] b = new byte[n];
        if (n > POOL) {
            fill(b);
            return b;
        }
        synchronized (Nonces.class) {
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

    private static void fill(byte[] b) {
        try (InputStream in = new FileInputStream("/dev/urandom")) {
            if (in.readNBytes(b, 0, b.length) == b.length) {
                return;
            }
        } catch (IOException e) {
            // fall back below
        }
        new SecureRandom().nextBytes(b);
    }
}
