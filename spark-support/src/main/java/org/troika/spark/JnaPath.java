package org.troika.spark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.troika.common.exec.CommandRunner;

/**
 * JNA's library search path ({@code jna.platform.library.path}), computed the way JNA's {@code NativeLibrary} does at
 * start-up and {@code bin/troika-rankenv} does in sh for {@code TROIKA_JAVA_CDS=1}: the multiarch and standard
 * folders, then those of {@code /sbin/ldconfig -p}, the existing ones, each once. JNA itself starts
 * {@code ldconfig} from every JVM that loads it (~30 ms of CPU per rank, measured for troika-rankenv); the driver
 * does it once for all its local ranks. Only where JNA's multiarch name is the machine name plus
 * {@code -linux-gnu} (x86_64, aarch64), as troika-rankenv.
 */
final class JnaPath {
    static final String PROPERTY = "jna.platform.library.path";
    private static volatile String cached;

    private JnaPath() {}

    /**
     * The path for {@code machine} ({@code uname -m}) given {@code ldconfig -p}'s output (pure but for
     * {@code isDirectory}); {@code null} on other machines or when no folder exists.
     */
    static String compute(String machine, String ldconfigOutput, Predicate<String> isDirectory) {
        if (!machine.equals("x86_64") && !machine.equals("aarch64")) {
            return null;
        }
        String triplet = machine + "-linux-gnu";
        Set<String> dirs = new LinkedHashSet<>(List.of("/usr/lib/" + triplet, "/lib/" + triplet, "/usr/lib64", "/lib64",
                "/usr/lib", "/lib"));
        for (String line : ldconfigOutput.split("\n")) {
            int arrow = line.indexOf(" => /");
            int slash = line.lastIndexOf('/');
            if (arrow >= 0 && slash > arrow + 4) {
                dirs.add(line.substring(arrow + 4, slash));
            }
        }
        List<String> existing = new ArrayList<>();
        for (String d : dirs) {
            if (isDirectory.test(d)) {
                existing.add(d);
            }
        }
        return existing.isEmpty() ? null : String.join(":", existing);
    }

    /** {@code -Djna.platform.library.path=...} for JVMs on this machine, or none; asks {@code ldconfig} once. */
    static List<String> jvmOptions(CommandRunner runner) {
        String path = cached;
        if (path == null) {
            String machine = switch (System.getProperty("os.arch", "")) {
                case "amd64", "x86_64" -> "x86_64";
                case "aarch64" -> "aarch64";
                default -> "";
            };
            CommandRunner.ProbeResult r = machine.isEmpty() || !System.getProperty("os.name", "").equals("Linux")
                    ? new CommandRunner.ProbeResult(CommandRunner.ProbeResult.NOT_FOUND, "")
                    : runner.run(List.of("/sbin/ldconfig", "-p"), Duration.ofSeconds(10));
            String computed = compute(machine, r.ok() ? r.output() : "", d -> Files.isDirectory(Path.of(d)));
            path = computed == null ? "" : computed;
            cached = path;
        }
        return path.isEmpty() ? List.of() : List.of("-D" + PROPERTY + "=" + path);
    }

    /** Whether the JVM options set the path themselves. */
    static boolean setIn(List<String> jvmOptions) {
        return jvmOptions.stream().anyMatch(o -> o.startsWith("-D" + PROPERTY + "="));
    }
}
