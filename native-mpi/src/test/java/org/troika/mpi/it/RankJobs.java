package org.troika.mpi.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.provider.Arguments;
import org.troika.testkit.MpiJob;
import org.troika.testkit.MpiJob.Launcher;
import org.troika.testkit.Requires;

/**
 * The jobs the integration tests run: both launchers at 1, 2 and 4 ranks, and a rank program with the FFM backend on
 * the JDK 22+ that compiled it (native-mpi/pom.xml's troika.jdk22.javac).
 */
final class RankJobs {
    static final Path JDK22_JAVA = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");
    private static final Path FFM_CLASSES = Path.of("target", "classes", "META-INF", "versions", "22");

    private RankJobs() {}

    /** Open MPI and MPICH at 1, 2 and 4 ranks. */
    static Stream<Arguments> jobs() {
        return Stream.of(Launcher.values()).flatMap(l -> Stream.of(1, 2, 4).map(np -> Arguments.of(l, np)));
    }

    /**
     * The job ended with 0 and every rank printed a line matching {@code summary} (group 1: the rank), each of which
     * {@code checkLine} accepts.
     */
    static void assertEveryRankReported(MpiJob.Result result, int np, Pattern summary, Consumer<Matcher> checkLine) {
        assertEquals(0, result.exitCode(), result.output());
        boolean[] seen = new boolean[np];
        for (String line : result.lines()) {
            Matcher m = summary.matcher(line);
            if (m.find()) {
                seen[Integer.parseInt(m.group(1))] = true;
                checkLine.accept(m);
            }
        }
        for (int r = 0; r < np; r++) {
            assertTrue(seen[r], "no summary from rank " + r + ":\n" + result.output());
        }
    }

    static MpiJob.Result run(Launcher launcher, int np, String mainClass, List<String> args) {
        return run(launcher, np, mainClass, args, Map.of());
    }

    /** {@link #run(Launcher, int, String, List)} with more environment for the launcher. */
    static MpiJob.Result run(Launcher launcher, int np, String mainClass, List<String> args, Map<String, String> env) {
        // the ffm profile compiles the backend only where a JDK 22+ is installed: without one there is nothing to test
        Assumptions.assumeTrue(Files.isDirectory(FFM_CLASSES), "FFM backend not built (no JDK 22+ javac)");
        Requires.check(Files.isExecutable(JDK22_JAVA), JDK22_JAVA + " (a JDK 22+) is not installed");
        // the multi-release jar is built after the tests: put its JDK 22 part first on the class path by hand
        String cp = FFM_CLASSES.toAbsolutePath() + File.pathSeparator + MpiJob.testClassPath();
        List<String> java = List.of(JDK22_JAVA.toString(), "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1");
        Map<String, String> all = new java.util.HashMap<>(env);
        all.put("TROIKA_MPI_BACKEND", "ffm");
        return MpiJob.run(launcher, np, java, cp, mainClass, args, all, 300);
    }
}
