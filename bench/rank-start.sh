#!/bin/bash
# bench/rank-start.sh [RUNS] — what class-data sharing (TROIKA_JAVA_CDS=1, bin/troika-rankenv) saves a Java rank.
#
# Interleaved, RUNS times each (default 15), all through `troika run -np 2` on localhost:
#   floor:  java -version                        (two bare JVM starts: the least any Java rank costs)
#   plain:  a trivial training rank (org.troika.examples.Training, 1 epoch of 64 samples: JNA, MPI_Init, allreduce)
#   cds:    the same with TROIKA_JAVA_CDS=1      (the archive was recorded and promoted by two warm-up runs)
# prints medians of wall and CPU time (user+sys of the whole tree, /usr/bin/time) and the ratios to the floor.
# The cache goes to a temporary TROIKA_CDS_DIR, removed at the end. Needs the built distribution.
set -euo pipefail
runs=${1:-15}
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
source "$ROOT/bench/lib/timed-runs.sh"
timed_runs_prepare
command -v mpirun >/dev/null || { echo "bench: needs mpirun (Open MPI)" >&2; exit 2; }
export OMPI_MCA_hwloc_base_binding_policy=none
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export TROIKA_CDS_DIR="$work/cache"

rank=(java -cp "$lib/*" org.troika.examples.Training --epochs 1 --samples 64 --batches 1)
run_one() { # label, TROIKA_JAVA_CDS value, command...: appends "wall_ms cpu_ms" to $work/label
  local label=$1 cds=$2; shift 2
  timed "$label" env TROIKA_JAVA_CDS="$cds" "$troika" run -np 2 "$@"
}

run_one warm 1 "${rank[@]}"; run_one warm 1 "${rank[@]}"   # records, then promotes and maps the archive
ls "$TROIKA_CDS_DIR"/*.jsa >/dev/null 2>&1 || { echo "bench: no archive was recorded in $TROIKA_CDS_DIR" >&2; exit 1; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for ((i = 0; i < runs; i++)); do
  run_one floor 0 java -version
  run_one plain 0 "${rank[@]}"
  run_one cds 1 "${rank[@]}"
done
echo "rank start-up: troika run -np 2, $runs interleaved runs each, medians; load average before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg)"
printf '  %-28s %8s %8s %12s %12s\n' "" "wall ms" "cpu ms" "wall/floor" "cpu/floor"
fw=$(col 1 floor); fc=$(col 2 floor)
for l in floor plain cds; do
  w=$(col 1 $l); c=$(col 2 $l)
  printf '  %-28s %8s %8s %12s %12s\n' "$l" "$w" "$c" "$(awk -v a="$w" -v b="$fw" 'BEGIN{printf "%.2f", a/b}')" \
    "$(awk -v a="$c" -v b="$fc" 'BEGIN{printf "%.2f", a/b}')"
done
echo "  cds saves: wall $(( $(col 1 plain) - $(col 1 cds) )) ms, cpu $(( $(col 2 plain) - $(col 2 cds) )) ms (2 ranks)"
