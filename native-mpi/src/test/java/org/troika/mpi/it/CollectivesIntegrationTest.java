package org.troika.mpi.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.troika.testkit.MpiJob;
import org.troika.testkit.MpiJob.Launcher;

/**
 * Every collective × type × op, checked by {@link CollectiveChecks} on each rank of a real MPI job, on Open MPI and
 * MPICH at 1, 2 and 4 ranks; the 64 MiB buffers once per MPI, at 2 ranks.
 */
@Tag("integration")
class CollectivesIntegrationTest {
    private static final Pattern SUMMARY = Pattern.compile("rank (\\d+) abi (\\S+) checks-passed (\\d+) failed (\\d+)");

    static Stream<Arguments> jobs() {
        return Stream.of(Launcher.values()).flatMap(l -> Stream.of(1, 2, 4).map(np -> Arguments.of(l, np)));
    }

    @ParameterizedTest(name = "{0} np={1}")
    @MethodSource("jobs")
    void everyRankPassesEveryCheck(Launcher launcher, int np) {
        List<String> args = np == 2 ? List.of("--large") : List.of();
        MpiJob.Result result = MpiJob.run(launcher, np, CollectiveChecks.class.getName(), args, 300);

        assertEquals(0, result.exitCode(), result.output());
        boolean[] seen = new boolean[np];
        for (String line : result.lines()) {
            Matcher m = SUMMARY.matcher(line);
            if (m.find()) {
                int rank = Integer.parseInt(m.group(1));
                seen[rank] = true;
                assertEquals(launcher == Launcher.OPEN_MPI ? "open-mpi" : "mpich", m.group(2), line);
                assertEquals("0", m.group(4), result.output());
                assertTrue(Integer.parseInt(m.group(3)) >= 150, "too few checks ran: " + line);
            }
        }
        for (int r = 0; r < np; r++) {
            assertTrue(seen[r], "no summary from rank " + r + ":\n" + result.output());
        }
    }
}
