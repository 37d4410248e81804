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
import org.junit.jupiter.params.provider.MethodSource;
import org.troika.testkit.MpiJob;
import org.troika.testkit.MpiJob.Launcher;
import org.troika.testkit.Requires;

/**
 * Point-to-point, requests, non-blocking and rooted collectives, communicators and groups ({@link ApiChecks} on
 * each rank of a real job): Open MPI and MPICH at 1, 2 and 4 ranks, through JNA (JDK 17) and FFM (JDK 25, arrays
 * pinned); the 64 MiB transfers at 2 ranks.
 */
@Tag("integration")
class ApiIntegrationTest {
    private static final Pattern SUMMARY = Pattern.compile(
            "rank (\\d+) abi (\\S+) backend (\\S+) pin (\\S+) checks-passed (\\d+) failed (\\d+)");
    private static final Path JDK22_JAVA = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");
    private static final Path FFM_CLASSES = Path.of("target", "classes", "META-INF", "versions", "22");

    static Stream<Arguments> jobs() {
        return Stream.of(Launcher.values()).flatMap(l -> Stream.of(1, 2, 4).map(np -> Arguments.of(l, np)));
    }

    @ParameterizedTest(name = "jna {0} np={1}")
    @MethodSource("jobs")
    void jna(Launcher launcher, int np) {
        List<String> args = np == 2 ? List.of("--large") : List.of();
        MpiJob.Result result = MpiJob.run(launcher, np, ApiChecks.class.getName(), args, 300);
        assertAllRanksPassed(result, launcher, np, "Abi", "false");
    }

    @ParameterizedTest(name = "ffm {0} np={1}")
    @MethodSource("jobs")
    void ffm(Launcher launcher, int np) {
        Assumptions.assumeTrue(Files.isDirectory(FFM_CLASSES), "FFM backend not built (no JDK 22+ javac)");
        Requires.check(Files.isExecutable(JDK22_JAVA), JDK22_JAVA + " (a JDK 22+) is not installed");
        String cp = FFM_CLASSES.toAbsolutePath() + File.pathSeparator + MpiJob.testClassPath();
        List<String> java = List.of(JDK22_JAVA.toString(), "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1");
        List<String> args = np == 2 ? List.of("--large") : List.of();
        MpiJob.Result result = MpiJob.run(launcher, np, java, cp, ApiChecks.class.getName(), args,
                Map.of("TROIKA_MPI_BACKEND", "ffm"), 300);
        assertAllRanksPassed(result, launcher, np, "FfmMpi", "true");
    }

    private static void assertAllRanksPassed(MpiJob.Result result, Launcher launcher, int np, String backend,
            String pin) {
        assertEquals(0, result.exitCode(), result.output());
        boolean[] seen = new boolean[np];
        for (String line : result.lines()) {
            Matcher m = SUMMARY.matcher(line);
            if (m.find()) {
                seen[Integer.parseInt(m.group(1))] = true;
                assertEquals(launcher == Launcher.OPEN_MPI ? "open-mpi" : "mpich", m.group(2), line);
                assertTrue(m.group(3).contains(backend), line);
                assertEquals(pin, m.group(4), line);
                assertEquals("0", m.group(6), result.output());
                assertTrue(Integer.parseInt(m.group(5)) >= 60, "too few checks ran: " + line);
            }
        }
        for (int r = 0; r < np; r++) {
            assertTrue(seen[r], "no summary from rank " + r + ":\n" + result.output());
        }
    }
}
