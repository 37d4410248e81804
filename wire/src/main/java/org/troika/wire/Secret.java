package org.troika.wire;

import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import org.troika.common.TroikaEnv;
import org.troika.common.UsageException;

/**
 * The per-job secret that keys every frame's HMAC. It travels only in the environment variable
 * {@link TroikaEnv#SECRET_KEY} (base64), never on a command line, and {@link #toString()} never shows it.
 */
public final class Secret {
    /** Length of a generated secret. */
    public static final int GENERATED_BYTES = 32;
    /** Shortest secret accepted from the environment. */
    public static final int MIN_BYTES = 16;

    private final byte[] key;

    private Secret(byte[] key) {
        this.key = key.clone();
    }

    /**
     * A fresh random secret for one job, from the kernel's CSPRNG ({@link Nonces}: what {@code SecureRandom}'s
     * NativePRNG reads, without its ~20 ms of provider start-up in {@code troika run}).
     */
    public static Secret generate() {
        byte[] b = Nonces.random(GENERATED_BYTES);
        Secret s = new Secret(b);
        Arrays.fill(b, (byte) 0);
        return s;
    }

    /** Wraps raw key bytes (at least {@link #MIN_BYTES}). */
    public static Secret of(byte[] key) {
        if (key.length < MIN_BYTES) {
            throw new IllegalArgumentException("a secret needs at least " + MIN_BYTES + " bytes");
        }
        return new Secret(key);
    }

    /** Decodes the base64 form. */
    public static Secret decode(String base64) {
        byte[] b;
        try {
            b = Base64.getDecoder().decode(base64.trim());
        } catch (IllegalArgumentException e) {
            throw new UsageException(TroikaEnv.SECRET_KEY + " is not valid base64; unset it to let troika generate one");
        }
        if (b.length < MIN_BYTES) {
            throw new UsageException(TroikaEnv.SECRET_KEY + " decodes to " + b.length + " bytes; use at least "
                    + MIN_BYTES + " random bytes, base64-encoded (or unset it)");
        }
        return new Secret(b);
    }

    /** The secret from {@link TroikaEnv#SECRET_KEY} when set, else a fresh one. */
    public static Secret fromEnvOrGenerate(Map<String, String> env) {
        String v = env.get(TroikaEnv.SECRET_KEY);
        return v == null || v.isBlank() ? generate() : decode(v);
    }

    /**
     * The job's secret for an agent or service: {@link TroikaEnv#SECRET_KEY} when set, else the file named by
     * {@link TroikaEnv#SECRET_FILE}; a usage error when neither is there.
     */
    public static Secret fromEnv(Map<String, String> env) {
        String v = env.get(TroikaEnv.SECRET_KEY);
        if (v != null && !v.isBlank()) {
            return decode(v);
        }
        String file = env.get(TroikaEnv.SECRET_FILE);
        if (file != null && !file.isBlank()) {
            try {
                return readFile(java.nio.file.Path.of(file));
            } catch (java.io.IOException e) {
                throw new UsageException(TroikaEnv.SECRET_FILE + " " + file + " cannot be read (" + e.getMessage()
                        + "); troika rsh runs under troika run, which creates it");
            }
        }
        throw new UsageException("neither " + TroikaEnv.SECRET_KEY + " nor " + TroikaEnv.SECRET_FILE
                + " is set; troika rsh and task services run under troika run, which sets them");
    }

    /** The key in a file written by {@link #writeToPrivateFile} (or any file holding its base64 form). */
    public static Secret readFile(java.nio.file.Path file) throws java.io.IOException {
        return decode(java.nio.file.Files.readString(file, java.nio.charset.StandardCharsets.US_ASCII).strip());
    }

    /**
     * Writes the base64 secret to a new file {@code secret} (mode 0600) in a new private directory (0700) under
     * {@code parent} ({@link org.troika.common.PrivateFiles#createOwnedTempDirectory}, which first removes such
     * directories whose owner died without cleaning up), so children can be given the file's path instead of the secret. The caller deletes it
     * ({@link #deleteFile}).
     */
    public java.nio.file.Path writeToPrivateFile(java.nio.file.Path parent) throws java.io.IOException {
        java.nio.file.Path f = org.troika.common.PrivateFiles.createOwnedTempDirectory(parent).resolve("secret");
        writeTo(f);
        return f;
    }

    /**
     * Writes the base64 secret to {@code file} (mode 0600, {@link org.troika.common.PrivateFiles#write}), as
     * {@link #writeToPrivateFile} does: e.g. into a key file of that form again, in its private directory.
     */
    public void writeTo(java.nio.file.Path file) throws java.io.IOException {
        org.troika.common.PrivateFiles.write(file, encode().getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    /**
     * Empties, then deletes a file written by {@link #writeToPrivateFile} and its directory; {@code null} is ignored.
     * Emptying first matters: a process that still has the file open (a remote shell whose stdin it was) would
     * otherwise keep the key readable through {@code /proc/PID/fd} after the unlink.
     */
    public static void deleteFile(java.nio.file.Path secretFile) {
        if (secretFile == null) {
            return;
        }
        emptyAndUnlink(secretFile);
        org.troika.common.PrivateFiles.deleteTreeQuietly(secretFile.getParent());
    }

    /**
     * Empties, then unlinks a key file, leaving its directory ({@link #deleteFile} removes both); a file already gone
     * is ignored. Emptying first: see {@link #deleteFile}.
     */
    public static void emptyAndUnlink(java.nio.file.Path secretFile) {
        try {
            java.nio.file.Files.write(secretFile, new byte[0], java.nio.file.LinkOption.NOFOLLOW_LINKS,
                    java.nio.file.StandardOpenOption.WRITE, java.nio.file.StandardOpenOption.TRUNCATE_EXISTING);
            java.nio.file.Files.deleteIfExists(secretFile);
        } catch (java.io.IOException | UnsupportedOperationException e) {
            // gone already
        }
    }

    /** The base64 form, for putting into a child's environment only. */
    public String encode() {
        return Base64.getEncoder().encodeToString(key);
    }

    /**
     * A separate key for one purpose: HMAC-SHA256(this secret, {@code label}). Whoever holds the derived key cannot
     * recover this secret, so it can be handed to processes (e.g. ranks) that must not hold the job's secret.
     */
    public Secret derive(String label) {
        // troika's own HMAC-SHA256 (HmacSha256Test checks it against the JDK's): javax.crypto.Mac's provider framework
        // cost the launcher ~60 ms of start-up for one derivation (the hang watchdog's progress key)
        return new Secret(mac().update(label.getBytes(java.nio.charset.StandardCharsets.UTF_8)).doFinal());
    }

    byte[] bytes() {
        return key.clone();
    }

    /** HMAC-SHA256 keyed with this secret (both key pads done once), for {@link HmacSha256#copy}: never updated. */
    private volatile HmacSha256 keyed;

    /** A new HMAC-SHA256 computation keyed with this secret; the key pads are hashed once per secret, not per call. */
    HmacSha256 mac() {
        HmacSha256 k = keyed;
        if (k == null) {
            k = new HmacSha256(key);
            keyed = k;
        }
        return k.copy();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Secret s && java.security.MessageDigest.isEqual(key, s.key);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key);
    }

    @Override
    public String toString() {
        return "Secret[redacted]";
    }
}
