#!/bin/bash
# bench/output.sh [RUNS] — troika's output pipeline against plain mpirun, in one script run.
#
# Two rank programs (C, no MPI needed): `lines N` prints N lines of 60 bytes through stdio (4 KiB writes, so Open MPI
# tags them mid-line), `longline N` prints one line of N bytes. For each case the exact mpirun command troika plans
# (`troika run --dry-run`, last line) runs directly and through `troika run`, interleaved, RUNS times each (default 5),
# stdout and stderr to /dev/null; the medians of the wall times are printed with the ratio troika / mpirun.
#
#   lines    2 ranks x 200,000 lines of 60 B    target: troika <= 1.2 x mpirun
#   longline 1 rank, one line of 1,000,000 B    target: troika <= 2 x mpirun + 0.5 s
# each as plain `troika run`, with `--output-filename DIR` and with the hang watchdog on (`--hang-timeout 600`).
# `true` (2 ranks, no output) is run the same way to show the fixed start-up cost of the JVM in front of mpirun;
# "net" is troika's time minus that start-up difference, the pipeline's own share.
# Needs the built distribution (mvn -o -q install -DskipTests), gcc and Open MPI's mpirun (TROIKA_MPIRUN to choose).
# Prints the load average before and after: on a shared machine read the ratios, not the times.
set -euo pipefail
runs=${1:-5}
root=$(cd "$(dirname "$0")/.." && pwd -P)
troika="$root/dist/target/troika/bin/troika"
[ -x "$troika" ] || { echo "bench: $troika missing; build first: mvn -o -q install -DskipTests" >&2; exit 2; }
command -v gcc >/dev/null || { echo "bench: gcc is needed to build the rank programs" >&2; exit 2; }
export OMPI_MCA_hwloc_base_binding_policy=none
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

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
# run_one CMD...: runs CMD with output to /dev/null, prints its wall time in ms; fails the bench if CMD fails
run_one() {
  local t0 t1
  t0=$(now_ns)
  "$@" </dev/null >/dev/null 2>"$work/err" || { echo "bench: failed: $*" >&2; tail -5 "$work/err" >&2; exit 1; }
  t1=$(now_ns)
  echo $(( (t1 - t0) / 1000000 ))
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
  run_one "${baseline[@]}" >/dev/null # warm the page cache
  for ((i = 0; i < runs; i++)); do
    run_one "${baseline[@]}" >>"$work/$name.mpirun"
    run_one "$troika" run -np "$np" "$@" >>"$work/$name.troika"
    rm -rf "$work/files"
    run_one "$troika" run --output-filename "$work/files" -np "$np" "$@" >>"$work/$name.files"
    run_one "$troika" run --hang-timeout 600 -np "$np" "$@" >>"$work/$name.watchdog"
  done
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
bench_case true 2 true
bench_case lines 2 "$work/lines" 200000
bench_case longline 1 "$work/longline" 1000000
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

m() { median <"$work/$1"; }
startup=$(( $(m true.troika) - $(m true.mpirun) ))
echo "output benchmark: $runs interleaved runs each, median wall ms; load average before $load_before, after $load_after"
echo "  start-up (true, 2 ranks): mpirun $(m true.mpirun), troika $(m true.troika): $startup ms in front of mpirun"
printf '  %-9s %-22s %8s %8s %9s   %s\n' case mode mpirun troika ratio "net of start-up"
for name in lines longline; do
  for mode in troika files watchdog; do
    label=$mode; [ "$mode" = troika ] && label="troika run"
    [ "$mode" = files ] && label="--output-filename"
    [ "$mode" = watchdog ] && label="--hang-timeout 600"
    mb=$(m "$name.mpirun"); mt=$(m "$name.$mode")
    net=$(( mt - startup ))
    if [ "$name" = lines ]; then
      target="ratio <= 1.2: $(awk -v a="$mt" -v b="$mb" 'BEGIN{print (a <= 1.2*b) ? "met" : "missed"}')"
      target="$target; net $(awk -v a="$net" -v b="$mb" 'BEGIN{printf "%.2f", a/b}')x"
    else
      target="<= 2 x mpirun + 500 ms: $(awk -v a="$mt" -v b="$mb" 'BEGIN{print (a <= 2*b + 500) ? "met" : "missed"}')"
    fi
    printf '  %-9s %-22s %8s %8s %9s   %s\n' "$name" "$label" "$mb" "$mt" \
      "$(awk -v a="$mt" -v b="$mb" 'BEGIN{printf "%.2f", a/b}')" "$target"
  done
done
