package org.troika.wire;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.SecureRandom;

/**
 * Random bytes for nonces and request ids. Reads the kernel's CSPRNG ({@code /dev/urandom}) directly: the same source
 * {@code SecureRandom}'s NativePRNG uses, without its ~40 ms of provider start-up in every short-lived agent JVM.
 * Falls back to {@link SecureRandom} where the device is missing.
 */
public final class Nonces {
    private Nonces() {}

    public static byte[] random(int n) {
        byte[] b = new byte[n];
        try (InputStream in = new FileInputStream("/dev/urandom")) {
            if (in.readNBytes(b, 0, n) == n) {
                return b;
            }
        } catch (IOException e) {
            // fall back below
        }
        new SecureRandom().nextBytes(b);
        return b;
    }
}
