package org.troika.wire;

/**
 * HMAC-SHA256 (RFC 2104 over FIPS 180-4 SHA-256) in plain Java, without the JCA provider framework: a short-lived
 * launch agent JVM would otherwise spend ~60 ms initialising {@code javax.crypto.Mac}. Checked against the JDK's
 * {@code HmacSHA256} in {@code HmacSha256Test}. Not thread-safe; one instance per computation. A connection keys one
 * instance with its fixed prefix once and computes each frame's MAC from it with a {@link Scratch}, so a frame pays
 * neither key pad again, nor an allocation.
 */
final class HmacSha256 {
    private static final int[] K = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
    private static final int BLOCK = 64;

    /** The outer hash after the outer key pad (one block, compressed once; never changed afterwards). */
    private final Sha256 outerStart;
    private final Sha256 inner;

    HmacSha256(byte[] key) {
        byte[] k = key.length > BLOCK ? Sha256.digest(key) : key;
        byte[] innerKeyPad = new byte[BLOCK];
        byte[] outerKeyPad = new byte[BLOCK];
        for (int i = 0; i < BLOCK; i++) {
            byte b = i < k.length ? k[i] : 0;
            innerKeyPad[i] = (byte) (b ^ 0x36);
            outerKeyPad[i] = (byte) (b ^ 0x5c);
        }
        inner = new Sha256();
        inner.update(innerKeyPad, 0, BLOCK);
        outerStart = new Sha256();
        outerStart.update(outerKeyPad, 0, BLOCK);
    }

    private HmacSha256(Sha256 inner, Sha256 outerStart) {
        this.inner = inner;
        this.outerStart = outerStart;
    }

    /** An independent computation that has seen what this one has seen so far. */
    HmacSha256 copy() {
        return new HmacSha256(inner.copy(), outerStart);
    }

    HmacSha256 update(byte[] data) {
        inner.update(data, 0, data.length);
        return this;
    }

    HmacSha256 update(byte[] data, int off, int len) {
        inner.update(data, off, len);
        return this;
    }

    HmacSha256 update(byte b) {
        inner.update(new byte[] {b}, 0, 1);
        return this;
    }

    /**
     * A reusable MAC computation for one thread: each {@link #mac} starts from a keyed prefix's state, so a connection
     * that opens thousands of frames allocates nothing per frame.
     */
    static final class Scratch {
        private final Sha256 inner = new Sha256();
        private final Sha256 outer = new Sha256();
        private final byte[] innerHash = new byte[32];
        private final byte[] result = new byte[32];

        /** A 32-byte array of this scratch's own, for a MAC to be compared and then forgotten. */
        byte[] result() {
            return result;
        }

        /** Writes HMAC(prefix's key, prefix's data | {@code data[off..off+len)}) to {@code out[outOff..outOff+32)}. */
        void mac(HmacSha256 prefix, byte[] data, int off, int len, byte[] out, int outOff) {
            inner.set(prefix.inner);
            inner.update(data, off, len);
            inner.finishInto(innerHash, 0);
            outer.set(prefix.outerStart);
            outer.update(innerHash, 0, innerHash.length);
            outer.finishInto(out, outOff);
        }
    }

    byte[] doFinal() {
        Sha256 outer = outerStart.copy();
        byte[] h = inner.finish();
        outer.update(h, 0, h.length);
        return outer.finish();
    }

    /** SHA-256, streaming. */
    static final class Sha256 {
        private final int[] h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
            0x5be0cd19};
        private final byte[] buf = new byte[BLOCK];
        /**
         * The message schedule, made at the first compression: a keyed prefix (two per connection, kept for its life)
         * is only copied from and never compresses, so it does not carry these 256 bytes.
         */
        private int[] w;
        private int bufLen;
        private long total;

        Sha256 copy() {
            Sha256 c = new Sha256();
            c.set(this);
            return c;
        }

        /** This computation becomes {@code from}'s state (what it has seen so far). */
        void set(Sha256 from) {
            System.arraycopy(from.h, 0, h, 0, h.length);
            System.arraycopy(from.buf, 0, buf, 0, from.bufLen);
            bufLen = from.bufLen;
            total = from.total;
        }

        static byte[] digest(byte[] data) {
            Sha256 s = new Sha256();
            s.update(data, 0, data.length);
            return s.finish();
        }

        void update(byte[] data, int off, int len) {
            total += len;
            while (len > 0) {
                int n = Math.min(len, BLOCK - bufLen);
                System.arraycopy(data, off, buf, bufLen, n);
                bufLen += n;
                off += n;
                len -= n;
                if (bufLen == BLOCK) {
                    compress();
                    bufLen = 0;
                }
            }
        }

        byte[] finish() {
            byte[] out = new byte[32];
            finishInto(out, 0);
            return out;
        }

        /** Pads, and writes the digest to {@code out[off..off+32)}; the state is spent (set or copy it anew). */
        void finishInto(byte[] out, int off) {
            long bits = total * 8;
            buf[bufLen++] = (byte) 0x80;
            if (bufLen > BLOCK - 8) {
                while (bufLen < BLOCK) {
                    buf[bufLen++] = 0;
                }
                compress();
                bufLen = 0;
            }
            while (bufLen < BLOCK - 8) {
                buf[bufLen++] = 0;
            }
            for (int i = 7; i >= 0; i--) {
                buf[bufLen++] = (byte) (bits >>> (8 * i));
            }
            compress();
            for (int i = 0; i < 8; i++) {
                out[off + 4 * i] = (byte) (h[i] >>> 24);
                out[off + 4 * i + 1] = (byte) (h[i] >>> 16);
                out[off + 4 * i + 2] = (byte) (h[i] >>> 8);
                out[off + 4 * i + 3] = (byte) h[i];
            }
        }

        private void compress() {
            int[] w = this.w;
            if (w == null) {
                w = this.w = new int[64];
            }
            for (int i = 0; i < 16; i++) {
                w[i] = (buf[4 * i] & 0xff) << 24 | (buf[4 * i + 1] & 0xff) << 16 | (buf[4 * i + 2] & 0xff) << 8
                        | (buf[4 * i + 3] & 0xff);
            }
            for (int i = 16; i < 64; i++) {
                int s0 = Integer.rotateRight(w[i - 15], 7) ^ Integer.rotateRight(w[i - 15], 18) ^ (w[i - 15] >>> 3);
                int s1 = Integer.rotateRight(w[i - 2], 17) ^ Integer.rotateRight(w[i - 2], 19) ^ (w[i - 2] >>> 10);
                w[i] = w[i - 16] + s0 + w[i - 7] + s1;
            }
            int a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
            for (int i = 0; i < 64; i++) {
                int t1 = hh + (Integer.rotateRight(e, 6) ^ Integer.rotateRight(e, 11) ^ Integer.rotateRight(e, 25))
                        + ((e & f) ^ (~e & g)) + K[i] + w[i];
                int t2 = (Integer.rotateRight(a, 2) ^ Integer.rotateRight(a, 13) ^ Integer.rotateRight(a, 22))
                        + ((a & b) ^ (a & c) ^ (b & c));
                hh = g;
                g = f;
                f = e;
                e = d + t1;
                d = c;
                c = b;
                b = a;
                a = t1 + t2;
            }
            h[0] += a;
            h[1] += b;
            h[2] += c;
            h[3] += d;
            h[4] += e;
            h[5] += f;
            h[6] += g;
            h[7] += hh;
        }
    }
}
