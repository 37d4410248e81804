package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.testkit.CPrograms;
import org.troika.testkit.Requires;

/** A failing rank: troika exits with its code and names the rank (and host) that failed first. */
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
    static Path bin;
    @TempDir
    Path tmp;

    @BeforeAll
    static void compile() throws Exception {
        CPrograms.compile(bin, "fail", FAIL_C);
    }

    @Test
    void mpiRankExitingNonZeroIsNamedWithItsHostAndExitCode() throws Exception {
        RunSupport.Result r = RunSupport.run(tmp, "-np", "3", "-H", "localhost:3", bin.resolve("fail").toString(), "1", "3");
        assertEquals(3, r.exitCode(), r.toString());
        assertTrue(r.err().contains("troika: rank 1 on host localhost failed first with exit code 3\n"), r.toString());
    }

    @Test
    void rankKilledBySignalIsNamedWith128PlusTheSignal() throws Exception {
        RunSupport.Result r = RunSupport.run(tmp, "-np", "3", "-H", "localhost:3", bin.resolve("fail").toString(), "2", "kill");
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
