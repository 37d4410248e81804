package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.troika.testkit.MpiJob.Launcher;

/**
 * {@code troika run} with several ranks on localhost, on every MPI under test: every rank runs once, output tagged by
 * the MPI's launcher (the tag troika plans: Open MPI 4 {@code --tag-output}, Open MPI 5 {@code --output tag}, MPICH
 * {@code -l}), passed through, each stream on its own.
 */
@Tag("integration")
class RunRanksTest {
    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @EnumSource(Launcher.class)
    void fourRanksEachPrintTheirRankWithTheLaunchersTag(Launcher mpi) throws Exception {
        RunSupport.Result r = RunSupport.run(mpi, tmp, "-np", "4", "-H", "localhost:4",
                "sh", "-c", "echo \"rank=$TROIKA_RANK size=$TROIKA_SIZE\"");
        assertEquals(0, r.exitCode(), r.toString());
        Set<String> lines = Set.copyOf(r.outLines());
        for (int rank = 0; rank < 4; rank++) {
            assertTrue(lines.contains(RunSupport.tag(mpi, rank, "stdout") + "rank=" + rank + " size=4"), r.toString());
        }
        List<String> untagged = r.outLines().stream().filter(l -> !l.isEmpty()
                && IntStream.range(0, 4).noneMatch(rank -> l.startsWith(RunSupport.tag(mpi, rank, "stdout"))))
                .collect(Collectors.toList());
        assertEquals(List.of(), untagged, "troika must pass the launcher's tagged lines through unchanged");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Launcher.class)
    void rankStderrStaysOnStderrAndUtf8SurvivesTheRoundTrip(Launcher mpi) throws Exception {
        RunSupport.Result r = RunSupport.run(mpi, tmp, "-np", "2", "-H", "localhost:2",
                "sh", "-c", "printf 'gr\\303\\274\\303\\237e %s\\n' \"$TROIKA_RANK\"; echo \"oops $TROIKA_RANK\" >&2");
        assertEquals(0, r.exitCode(), r.toString());
        assertTrue(r.out().contains(RunSupport.tag(mpi, 1, "stdout") + "gr\u00fc\u00dfe 1\n"), r.toString());
        assertTrue(r.err().contains(RunSupport.tag(mpi, 0, "stderr") + "oops 0\n"), r.toString());
        assertTrue(!r.out().contains("oops"), "stderr leaked into stdout: " + r);
    }
}
