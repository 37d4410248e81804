package org.troika.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class HmacSha256Test {
    @Test
    void matchesRfc4231TestCase2() {
        byte[] mac = new HmacSha256("Jefe".getBytes(StandardCharsets.US_ASCII))
                .update("what do ya want for nothing?".getBytes(StandardCharsets.US_ASCII)).doFinal();
        assertEquals("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", HexFormat.of().formatHex(mac));
    }

    @Test
    void matchesTheJdkForManyKeyAndMessageLengths() throws Exception {
        Random r = new Random(3);
        for (int i = 0; i < 2000; i++) {
            byte[] key = new byte[1 + r.nextInt(150)];
            byte[] a = new byte[r.nextInt(200)];
            byte[] b = new byte[r.nextInt(200)];
            r.nextBytes(key);
            r.nextBytes(a);
            r.nextBytes(b);
            Mac jdk = Mac.getInstance("HmacSHA256");
            jdk.init(new SecretKeySpec(key, "HmacSHA256"));
            jdk.update(a);
            jdk.update((byte) 7);
            jdk.update(b);
            assertArrayEquals(jdk.doFinal(), new HmacSha256(key).update(a).update((byte) 7).update(b).doFinal());
            assertArrayEquals(MessageDigest.getInstance("SHA-256").digest(a), HmacSha256.Sha256.digest(a));
        }
    }

    /**
     * A derived key (the progress, worker and agent keys) is HMAC-SHA256(job secret, label) exactly as it was computed
     * with the JDK's Mac: hosts running another troika build derive the same keys. Twice from one secret, as the
     * launcher does (the cached key pads must not carry the first label into the second).
     */
    @Test
    void derivedKeysAreTheJdksHmacOfTheLabel() throws Exception {
        Random r = new Random(11);
        for (int i = 0; i < 200; i++) {
            byte[] key = new byte[Secret.MIN_BYTES + r.nextInt(100)];
            r.nextBytes(key);
            Secret secret = Secret.of(key);
            for (String label : new String[] {"troika-progress-v1", "troika-worker-v1", "troika-agent-v1/" + i, ""}) {
                Mac jdk = Mac.getInstance("HmacSHA256");
                jdk.init(new SecretKeySpec(key, "HmacSHA256"));
                assertArrayEquals(jdk.doFinal(label.getBytes(StandardCharsets.UTF_8)), secret.derive(label).bytes(),
                        label);
            }
        }
    }

    @Test
    void aReusedScratchGivesTheJdksMacForEveryMessageAfterTheSamePrefix() throws Exception {
        Random r = new Random(5);
        for (int k = 0; k < 20; k++) {
            byte[] key = new byte[1 + r.nextInt(100)];
            byte[] prefix = new byte[r.nextInt(130)];
            r.nextBytes(key);
            r.nextBytes(prefix);
            HmacSha256 keyed = new HmacSha256(key).update(prefix);
            HmacSha256.Scratch scratch = new HmacSha256.Scratch();
            for (int i = 0; i < 100; i++) {
                // lengths across block boundaries, the message at an offset, the MAC written after it in the same array
                byte[] buf = new byte[300];
                r.nextBytes(buf);
                int off = r.nextInt(50);
                int len = r.nextInt(200);
                Mac jdk = Mac.getInstance("HmacSHA256");
                jdk.init(new SecretKeySpec(key, "HmacSHA256"));
                jdk.update(prefix);
                jdk.update(buf, off, len);
                byte[] want = jdk.doFinal();
                scratch.mac(keyed, buf, off, len, buf, off + len);
                assertArrayEquals(want, java.util.Arrays.copyOfRange(buf, off + len, off + len + 32), "len " + len);
            }
        }
    }

    @Test
    void constantTimeComparisonFindsADifferenceAtAnyByte() {
        byte[] mac = new byte[32];
        new Random(9).nextBytes(mac);
        byte[] frame = new byte[40];
        System.arraycopy(mac, 0, frame, 8, 32);
        assertEquals(true, Frames.equalInConstantTime(mac, frame, 8));
        for (int i = 0; i < 32; i++) {
            frame[8 + i] ^= 1;
            assertEquals(false, Frames.equalInConstantTime(mac, frame, 8), "byte " + i);
            frame[8 + i] ^= 1;
        }
    }
}
