package org.troika.mpi.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.troika.testkit.MpiJob;
import org.troika.testkit.MpiJob.Launcher;
import org.troika.testkit.Requires;

/**
 * Every collective × type × op, checked by {@link CollectiveChecks} on each rank of a real MPI job, on Open MPI 4,
 * MPICH and Open MPI 5 (in the trixie root) at 1, 2 and 4 ranks with the JNA backend (the 64 MiB buffers at 2
 * ranks), and at 2 ranks with the FFM backend on a JDK 22+ (the host's, bind-mounted into the root for Open MPI 5).
 */
@Tag("integration")
class CollectivesIntegrationTest {
    private static final Pattern SUMMARY =
            Pattern.compile("rank (\\d+) abi (\\S+) backend (\\S+) checks-passed (\\d+) failed (\\d+)");
    /** The JDK 22+ that compiled the FFM backend (native-mpi/pom.xml's troika.jdk22.javac). */
    private static final Path JDK22_JAVA = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");
    private static final Path FFM_CLASSES = Path.of("target", "classes", "META-INF", "versions", "22");

    static Stream<Arguments> jobs() {
        return Stream.of(Launcher.values()).flatMap(l -> Stream.of(1, 2, 4).map(np -> Arguments.of(l, np)));
    }

    @ParameterizedTest(name = "jna {0} np={1}")
    @MethodSource("jobs")
    void everyRankPassesEveryCheck(Launcher launcher, int np) {
        List<String> args = np == 2 ? List.of("--large") : List.of();
        MpiJob.Result result = MpiJob.run(launcher, np, CollectiveChecks.class.getName(), args, 300);
        assertAllRanksPassed(result, launcher, np, "Abi");
    }

    @ParameterizedTest(name = "ffm {0} np=2")
    @EnumSource(Launcher.class)
    void everyRankPassesEveryCheckThroughForeignFunctions(Launcher launcher) {
        // the ffm profile compiles the backend only where a JDK 22+ is installed: without one there is nothing to test
        Assumptions.assumeTrue(Files.isDirectory(FFM_CLASSES), "FFM backend not built (no JDK 22+ javac)");
        Requires.check(Files.isExecutable(JDK22_JAVA), JDK22_JAVA + " (a JDK 22+) is not installed");
        // the multi-release jar is built after the tests: put its JDK 22 part first on the class path by hand
        String cp = FFM_CLASSES.toAbsolutePath() + File.pathSeparator + MpiJob.testClassPath();
        List<String> java = List.of(JDK22_JAVA.toString(), "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1");
        MpiJob.Result result = MpiJob.run(launcher, 2, java, cp, CollectiveChecks.class.getName(), List.of(),
                Map.of("TROIKA_MPI_BACKEND", "ffm"), 300);
        assertAllRanksPassed(result, launcher, 2, "FfmMpi");
    }

    private static void assertAllRanksPassed(MpiJob.Result result, Launcher launcher, int np, String backend) {
        assertEquals(0, result.exitCode(), result.output());
        boolean[] seen = new boolean[np];
        for (String line : result.lines()) {
            Matcher m = SUMMARY.matcher(line);
            if (m.find()) {
                seen[Integer.parseInt(m.group(1))] = true;
                assertEquals(launcher.isOpenMpi() ? "open-mpi" : "mpich", m.group(2), line);
                assertTrue(m.group(3).contains(backend), line);
                assertEquals("0", m.group(5), result.output());
                assertTrue(Integer.parseInt(m.group(4)) >= 150, "too few checks ran: " + line);
            }
        }
        for (int r = 0; r < np; r++) {
            assertTrue(seen[r], "no summary from rank " + r + ":\n" + result.output());
        }
    }
}
