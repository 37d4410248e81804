#!/bin/bash
# bench/startup.sh [RUNS] — troika's start-up overhead over running the same mpirun command directly.
#
# Runs, interleaved (so load from other work hits both sides alike), RUNS times each (default 20):
#   baseline: the mpirun command troika plans for `-np 2 true` (from `troika run --dry-run`), run directly
#   troika:   dist/target/troika/bin/troika run -np 2 true
#   version:  troika --version (JVM start + CLI, no planning)
# and prints the medians of wall time and of CPU time (user+sys of the whole process tree, from /usr/bin/time,
# 10 ms resolution), the overhead troika - mpirun and the ratio troika / mpirun. On a loaded machine wall times
# stretch with the load; the CPU times and the ratio move much less. Target: overhead <= 100 ms (wall, quiet machine).
# Needs the built distribution (mvn -o -q install -DskipTests); makes the AppCDS archive if it is missing.
# COMPARE=DIR (another build's dist/target/troika, e.g. of main) adds its `troika run` to the same interleaving.
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
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
have_time=; [ -x /usr/bin/time ] && have_time=1
# run_one CMD...: runs CMD quietly, prints "wall_ms cpu_ms" (cpu -1 without /usr/bin/time); fails the bench if CMD fails
run_one() {
  local t0 t1 cpu=-1
  t0=$(now_ns)
  if [ -n "$have_time" ]; then
    /usr/bin/time -f '%U %S' -o "$work/t" "$@" </dev/null >/dev/null 2>"$work/err" || { echo "bench: failed: $*" >&2; cat "$work/err" >&2; exit 1; }
  else
    "$@" </dev/null >/dev/null 2>"$work/err" || { echo "bench: failed: $*" >&2; cat "$work/err" >&2; exit 1; }
  fi
  t1=$(now_ns)
  [ -n "$have_time" ] && cpu=$(awk 'END {printf "%d", ($1 + $2) * 1000}' "$work/t")
  echo "$(( (t1 - t0) / 1000000 )) $cpu"
}
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }
col() { cut -d' ' -f"$1" "$work/$2" | median; }

# warm the page cache for both sides
run_one "${baseline[@]}" >/dev/null; run_one "$troika" run -np 2 true >/dev/null
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for ((i = 0; i < runs; i++)); do
  run_one "${baseline[@]}" >>"$work/base"
  run_one "$troika" run -np 2 true >>"$work/troika"
  run_one "$troika" --version >>"$work/version"
  if [ -n "${COMPARE:-}" ]; then run_one "$COMPARE/bin/troika" run -np 2 true >>"$work/compare"; fi
done
mb=$(col 1 base); mt=$(col 1 troika); mver=$(col 1 version)
cb=$(col 2 base); ct=$(col 2 troika); cv=$(col 2 version)
echo "startup benchmark: $runs interleaved runs each, medians; load average before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg)"
printf '  %-18s %8s %8s\n' "" "wall ms" "cpu ms"
printf '  %-18s %8s %8s   (%s ...)\n' "mpirun directly" "$mb" "$cb" "${baseline[*]:0:6}"
printf '  %-18s %8s %8s\n' "troika run" "$mt" "$ct"
printf '  %-18s %8s %8s\n' "troika --version" "$mver" "$cv"
if [ -n "${COMPARE:-}" ]; then
  printf '  %-18s %8s %8s   (%s; overhead %s ms wall)\n' "compare: run" "$(col 1 compare)" "$(col 2 compare)" \
    "$COMPARE" "$(( $(col 1 compare) - mb ))"
fi
printf '  %-18s %8s %8s   (target: wall <= 100 ms)\n' "overhead" "$((mt - mb))" "$((ct - cb))"
echo "  ratio troika/mpirun: wall $(awk -v a="$mt" -v b="$mb" 'BEGIN{printf "%.2f", a/b}'), cpu $(awk -v a="$ct" -v b="$cb" 'BEGIN{printf "%.2f", (b > 0 ? a/b : 0)}')"
