/*
 * C side of bench/mpi.sh: OSU-style timing of MPI_Allreduce, MPI_Bcast, MPI_Allgather (float), ping-pong latency
 * and windowed bandwidth (bytes), the same loops as MpiBench.java. Per test and size: warm-up, then REPS timed
 * repetitions of ITERS calls separated by barriers; a repetition's time is the slowest rank's. Prints one line per
 * test and size: "impl=c test=T bytes=B iters=I min_us=X med_us=Y" (time per call; for bw, per message).
 * Usage: osu SCALE REPS TESTS MAXBYTES [MINBYTES] (TESTS: comma list of allreduce,bcast,allgather,latency,bw; SCALE
 * multiplies ITERS; sizes above MAXBYTES or below MINBYTES are skipped)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int SIZES[] = {8, 1024, 65536, 1048576, 16777216};
static const int ITERS[] = {20000, 10000, 1000, 100, 10};
#define NSIZES 5
#define WINDOW 64

static int rank, size;
/* OSU_INPLACE=1: allreduce with MPI_IN_PLACE on b (as troika-mpi reduces Java arrays) instead of from a into b */
static int inplace;

static int cmp(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static void report(const char *test, int bytes, int iters, double *t, int reps) {
    qsort(t, reps, sizeof(double), cmp);
    if (rank == 0)
        printf("impl=c test=%s bytes=%d iters=%d min_us=%.4f med_us=%.4f\n", test, bytes, iters, t[0] * 1e6,
               t[reps / 2] * 1e6);
    fflush(stdout);
}

/* one timed repetition of `iters` calls of test at `bytes`; returns seconds per call, slowest rank */
double run(const char *test, int bytes, int iters, float *a, float *b) {
    int n = bytes / 4;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (!strcmp(test, "allreduce")) {
        for (int i = 0; i < iters; i++) MPI_Allreduce(inplace ? MPI_IN_PLACE : a, b, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    } else if (!strcmp(test, "bcast")) {
        for (int i = 0; i < iters; i++) MPI_Bcast(a, n, MPI_FLOAT, 0, MPI_COMM_WORLD);
    } else if (!strcmp(test, "allgather")) {
        int per = n / size > 0 ? n / size : 1;
        for (int i = 0; i < iters; i++) MPI_Allgather(a, per, MPI_FLOAT, b, per, MPI_FLOAT, MPI_COMM_WORLD);
    } else if (!strcmp(test, "latency")) {
        for (int i = 0; i < iters; i++) {
            if (rank == 0) {
                MPI_Send(a, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(b, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(b, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(a, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
        }
    } else if (!strcmp(test, "bw")) {
        MPI_Request req[WINDOW];
        for (int i = 0; i < iters; i++) {
            if (rank == 0) {
                for (int w = 0; w < WINDOW; w++) MPI_Isend(a, bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req[w]);
                MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
                MPI_Recv(b, 4, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                for (int w = 0; w < WINDOW; w++) MPI_Irecv(b, bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &req[w]);
                MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
                MPI_Send(a, 4, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
            }
        }
    }
    double t = MPI_Wtime() - t0, slowest;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double per = !strcmp(test, "latency") ? 2.0 * iters : !strcmp(test, "bw") ? (double) WINDOW * iters : iters;
    return slowest / per;
}

#ifdef OSU_LIB
/*
 * Built as a library (-DOSU_LIB -shared), MpiBench calls this between its own repetitions, in the same process and
 * at the same moment, so that every Java repetition has a C repetition next to it (paired ratios survive a machine
 * whose load changes from second to second). MPI is initialised by the caller.
 */
double osu_loop(const char *test, int bytes, int iters) {
    static float *a, *b;
    if (!a) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        size_t max = (size_t) SIZES[NSIZES - 1] * (size > 1 ? size : 1);
        a = aligned_alloc(64, max);
        b = aligned_alloc(64, max);
        for (size_t i = 0; i < max / 4; i++) a[i] = 1.0f, b[i] = 0.0f;
    }
    return run(test, bytes, iters, a, b);
}

/* The same loop on the caller's buffers (e.g. a Java program's direct buffers): with osu_loop it tells the binding's
 * cost (same memory) from the memory's (same loop). */
double osu_loop_on(const char *test, int bytes, int iters, float *a, float *b) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return run(test, bytes, iters, a, b);
}
#else
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    int maxBytes = argc > 4 ? atoi(argv[4]) : SIZES[NSIZES - 1];
    int minBytes = argc > 5 ? atoi(argv[5]) : 0;
    char tests[256];
    snprintf(tests, sizeof tests, "%s", argc > 3 ? argv[3] : "allreduce,bcast,allgather,latency,bw");
    size_t max = (size_t) SIZES[NSIZES - 1] * (size > 1 ? size : 1);
    /* OSU_OFFSETS=A,B: the buffers start A and B bytes past a 4 KiB boundary instead of on it (e.g. 40,56: where a
     * JVM's two freshly allocated float[] of 1 MiB lie, 8 mod 16), to tell the cost of placement from a binding's */
    int offA = 0, offB = 0;
    inplace = getenv("OSU_INPLACE") != NULL && atoi(getenv("OSU_INPLACE")) != 0;
    const char *offsets = getenv("OSU_OFFSETS");
    if (offsets) sscanf(offsets, "%d,%d", &offA, &offB);
    char *ra = aligned_alloc(4096, max + 4096), *rb = aligned_alloc(4096, max + 4096);
    float *a = (float *) (ra + offA), *b = (float *) (rb + offB);
    for (size_t i = 0; i < max / 4; i++) a[i] = 1.0f, b[i] = 0.0f;
    double *t = malloc(sizeof(double) * reps);
    for (char *test = strtok(tests, ","); test; test = strtok(NULL, ",")) {
        int p2p = !strcmp(test, "latency") || !strcmp(test, "bw");
        if (p2p && size < 2) continue;
        for (int s = 0; s < NSIZES; s++) {
            int bytes = SIZES[s];
            if ((!strcmp(test, "bw") && bytes > 1048576) || bytes > maxBytes || bytes < minBytes) continue;
            int iters = (int) (ITERS[s] * scale) + 1;
            if (!strcmp(test, "bw")) iters = iters / 16 + 1;
            run(test, bytes, iters / 5 + 10, a, b); /* warm-up */
            for (int r = 0; r < reps; r++) t[r] = run(test, bytes, iters, a, b);
            report(test, bytes, iters, t, reps);
        }
    }
    free(t);
    free(ra);
    free(rb);
    MPI_Finalize();
    return 0;
}
#endif
