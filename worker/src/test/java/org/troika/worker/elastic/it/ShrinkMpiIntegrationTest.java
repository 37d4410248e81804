package org.troika.worker.elastic.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.troika.common.ElasticExitCodes;
import org.troika.testkit.MpiJob;
import org.troika.testkit.MpiJob.Launcher;
import org.troika.testkit.Requires;

/**
 * Recovery without a relaunch on Open MPI 5.0.7 ({@code mpirun --with-ft ulfm}, in the trixie root) through the
 * worker API ({@link ShrinkRankMain}): ranks SIGKILL themselves mid-training and the survivors revoke, shrink, take
 * the last commit and go on in the same processes.
 */
@Tag("integration")
class ShrinkMpiIntegrationTest {
    static final List<String> FT = List.of("--with-ft", "ulfm");
    static final Pattern START = Pattern.compile("^rank (\\d+) pid=(\\d+) start first=(\\d+) size=(\\d+)$");
    static final Pattern STEP = Pattern.compile("^rank (\\d+) step=(\\d+) size=(\\d+) ms=\\d+$");
    static final Pattern DONE = Pattern.compile("^rank (\\d+) pid=(\\d+) done step=(\\d+) sum=(\\d+) size=(\\d+) code=(\\d+)$");
    /** The JDK 22+ of the FFM backend (as in troika-mpi's collectives test), bind-mounted into the root. */
    static final Path JDK22_JAVA = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");
    static final Path FFM_CLASSES = Path.of("..", "native-mpi", "target", "classes", "META-INF", "versions", "22");

    @TempDir
    Path nodes;

