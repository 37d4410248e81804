package org.troika.mpi.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.troika.testkit.MpiJob;
import org.troika.testkit.MpiJob.Launcher;

/**
 * Every collective × type × op, checked by {@link CollectiveChecks} on each rank of a real MPI job, on Open MPI 4,
 * MPICH and Open MPI 5 (in the trixie root) at 1, 2 and 4 ranks with the JNA backend (the 64 MiB buffers at 2
 * ranks), and at 2 ranks with the FFM backend on a JDK 22+ (the host's, bind-mounted into the root for Open MPI 5).
 */
@Tag("integration")
class CollectivesIntegrationTest {
    private static final Pattern SUMMARY =
            Pattern.compile("rank (\\d+) abi (\\S+) backend (\\S+) checks-passed (\\d+) failed (\\d+)");

    @ParameterizedTest(name = "jna {0} np={1}")
    @MethodSource("org.troika.mpi.it.RankJobs#jobs")
    void everyRankPassesEveryCheck(Launcher launcher, int np) {
        List<String> args = np == 2 ? List.of("--large") : List.of();
        MpiJob.Result result = MpiJob.run(launcher, np, CollectiveChecks.class.getName(), args, 300);
        assertAllRanksPassed(result, launcher, np, "Abi");
    }

    @ParameterizedTest(name = "ffm {0} np=2")
    @EnumSource(Launcher.class)
    void everyRankPassesEveryCheckThroughForeignFunctions(Launcher launcher) {
        MpiJob.Result result = RankJobs.run(launcher, 2, CollectiveChecks.class.getName(), List.of());
        assertAllRanksPassed(result, launcher, 2, "FfmMpi");
    }

    private static void assertAllRanksPassed(MpiJob.Result result, Launcher launcher, int np, String backend) {
        RankJobs.assertEveryRankReported(result, np, SUMMARY, m -> {
            assertEquals(launcher.isOpenMpi() ? "open-mpi" : "mpich", m.group(2), m.group());
            assertTrue(m.group(3).contains(backend), m.group());
            assertEquals("0", m.group(5), result.output());
            assertTrue(Integer.parseInt(m.group(4)) >= 150, "too few checks ran: " + m.group());
        });
    }
}
