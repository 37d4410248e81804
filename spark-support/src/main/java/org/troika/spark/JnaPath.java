package org.troika.spark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.troika.common.JnaSearchPath;
import org.troika.common.exec.CommandRunner;

/**
 * JNA's library search path ({@link JnaSearchPath}) for the local ranks, from {@code /sbin/ldconfig -p}: the driver
 * asks once for all its local ranks (JNA itself would start {@code ldconfig} from every rank JVM).
 */
final class JnaPath {
    static final String PROPERTY = JnaSearchPath.PROPERTY;
    private static volatile String cached;

    private JnaPath() {}

    /**
     * The path for {@code machine} ({@code uname -m}) given {@code ldconfig -p}'s output (pure but for
     * {@code isDirectory}); {@code null} on other machines or when no folder exists.
     */
    static String compute(String machine, String ldconfigOutput, Predicate<String> isDirectory) {
        return JnaSearchPath.join(machine, JnaSearchPath.ldconfigFolders(ldconfigOutput), isDirectory);
    }

    /** {@code -Djna.platform.library.path=...} for JVMs on this machine, or none; asks {@code ldconfig} once. */
    static List<String> jvmOptions(CommandRunner runner) {
        String path = cached;
        if (path == null) {
            String machine = JnaSearchPath.machine();
            CommandRunner.ProbeResult r = machine.isEmpty()
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
