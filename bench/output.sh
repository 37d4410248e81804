#!/bin/bash
# bench/output.sh [RUNS] — troika's output pipeline against plain mpirun, in one script run.
#
# Two rank programs (C, no MPI needed): `lines N` prints N lines of 60 bytes through stdio (4 KiB writes, so Open MPI
# tags them mid-line), `longline N` prints one line of N bytes. For each case the exact mpirun command troika plans
# (`troika run --dry-run`, last line) runs directly and through `troika run`, interleaved, RUNS times each (default 5),
# stdout and stderr to /dev/null; the medians of the wall times are printed with the ratio troika / mpirun, and the
# medians of the CPU time of each whole process tree (user + sys, bash's `time`), steadier on a loaded machine.
#
#   lines     2 ranks x 200,000 lines of 60 B    target: troika <= 1.2 x mpirun
#   line64k   1 rank, one line of 65,536 B        (issue 22: 68 s before the byte pipeline)
#   line300k  1 rank, one line of 300,000 B       (issue 22: not out after 60 s before)
#   line1m    1 rank, one line of 1,000,000 B     target: troika <= 2 x mpirun + 0.5 s (all long lines)
# each as plain `troika run`, with `--output-filename DIR` and with the hang watchdog on (`--hang-timeout 600`).
# `mpirun | cat` is the reference for what mpirun itself pays for writing into a pipe (as it does into troika): Open
# MPI 5's prterun spends ~0.5 s more CPU on the lines case then, whoever reads; "vs | cat" is troika over that.
# `true` (2 ranks, no output) is run the same way to show the fixed start-up cost of the JVM in front of mpirun;
# "net" is troika's wall (CPU) time minus that start-up difference, the pipeline's own share, over mpirun's.
# Needs the built distribution (mvn -o -q install -DskipTests) and gcc. The MPI is troika's (TROIKA_MPIRUN, default
# mpirun from PATH: Open MPI 4.1.4 here); TROIKA_MPIRUN=mpirun.mpich runs the same cases on MPICH's Hydra, and
# OUTPUT_BENCH_MPI=openmpi5 runs the whole script (troika, mpirun and the rank programs) inside the Open MPI 5.0.7
# root (scripts/openmpi5-root.sh; as root, through org.troika.testkit.OpenMpi5Root: needs testkit/target/classes),
# with a copy of the distribution whose class-data archive troika-mkcds made for the root's JDK.
# COMPARE=<other checkout>/dist/target/troika adds that build's plain `troika run` (COMPARE_RUNS runs per case,
# default 1, each cut at COMPARE_CAP seconds, default 90: the build before the byte pipeline needed minutes for one
# long line), to show before and after in the same script run.
# OUTPUT_CASES="lines line1m" runs only those cases (the start-up case always runs).
# Prints the load average before and after: on a shared machine read the ratios, not the times.
set -euo pipefail
runs=${1:-5}
all_cases="lines line64k line300k line1m"
cases=${OUTPUT_CASES:-$all_cases}
for name in $cases; do
  case " $all_cases " in
    *" $name "*) ;;
    *) echo "bench: unknown case '$name' in OUTPUT_CASES: use some of: $all_cases" >&2; exit 2 ;;
  esac
done
root=$(cd "$(dirname "$0")/.." && pwd -P)
troika="$root/dist/target/troika/bin/troika"
if [ "${OUTPUT_BENCH_MPI:-}" = openmpi5 ] && [ -z "${OUTPUT_BENCH_INSIDE:-}" ]; then
  [ "$(id -u)" = 0 ] || { echo "bench: the Open MPI 5 root needs root (private mounts, chroot)" >&2; exit 2; }
  [ -d "$root/testkit/target/classes" ] || { echo "bench: build testkit first: mvn -o -q install -DskipTests" >&2; exit 2; }
  cd "$root"
  OUTPUT_BENCH_INSIDE=1 exec java -cp testkit/target/classes org.troika.testkit.OpenMpi5Root bash "$root/bench/output.sh" "$runs"
