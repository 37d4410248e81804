package org.troika.wire;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@link NoncesTest}'s child process: takes a nonce, then opens {@code /dev/null} until no descriptor is left, then
 * takes enough nonces to refill the pool several times. Prints {@code opened N}, {@code distinct K of M} and the
 * names of the JDK's seed-generator threads alive at the end ({@code seed threads: ...}, none expected).
 */
public final class NoncesWithoutDescriptorsMain {
    private NoncesWithoutDescriptorsMain() {}

    public static void main(String[] args) throws Exception {
        Set<String> seen = new HashSet<>();
        seen.add(java.util.HexFormat.of().formatHex(Nonces.random(16)));
        List<InputStream> held = new ArrayList<>();
        try {
            while (true) {
                held.add(new FileInputStream("/dev/null"));
            }
        } catch (IOException e) {
            System.out.println("opened " + held.size() + " (" + e.getMessage() + ")");
        }
        int m = 4 * Nonces.POOL / 16;
        for (int i = 0; i < m; i++) {
            seen.add(java.util.HexFormat.of().formatHex(Nonces.random(16)));
        }
        List<String> seed = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().contains("Seed")) {
                seed.add(t.getName());
            }
        }
        for (InputStream in : held) {
            in.close();
        }
        System.out.println("distinct " + seen.size() + " of " + (m + 1));
        System.out.println("seed threads: " + seed);
    }
}