    private MpiJob.Result run(String backend, int np, int last, String kills, int minNp) {
        List<String> java = MpiJob.defaultJava(Launcher.OPEN_MPI_5);
        String cp = MpiJob.testClassPath();
        Map<String, String> env = Map.of();
        if (backend.equals("ffm")) {
            Requires.check(Files.isExecutable(JDK22_JAVA), JDK22_JAVA + " (a JDK 22+) is not installed");
            java = List.of(JDK22_JAVA.toString(), "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1");
            env = Map.of("TROIKA_MPI_BACKEND", "ffm");
            // in a reactor build troika-mpi is a classes folder, which is not multi-release: its JDK 22 part first
            if (Files.isDirectory(FFM_CLASSES)) {
                cp = FFM_CLASSES.toAbsolutePath() + File.pathSeparator + cp;
            }
        }
        return MpiJob.run(Launcher.OPEN_MPI_5, FT, np, java, cp, ShrinkRankMain.class.getName(),
                List.of(nodes.toString(), "j", Integer.toString(last), kills, Integer.toString(minNp), "20"), env,
                300);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jna", "ffm"})
    void aKilledRankIsShrunkAwayAndTheSurvivorsGoOnInTheirOwnProcesses(String backend) {
        MpiJob.Result r = run(backend, 4, 12, "3@5", 2);
        assertEquals(0, r.exitCode(), r.output());
        assertSurvivors(r, List.of(0, 1, 2), 12, 3);
        assertTrue(r.lines().contains("troika elastic: ranks 3 failed; 3 of 4 go on"), r.output());
        assertTrue(r.lines().contains("rank 0 backend=" + (backend.equals("ffm") ? "FfmMpi" : "OpenMpiAbi")),
                r.output());
    }

    @Test
    void twoSuccessiveKillsShrinkTwiceAndRankZeroMayBeOne() {
        MpiJob.Result r = run("jna", 4, 14, "3@4,0@9", 2);
        assertEquals(0, r.exitCode(), r.output());
        assertSurvivors(r, List.of(1, 2), 14, 2);
        assertTrue(r.lines().contains("troika elastic: ranks 3 failed; 3 of 4 go on"), r.output());
        assertTrue(r.lines().contains("troika elastic: ranks 0 failed; 2 of 3 go on"), r.output());
        for (int rank : List.of(1, 2)) {
            assertTrue(r.lines().contains("rank " + rank + " reset size=3"), r.output());
            assertTrue(r.lines().contains("rank " + rank + " reset size=2"), r.output());
        }
    }

    @Test
    void aKillDuringTheStateBroadcastOfARecoveryIsRecoveredToo() {
        MpiJob.Result r = run("jna", 4, 12, "3@5,1@reset", 2);
        assertEquals(0, r.exitCode(), r.output());
        assertSurvivors(r, List.of(0, 2), 12, 2);
        assertTrue(r.lines().contains("troika elastic: ranks 3 failed; 3 of 4 go on"), r.output());
        assertTrue(r.lines().contains("troika elastic: ranks 1 failed; 2 of 3 go on"), r.output());
    }

    @Test
    void fewerSurvivorsThanTheMinimumEndTheGenerationForARelaunch() {
        MpiJob.Result r = run("jna", 3, 10, "2@4", 3);
        assertTrue(r.lines().contains("troika elastic: ranks 2 failed; 2 of 3 go on"), r.output());
        for (int rank : List.of(0, 1)) {
            assertTrue(r.output().contains("troika elastic: rank " + rank + " leaves with code "
                    + ElasticExitCodes.COLLECTIVE_FAILURE), r.output());
        }
        assertFalse(r.output().contains("reset size=2"), "no reset below the minimum: " + r.output());
    }

    @Test
    void theBindingSaysWhichMpiLacksUlfmAndHowToGetIt() {
        MpiJob.Result five = MpiJob.run(Launcher.OPEN_MPI_5, 1, UlfmProbeMain.class.getName(), List.of(), 120);
        assertTrue(five.lines().contains("ulfm available=true backend=OpenMpiAbi"), five.output());
        MpiJob.Result four = MpiJob.run(Launcher.OPEN_MPI, 1, UlfmProbeMain.class.getName(), List.of(), 120);
        assertTrue(four.output().contains("ulfm available=false"), four.output());
        assertTrue(four.output().contains("lacks the fault tolerance extension (ULFM: ")
                && four.output().contains("use Open MPI 5 or later"), four.output());
    }

    /**
     * Each survivor ran from start to end in one process, every survivor ends at {@code last} with the same sum
     * (the same model), and the steps after each recovery continue from the last commit: rank 0 of the survivors
     * never repeats or skips a step.
     */
    private static void assertSurvivors(MpiJob.Result r, List<Integer> survivors, int last, int size) {
        long sum = (long) last * (last + 1) / 2;
        for (int rank : survivors) {
            List<String> pids = new ArrayList<>();
            List<Integer> steps = new ArrayList<>();
            String done = null;
            for (String line : r.lines()) {
                Matcher m = START.matcher(line);
                if (m.matches() && Integer.parseInt(m.group(1)) == rank) {
                    pids.add(m.group(2));
                }
                m = STEP.matcher(line);
                if (m.matches() && Integer.parseInt(m.group(1)) == rank) {
                    steps.add(Integer.parseInt(m.group(2)));
                }
                m = DONE.matcher(line);
                if (m.matches() && Integer.parseInt(m.group(1)) == rank) {
                    pids.add(m.group(2));
                    done = line;
                }
            }
            assertEquals("rank " + rank + " pid=" + pids.get(0) + " done step=" + last + " sum=" + sum + " size="
                    + size + " code=0", done, r.output());
            assertTrue(pids.size() >= 3 && pids.stream().distinct().count() == 1, "one process: " + pids);
            // from the last commit on: a step is repeated at most right after a recovery, none is skipped
            for (int i = 1; i < steps.size(); i++) {
                int d = steps.get(i) - steps.get(i - 1);
                assertTrue(d == 1 || d <= 0 && steps.get(i) >= steps.get(i - 1) - 1,
                        "rank " + rank + " steps " + steps);
            }
            assertEquals(last, steps.get(steps.size() - 1));
        }
    }
}