fi
[ -x "$troika" ] || { echo "bench: $troika missing; build first: mvn -o -q install -DskipTests" >&2; exit 2; }
command -v gcc >/dev/null || { echo "bench: gcc is needed to build the rank programs" >&2; exit 2; }
export OMPI_MCA_hwloc_base_binding_policy=none
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
compare=${COMPARE:-}
compare_runs=${COMPARE_RUNS:-1}
cap=${COMPARE_CAP:-90}
[ -z "$compare" ] || [ -x "$compare/bin/troika" ] || { echo "bench: COMPARE=$compare has no bin/troika" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${OUTPUT_BENCH_INSIDE:-}" ]; then
  # the root's JDK is not the build's: the distribution's class-data archive is for the build's JVM and is not used
  # here (bin/troika checks lib/troika.jsa.jvm). A site with this JDK runs troika-mkcds once after installing; so does
  # the bench, on a copy of the distribution
  cp -a "$root/dist/target/troika" "$work/dist"
  "$work/dist/bin/troika-mkcds" >/dev/null 2>&1 || echo "bench: troika-mkcds failed in the root; troika starts uncached" >&2
  troika="$work/dist/bin/troika"
fi

cat >"$work/lines.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    long n = atol(argv[1]);
    for (long i = 0; i < n; i++) {
        printf("line %010ld of the output benchmark, sixty bytes.....\n", i); /* 59 characters + \n */
    }
    return 0;
}
EOF
cat >"$work/longline.c" <<'EOF'
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
    long n = atol(argv[1]);
    char *b = malloc(n);
    memset(b, 'x', n - 1);
    b[n - 1] = '\n';
    for (long off = 0; off < n;) {
        ssize_t w = write(1, b + off, n - off);
        if (w <= 0) return 1;
        off += w;
    }
    return 0;
}
EOF
gcc -O2 -o "$work/lines" "$work/lines.c"
gcc -O2 -o "$work/longline" "$work/longline.c"

now_ns() { date +%s%N; }
# run_one FILE LIMIT CMD...: runs CMD with output to /dev/null, cut at LIMIT seconds; appends its wall time in ms to
# FILE and the CPU time of its process tree (user + sys of the waited-for processes, from bash's `time`, which the
# Open MPI 5 root has where it has no /usr/bin/time) to FILE.cpu. A run cut at the limit counts as the limit (printed
# as ">="); any other failure fails the bench.
run_one() {
  local file=$1 limit=$2 t0 t1 rc=0 TIMEFORMAT='%3U %3S'; shift 2
  t0=$(now_ns)
  { time timeout -k 5 "$limit" "$@" </dev/null >/dev/null 2>"$work/err"; } 2>"$work/t" || rc=$?
  t1=$(now_ns)
  if [ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$rc" != 137 ]; then
    echo "bench: failed (exit $rc): $*" >&2; tail -5 "$work/err" >&2; exit 1
  fi
  if [ "$rc" = 0 ]; then echo $(( (t1 - t0) / 1000000 )) >>"$file"; else echo $((limit * 1000)) >>"$file"; fi
  if [ "$rc" = 0 ]; then awk 'END {printf "%d\n", ($1 + $2) * 1000}' "$work/t" >>"$file.cpu"
  else echo -1 >>"$file.cpu"; fi # no CPU time of a run that was cut
}
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }
# plan NP CMD...: the mpirun argv troika plans for CMD, into the array "baseline"
plan() {
  local p
  p=$("$troika" run --dry-run -np "$@" | tail -n 1)
  case "$p" in *mpirun*) ;; *) echo "bench: unexpected dry-run output: $p" >&2; exit 1 ;; esac
  eval "baseline=($p)"
}

