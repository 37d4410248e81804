package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.troika.testkit.CPrograms;
import org.troika.testkit.MpiJob.Launcher;

/**
 * A failing rank: troika exits with its code and names the rank (and host) that failed first, on Open MPI 4 and 5
 * (MPICH's Hydra names no rank and exits with the code of a rank it killed: troika then says no rank was named).
 */
@Tag("integration")
class RunFailingRankTest {
    /**
     * An MPI program: rank {@code argv[1]} exits with {@code argv[2]} (or, for {@code kill}, raises SIGKILL) after
     * MPI_Init while the others wait in a barrier. Open MPI names the failed rank reliably only for MPI processes.
     */
    private static final String FAIL_C = """
            #include <mpi.h>
            #include <signal.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <string.h>
            int main(int argc, char **argv) {
              MPI_Init(&argc, &argv);
              int r; MPI_Comm_rank(MPI_COMM_WORLD, &r);
              printf("up %d\\n", r); fflush(stdout);
              if (r == atoi(argv[1])) {
                if (strcmp(argv[2], "kill") == 0) raise(SIGKILL);
                exit(atoi(argv[2]));
              }
              MPI_Barrier(MPI_COMM_WORLD);
              MPI_Finalize();
              return 0;
            }
            """;

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @EnumSource(Launcher.class)
    void mpiRankExitingNonZeroIsNamedWithItsHostAndExitCode(Launcher mpi) throws Exception {
        Path fail = CPrograms.compile(mpi, tmp, "fail", FAIL_C);
        RunSupport.Result r = RunSupport.run(mpi, tmp, "-np", "3", "-H", "localhost:3", fail.toString(), "1", "3");
        if (mpi.isOpenMpi()) {
            assertEquals(3, r.exitCode(), r.toString());
            assertTrue(r.err().contains("troika: rank 1 on host localhost failed first with exit code 3\n"), r.toString());
        } else {
            // Hydra kills the other ranks and exits with one of their codes (9 here), naming a pid, not a rank
            assertTrue(r.exitCode() != 0, r.toString());
            assertTrue(r.err().contains("troika: the job failed with exit code " + r.exitCode()
                    + " (the MPI launcher named no rank)\n"), r.toString());
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Launcher.class, names = {"OPEN_MPI", "OPEN_MPI_5"})
    void rankKilledBySignalIsNamedWith128PlusTheSignal(Launcher mpi) throws Exception {
        Path fail = CPrograms.compile(mpi, tmp, "fail", FAIL_C);
        RunSupport.Result r = RunSupport.run(mpi, tmp, "-np", "3", "-H", "localhost:3", fail.toString(), "2", "kill");
        assertEquals(137, r.exitCode(), r.toString());
        assertTrue(r.err().matches("(?s).*troika: rank 2 on host \\S+ failed first with exit code 137\n.*"), r.toString());
    }

    @Test
    void nonMpiRankExitCodeIsPassedOn() throws Exception {
        // Open MPI does not always name the rank of a non-MPI process; the exit code must still come through
        RunSupport.Result r = RunSupport.run(tmp, "-np", "2", "-H", "localhost:2",
                "sh", "-c", "if [ \"$TROIKA_RANK\" = 1 ]; then exit 5; fi; sleep 1");
        assertEquals(5, r.exitCode(), r.toString());
        assertTrue(r.err().contains("exit code 5"), r.toString());
    }
}
