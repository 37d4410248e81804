/* C baseline of bench/allreduce.sh: MPI_Allreduce(MPI_FLOAT, MPI_SUM) from a send to a recv buffer, the same loop
 * as AllreduceBench.java. Prints "allreduce bytes=B iters=N us_per_call=X" on rank 0 for each size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static const int BYTES[] = {8, 1024, 65536, 1048576, 16777216};
static const int ITERS[] = {20000, 20000, 2000, 300, 40};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double scale = argc > 1 ? atof(argv[1]) : 1.0;
  for (int s = 0; s < 5; s++) {
    int n = BYTES[s] / 4, iters = (int)(ITERS[s] * scale) + 1, warm = iters / 10 + 5;
    float *a = malloc(BYTES[s]), *b = malloc(BYTES[s]);
    for (int i = 0; i < n; i++) a[i] = 1.0f;
    for (int i = 0; i < warm; i++) MPI_Allreduce(a, b, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) MPI_Allreduce(a, b, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double us = (MPI_Wtime() - t0) / iters * 1e6;
    if (rank == 0) printf("allreduce bytes=%d iters=%d us_per_call=%.4f check=%.0f\n", BYTES[s], iters, us, b[0]);
    free(a);
    free(b);
  }
  MPI_Finalize();
  return 0;
}
