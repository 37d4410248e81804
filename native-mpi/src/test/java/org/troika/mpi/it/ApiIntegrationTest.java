package org.troika.mpi.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.troika.testkit.MpiJob;
import org.troika.testkit.MpiJob.Launcher;

/**
 * Point-to-point, requests, non-blocking and rooted collectives, communicators and groups ({@link ApiChecks} on
 * each rank of a real job): Open MPI and MPICH at 1, 2 and 4 ranks, through JNA (JDK 17) and FFM (JDK 25, arrays
 * pinned); the 64 MiB transfers at 2 ranks.
 */
@Tag("integration")
class ApiIntegrationTest {
    private static final Pattern SUMMARY = Pattern.compile(
            "rank (\\d+) abi (\\S+) backend (\\S+) pin (\\S+) checks-passed (\\d+) failed (\\d+)");

    @ParameterizedTest(name = "jna {0} np={1}")
    @MethodSource("org.troika.mpi.it.RankJobs#jobs")
    void jna(Launcher launcher, int np) {
        MpiJob.Result result = MpiJob.run(launcher, np, ApiChecks.class.getName(), args(launcher, np), 300);
        assertAllRanksPassed(result, launcher, np, "Abi", "false");
    }

    @ParameterizedTest(name = "ffm {0} np={1}")
    @MethodSource("org.troika.mpi.it.RankJobs#jobs")
    void ffm(Launcher launcher, int np) {
        MpiJob.Result result = RankJobs.run(launcher, np, ApiChecks.class.getName(), args(launcher, np));
        assertAllRanksPassed(result, launcher, np, "FfmMpi", "true");
    }

    /** The 64 MiB transfers at 2 ranks; Open MPI 4 lacks {@code MPI_Intercomm_create_from_groups} (MPI 4.0). */
    private static List<String> args(Launcher launcher, int np) {
        List<String> args = new java.util.ArrayList<>();
        if (np == 2) {
            args.add("--large");
        }
        if (launcher == Launcher.OPEN_MPI) {
            args.add("--lacks-from-groups");
        }
        return args;
    }

    private static void assertAllRanksPassed(MpiJob.Result result, Launcher launcher, int np, String backend,
            String pin) {
        RankJobs.assertEveryRankReported(result, np, SUMMARY, m -> {
            assertEquals(launcher.isOpenMpi() ? "open-mpi" : "mpich", m.group(2), m.group());
            assertTrue(m.group(3).contains(backend), m.group());
            assertEquals(pin, m.group(4), m.group());
            assertEquals("0", m.group(6), result.output());
            assertTrue(Integer.parseInt(m.group(5)) >= 60, "too few checks ran: " + m.group());
        });
    }
}
