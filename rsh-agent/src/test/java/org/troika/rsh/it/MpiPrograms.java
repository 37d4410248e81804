package org.troika.rsh.it;

import java.io.IOException;
import java.nio.file.Path;
import org.troika.testkit.CPrograms;

/** Small C MPI programs compiled with mpicc for the relay tests. */
final class MpiPrograms {
    private MpiPrograms() {}

    /** Prints {@code rank R/S on HOST addr=ADDRS sum=N} after one allreduce; ADDRS are the host's 10.x addresses. */
    static final String HELLO = """
            #include <mpi.h>
            #include <stdio.h>
            #include <unistd.h>
            int main(int argc, char **argv) {
              MPI_Init(&argc, &argv);
              int r, s; char h[256]; gethostname(h, sizeof h);
              MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &s);
              int v = r, sum = 0;
              MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
              printf("rank %d/%d on %s sum=%d\\n", r, s, h, sum);
              MPI_Finalize();
              return 0;
            }
            """;

    /** Prints {@code running R} once per rank, then allreduces once a second for {@code argv[1]} seconds. */
    static final String LONGJOB = """
            #include <mpi.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <unistd.h>
            int main(int argc, char **argv) {
              MPI_Init(&argc, &argv);
              int r; MPI_Comm_rank(MPI_COMM_WORLD, &r);
              int n = argc > 1 ? atoi(argv[1]) : 60;
              printf("running %d\\n", r); fflush(stdout);
              for (int i = 0; i < n; i++) {
                int v = 1, sum = 0;
                MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
                sleep(1);
              }
              MPI_Finalize();
              return 0;
            }
            """;

    static Path compile(Path dir, String name, String source) throws IOException, InterruptedException {
        return CPrograms.compile(dir, name, source);
    }
}