# case NAME NP CMD...: interleaved runs of mpirun, troika, troika --output-filename, troika --hang-timeout
bench_case() {
  local name=$1 np=$2; shift 2
  plan "$np" "$@"
  run_one "$work/warm" 600 "${baseline[@]}" # warm the page cache
  for ((i = 0; i < runs; i++)); do
    run_one "$work/$name.mpirun" 600 "${baseline[@]}"
    run_one "$work/$name.cat" 600 sh -c '"$@" | cat' sh "${baseline[@]}"
    run_one "$work/$name.troika" 600 "$troika" run -np "$np" "$@"
    rm -rf "$work/files"
    run_one "$work/$name.files" 600 "$troika" run --output-filename "$work/files" -np "$np" "$@"
    run_one "$work/$name.watchdog" 600 "$troika" run --hang-timeout 600 -np "$np" "$@"
    if [ -n "$compare" ] && ((i < compare_runs)); then
      run_one "$work/$name.compare" "$cap" "$compare/bin/troika" run -np "$np" "$@"
    fi
  done
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
bench_case true 2 true
for name in $cases; do
  case $name in
    lines) bench_case lines 2 "$work/lines" 200000 ;;
    line64k) bench_case line64k 1 "$work/longline" 65536 ;;
    line300k) bench_case line300k 1 "$work/longline" 300000 ;;
    line1m) bench_case line1m 1 "$work/longline" 1000000 ;;
  esac
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

m() { median <"$work/$1"; }
startup=$(( $(m true.troika) - $(m true.mpirun) ))
startup_cpu=$(( $(m true.troika.cpu) - $(m true.mpirun.cpu) ))
echo "output benchmark: ${baseline[0]} ($(basename "$(readlink -f "$(command -v "${baseline[0]}")")")), $runs interleaved runs each, median wall ms"
echo "  load average before $load_before, after $load_after ($(nproc) cores)"
echo "  start-up (true, 2 ranks): mpirun $(m true.mpirun), troika $(m true.troika): $startup ms in front of mpirun;" \
  "CPU mpirun $(m true.mpirun.cpu), troika $(m true.troika.cpu) ms"
echo "  wall ms (ratio: troika / mpirun), CPU ms of the whole process tree (user + sys), target; net: troika's wall"
echo "  and CPU time minus the start-up difference (the pipeline's own share) over mpirun's"
printf '  %-9s %-22s %8s %8s %6s %8s %8s   %s\n' case mode mpirun troika ratio "cpu mpi" "cpu tro" "target; net"
for name in $cases; do
  modes="cat troika files watchdog"; [ -n "$compare" ] && modes="$modes compare"
  for mode in $modes; do
    label=$mode; [ "$mode" = troika ] && label="troika run"
    [ "$mode" = files ] && label="--output-filename"
    [ "$mode" = watchdog ] && label="--hang-timeout 600"
    [ "$mode" = compare ] && label="COMPARE (${compare_runs} run)"
    [ "$mode" = cat ] && label="mpirun | cat"
    mb=$(m "$name.mpirun"); mt=$(m "$name.$mode")
    net=$(( mt - startup ))
    shown=$mt; [ "$mode" = compare ] && [ "$mt" -ge $((cap * 1000)) ] && shown=">=$mt"
    if [ "$mode" = cat ]; then
      target="reference: mpirun writing into a pipe, as into troika's"
    elif [ "$name" = lines ]; then
      target="ratio <= 1.2: $(awk -v a="$mt" -v b="$mb" 'BEGIN{print (a <= 1.2*b) ? "met" : "missed"}')"
    else
      target="<= 2 x mpirun + 500 ms: $(awk -v a="$mt" -v b="$mb" 'BEGIN{print (a <= 2*b + 500) ? "met" : "missed"}')"
    fi
    [ "$mode" = cat ] || target="$target; net $(awk -v a="$net" -v b="$mb" 'BEGIN{printf "%.2f", a/b}')x, vs | cat $(awk -v a="$mt" -v b="$(m "$name.cat")" 'BEGIN{printf "%.2f", a/b}')x"
    ct=$(m "$name.$mode.cpu"); cb=$(m "$name.mpirun.cpu")
    if [ "$mode" != cat ] && [ "$ct" -ge 0 ] && [ "$cb" -gt 0 ]; then
      target="$target, CPU net $(awk -v a="$((ct - startup_cpu))" -v b="$cb" 'BEGIN{printf "%.2f", a/b}')x"
    fi
    printf '  %-9s %-22s %8s %8s %6s %8s %8s   %s\n' "$name" "$label" "$mb" "$shown" \
      "$(awk -v a="$mt" -v b="$mb" 'BEGIN{printf "%.2f", a/b}')" "$(m "$name.mpirun.cpu")" "$(m "$name.$mode.cpu")" \
      "$target"
  done
done
