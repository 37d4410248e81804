#!/bin/bash
# bench/oversubscribed.sh [RUNS] [NP] [MPI] — what yielding costs or saves Open MPI ranks on a host with more ranks
# than CPUs (bin/troika-rankenv sets OMPI_MCA_mpi_yield_when_idle=1 there; docs/mpirun-flags.md).
#
# Interleaved, RUNS times each (default 3), all `troika run -np NP` on localhost (NP default: this host's CPUs x 3):
#   spin:  TROIKA_YIELD_WHEN_OVERSUBSCRIBED=0 (the ranks busy-poll, as before troika turned yielding on)
#   yield: the default
# with the training example (org.troika.examples.Training --epochs 20 --batches 64: an allreduce per batch), and the
# same pair at NP = the host's CPUs (where the rule does not apply: both must cost the same). Prints medians of wall
# and CPU time (user+sys of the whole tree, /usr/bin/time) and yield/spin ratios. MPI: ompi4 (the host's Open MPI,
# default) or ompi5 (the Open MPI 5 root, bench/mpi/ompi5.bash). Needs the built distribution.
set -euo pipefail
runs=${1:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
source "$ROOT/bench/lib/timed-runs.sh"
timed_runs_prepare
cpus=$(nproc)
np=${2:-$((cpus * 3))}
mpi=${3:-ompi4}
wrap=()
case $mpi in
  ompi4) command -v mpirun >/dev/null || { echo "bench: needs mpirun (Open MPI)" >&2; exit 2; } ;;
  ompi5) wrap=(bash -c 'source "$1"; shift; in_root /work "$@"' _ "$ROOT/bench/mpi/ompi5.bash") ;;
  *) echo "bench: MPI is ompi4 or ompi5, not '$mpi'" >&2; exit 2 ;;
esac

rank=(java -cp "$lib/*" org.troika.examples.Training --epochs 20 --batches 64)
run_one() { # label, yield switch, np: appends "wall_ms cpu_ms" to $work/label
  timed "$1" "${wrap[@]}" env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    TROIKA_YIELD_WHEN_OVERSUBSCRIBED="$2" "$troika" run -np "$3" "${rank[@]}"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for ((i = 0; i < runs; i++)); do
  run_one spin-over 0 "$np"
  run_one yield-over 1 "$np"
  run_one spin-fit 0 "$cpus"
  run_one yield-fit 1 "$cpus"
done
echo "oversubscribed ranks, $mpi, $cpus CPUs, $runs runs each, medians (load $load_before -> $(cut -d' ' -f1-3 /proc/loadavg)):"
for n in over fit; do
  [ $n = over ] && k=$np || k=$cpus
  sw=$(col 1 spin-$n); sc=$(col 2 spin-$n); yw=$(col 1 yield-$n); yc=$(col 2 yield-$n)
  printf '  -np %-3s spin  wall %6d ms  cpu %6d ms\n' "$k" "$sw" "$sc"
  printf '  -np %-3s yield wall %6d ms  cpu %6d ms   yield/spin: wall %s cpu %s\n' "$k" "$yw" "$yc" \
    "$(awk -v a="$yw" -v b="$sw" 'BEGIN {printf "%.2f", a / b}')" "$(awk -v a="$yc" -v b="$sc" 'BEGIN {printf "%.2f", a / b}')"
done
