package org.troika.testkit;

import java.nio.file.Files;
import java.nio.file.Path;

/** The packaged distribution under test ({@code dist/target/troika}), for end-to-end tests in troika-it. */
public final class Dist {
    private Dist() {}

    /** {@code <dist>/bin/troika}; fails when the distribution was not built ({@code mvn install} builds it first). */
    public static Path troika() {
        String dir = System.getProperty("troika.dist");
        if (dir == null) {
            throw new AssertionError("system property troika.dist is not set (run the tests with mvn from the root)");
        }
        Path bin = Path.of(dir, "bin", "troika").toAbsolutePath().normalize();
        if (!Files.isExecutable(bin)) {
            throw new AssertionError(bin + " is missing: build the distribution first (mvn install at the root)");
        }
        return bin;
    }

    /** The distribution's root folder when the tests run with one built ({@code troika.dist} set and built). */
    public static java.util.Optional<Path> homeIfBuilt() {
        String dir = System.getProperty("troika.dist");
        if (dir == null || !Files.isExecutable(Path.of(dir, "bin", "troika"))) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(Path.of(dir).toAbsolutePath().normalize());
    }

    /** The distribution's root folder. */
    public static Path home() {
        return troika().getParent().getParent();
    }
}
