#!/bin/bash
# bench/startup.sh [RUNS] — troika's start-up overhead over running the same mpirun command directly.
#
# Runs, interleaved (so load from other work hits both sides alike), RUNS times each (default 20):
#   baseline: the mpirun command troika plans for `-np 2 true` (from `troika run --dry-run`), run directly
#   troika:   dist/target/troika/bin/troika run -np 2 true
# and prints the medians and their difference in milliseconds. Also the median of `troika --version` (pure JVM
# start-up + CLI). Target: overhead <= 100 ms on localhost.
# Needs the built distribution (mvn -o -q install -DskipTests); makes the AppCDS archive if it is missing.
set -euo pipefail
runs=${1:-20}
root=$(cd "$(dirname "$0")/.." && pwd -P)
troika="$root/dist/target/troika/bin/troika"
[ -x "$troika" ] || { echo "bench: $troika missing; build first: mvn -o -q install -DskipTests" >&2; exit 2; }
[ -f "$root/dist/target/troika/lib/troika.jsa" ] || "$root/dist/target/troika/bin/troika-mkcds" >&2 || true
export OMPI_MCA_hwloc_base_binding_policy=none
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# The baseline is exactly what troika would run: its dry-run plan, last line, parsed by the shell.
plan=$("$troika" run --dry-run -np 2 true | tail -n 1)
case "$plan" in
  *mpirun*) ;;
  *) echo "bench: unexpected dry-run output: $plan" >&2; exit 1 ;;
esac
eval "baseline=($plan)"

now_ns() { date +%s%N; }
# time_ms CMD...: runs CMD quietly, prints its wall time in ms; fails the bench if CMD fails
time_ms() {
  local t0 t1
  t0=$(now_ns)
  "$@" </dev/null >/dev/null 2>&1 || { echo "bench: failed: $*" >&2; exit 1; }
  t1=$(now_ns)
  echo $(( (t1 - t0) / 1000000 ))
}
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }

# warm the page cache for both sides
time_ms "${baseline[@]}" >/dev/null; time_ms "$troika" run -np 2 true >/dev/null

base=() ; tro=() ; ver=()
for ((i = 0; i < runs; i++)); do
  base+=("$(time_ms "${baseline[@]}")")
  tro+=("$(time_ms "$troika" run -np 2 true)")
  ver+=("$(time_ms "$troika" --version)")
done
mb=$(printf '%s\n' "${base[@]}" | median)
mt=$(printf '%s\n' "${tro[@]}" | median)
mv=$(printf '%s\n' "${ver[@]}" | median)
echo "startup benchmark: $runs runs each, medians, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  mpirun directly   : ${mb} ms   (${baseline[*]:0:6} ...)"
echo "  troika run        : ${mt} ms"
echo "  troika --version  : ${mv} ms"
echo "  overhead          : $((mt - mb)) ms   (target <= 100 ms)"
