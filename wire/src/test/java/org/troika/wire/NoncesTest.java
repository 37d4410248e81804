package org.troika.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
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

    /**
     * A process with no descriptor left still gets nonces, from the device opened at its first use. When each refill
     * opened the device, the fallback ran there: a SecureRandom that could not load its configuration without a
     * descriptor (InternalError, this test's child) or, where it could, was seeded by the JDK's thread-timing seed
     * generator for seconds (a driver service at 10,000 hosts and their agents: every host reported lost).
     */
    @Test
    void noncesKeepComingWhenTheProcessHasNoDescriptorLeft() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("java.class.path");
        Process p = new ProcessBuilder("/bin/sh", "-c", "ulimit -n 128 && exec \"$0\" -cp \"$1\" "
                + NoncesWithoutDescriptorsMain.class.getName(), java, cp).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        List<String> lines = out.lines().toList();
        assertTrue(lines.get(0).startsWith("opened "), out);
        int m = 4 * Nonces.POOL / 16 + 1;
        assertTrue(lines.contains("distinct " + m + " of " + m), out);
        assertTrue(lines.contains("seed threads: []"), out);
    }
}
