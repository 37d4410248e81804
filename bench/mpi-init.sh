#!/usr/bin/env bash
# bench/mpi-init.sh [RUNS] — what Open MPI's cm PML probe costs each rank, and what troika-rankenv saves by leaving cm
# out where the host has no PSM/PSM2/OFI hardware (issue 14). Runs, interleaved, RUNS times each (default 15):
#   baseline: mpirun -np 2 bin/troika-rankenv ./init-probe   with TROIKA_OMPI_PML_AUTO=0 (Open MPI's own choice)
#   troika:   the same with the default (cm left out where nothing needs it)
# init-probe is a C program that reports how long MPI_Init took; prints the medians of MPI_Init (rank 0) and of the
# whole mpirun wall time, and the ratios troika/baseline. Needs Open MPI's mpicc and `make build`.
set -euo pipefail
RUNS=${1:-15}
HERE=$(cd "$(dirname "$0")/.." && pwd)
TROIKA_HOME=${TROIKA_HOME:-$HERE/dist/target/troika}
[ -x "$TROIKA_HOME/bin/troika-rankenv" ] || { echo "bench: build first (make build)" >&2; exit 2; }
command -v mpicc >/dev/null || { echo "bench: needs Open MPI's mpicc (make setup)" >&2; exit 2; }
WORK=$(mktemp -d /tmp/troika-bench-init.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cat > "$WORK/init-probe.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
int main(int argc, char **argv) {
    double t0 = now();
    MPI_Init(&argc, &argv);
    double t1 = now();
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("init_ms %.0f\n", t1 - t0);
    MPI_Finalize();
    return 0;
}
C
mpicc -o "$WORK/init-probe" "$WORK/init-probe.c"
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
now() { date +%s%3N; }
one() { # $1 = TROIKA_OMPI_PML_AUTO value; prints "init_ms wall_ms"
  local t i
  t=$(now)
  i=$(TROIKA_OMPI_PML_AUTO=$1 mpirun --bind-to none -np 2 -H localhost:2 "$TROIKA_HOME/bin/troika-rankenv" \
      "$WORK/init-probe" | sed -n 's/^init_ms //p')
  echo "$i $(( $(now) - t ))"
}
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }
: > "$WORK/base"; : > "$WORK/troika"
for ((r = 0; r < RUNS; r++)); do one 0 >> "$WORK/base"; one 1 >> "$WORK/troika"; done
bi=$(cut -d' ' -f1 "$WORK/base" | median); bw=$(cut -d' ' -f2 "$WORK/base" | median)
ti=$(cut -d' ' -f1 "$WORK/troika" | median); tw=$(cut -d' ' -f2 "$WORK/troika" | median)
echo "MPI_Init benchmark: $RUNS interleaved runs each, medians, 2 ranks on localhost ($(mpirun --version | head -n 1));" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '  %-44s MPI_Init %5s ms   mpirun wall %5s ms\n' "Open MPI's choice (TROIKA_OMPI_PML_AUTO=0)" "$bi" "$bw"
printf '  %-44s MPI_Init %5s ms   mpirun wall %5s ms\n' "troika-rankenv default (cm left out)" "$ti" "$tw"
awk -v bi="$bi" -v ti="$ti" -v bw="$bw" -v tw="$tw" \
  'BEGIN {printf "  ratio troika/baseline: MPI_Init %.2f, wall %.2f (saved %d ms per job start)\n", ti / bi, tw / bw, bw - tw}'
