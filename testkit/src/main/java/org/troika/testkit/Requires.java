package org.troika.testkit;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * Preconditions of integration tests. Outside CI a missing tool skips the test with the reason; under CI
 * ({@code CI=true}), where {@code .ci/run} installs everything, a missing tool fails the test, so CI never
 * silently skips an integration test it can run.
 */
public final class Requires {
    private Requires() {}

    /** Whether this run is CI's. */
    public static boolean underCi() {
        return "true".equalsIgnoreCase(System.getenv("CI"));
    }

    /** Requires an executable on PATH (or an absolute path) and returns its path. */
    public static Path command(String name) {
        Path found = which(name);
        check(found != null, name + " is not installed (run .ci/run's install step, see README)");
        return found;
    }

    /** Requires running as root (network namespaces, Slurm daemons). */
    public static void root() {
        check("root".equals(System.getProperty("user.name")), "this test needs root (network namespaces / daemons)");
    }

    /** Fails under CI, skips otherwise, when {@code condition} is false. */
    public static void check(boolean condition, String reason) {
        if (condition) {
            return;
        }
        if (underCi()) {
            throw new AssertionError("CI must run this test but cannot: " + reason);
        }
        Assumptions.assumeTrue(false, "skipped: " + reason);
    }

    /** Looks an executable up on PATH; {@code null} when absent. */
    public static Path which(String name) {
        if (name.contains("/")) {
            Path p = Path.of(name);
            return Files.isExecutable(p) ? p : null;
        }
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p) && !Files.isDirectory(p)) {
                return p;
            }
        }
        return null;
    }
}
