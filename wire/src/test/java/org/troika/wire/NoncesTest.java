package org.troika.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Nonces from the pool ({@link Nonces}): each handed out once, across refills, and larger requests too. */
class NoncesTest {
    @Test
    void noncesAcrossSeveralRefillsOfThePoolAreAllDifferent() {
        Set<String> seen = new HashSet<>();
        int n = 3 * Nonces.POOL / 16 + 5; // crosses the pool's refill three times
        for (int i = 0; i < n; i++) {
            byte[] b = Nonces.random(16);
            assertEquals(16, b.length);
            assertTrue(seen.add(java.util.HexFormat.of().formatHex(b)), "a nonce came twice");
        }
        byte[] big = Nonces.random(Nonces.POOL + 1);
        assertEquals(Nonces.POOL + 1, big.length);
        int zeros = 0;
        for (byte x : big) {
            zeros += x == 0 ? 1 : 0;
        }
        assertTrue(zeros < big.length / 16, zeros + " zero bytes of " + big.length);
    }
}
