package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.troika.testkit.MpiJob.Launcher;

/**
 * {@code troika run -np N} on localhost with more ranks than this machine's CPUs, on every MPI under test: troika
 * plans {@code localhost:N}, so Open MPI does not see the oversubscription and its ranks would busy-poll (6 ranks of
 * the training example on 2 cores: 25 s against 3 s); every Open MPI rank gets {@code mpi_yield_when_idle=1} from
 * {@code troika-rankenv}, a {@code --mca} setting of the user's wins, MPICH is left alone, and a job whose ranks fit
 * the CPUs keeps Open MPI's default.
 */
@Tag("integration")
class OversubscribedYieldRunTest {
    private static final Pattern LINE = Pattern.compile("r(\\d+) yield=(\\S+)");

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @EnumSource(Launcher.class)
    void moreRanksThanCpusYieldUnlessTheUserChose(Launcher mpi) throws Exception {
        int cpus = org.troika.testkit.HostCpus.count();
        int np = cpus + 1;
        String expected = mpi.isOpenMpi() ? "1" : "unset";
        assertEquals(java.util.Collections.nCopies(np, expected), values(mpi, np, null));
        if (mpi.isOpenMpi()) {
            assertEquals(java.util.Collections.nCopies(np, "0"), values(mpi, np, "--mca mpi_yield_when_idle 0"),
                    "the user's --mca setting reaches the ranks unchanged");
            assertEquals(List.of("unset"), values(mpi, 1, null), "one rank fits any machine");
        }
    }

    /** Each rank's value of the parameter, in rank order, from {@code troika run [--mpi-args ARGS] -np N sh -c ...}. */
    private List<String> values(Launcher mpi, int np, String mpiArgs) throws Exception {
        List<String> args = new java.util.ArrayList<>();
        if (mpiArgs != null) {
            args.addAll(List.of("--mpi-args", mpiArgs));
        }
        args.addAll(List.of("-np", Integer.toString(np), "sh", "-c",
                "echo \"r$TROIKA_RANK yield=${OMPI_MCA_mpi_yield_when_idle-unset}\""));
        try (RunSupport run = RunSupport.start(mpi, tmp, Map.of(), args.toArray(String[]::new))) {
            RunSupport.Result r = run.waitFor();
            run.assertNoSurvivors();
            assertEquals(0, r.exitCode(), r.toString());
            String[] byRank = new String[np];
            Matcher m = LINE.matcher(r.out());
            while (m.find()) {
                byRank[Integer.parseInt(m.group(1))] = m.group(2);
            }
            return List.of(byRank);
        }
    }
}
