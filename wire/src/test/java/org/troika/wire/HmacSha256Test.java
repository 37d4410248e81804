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
}
