#!/bin/bash
# bench/ulfm.sh [RUNS] [SIZES] — recovery from a SIGKILLed rank on Open MPI 5.0.7 (the trixie test root):
# shrink (ULFM, `mpirun --with-ft ulfm`: the survivors revoke, shrink, restore the last commit and go on in the same
# processes) against relaunch (the job ends, a new mpirun of the survivors' size restores the last commit from the
# node store), at 2, 4 and 8 ranks by default (SIZES, e.g. "2 4").
#
# Both sides run org.troika.worker.elastic.it.ShrinkRankMain (an allreduce and a commit per step, no sleep); the
# last rank SIGKILLs itself at step 20 and prints the time just before. Time = from that SIGKILL to the last survivor
# completing its first step after recovery (shrink: the first step at the smaller size; relaunch: the first step of
# the new mpirun). Runs interleave the two sides; prints medians and the shrink/relaunch ratio.
# The relaunch side is a lower bound of troika's relaunch: no driver, no discovery, no relay start (with troika,
# `bench/elastic-e2e.sh` measures those too), so the ratio favours relaunch.
# Needs root, the Open MPI 5 root (scripts/openmpi5-root.sh) and: mvn -o -q install -DskipTests && mvn -o -q
# test-compile -pl worker
set -euo pipefail
runs=${1:-5}
sizes=${2:-"2 4 8"}
root=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$root"

if [ "${ULFM_BENCH_INSIDE:-}" != 1 ]; then
  [ -f worker/target/test-classes/org/troika/worker/elastic/it/ShrinkRankMain.class ] || {
    echo "bench: build first: mvn -o -q install -DskipTests && mvn -o -q test-compile -pl worker" >&2; exit 2; }
  m2=${M2_REPO:-$HOME/.m2/repository}
  v=0.1.0-SNAPSHOT
  jna=$(sed -n 's:.*<jna.version>\(.*\)</jna.version>.*:\1:p' pom.xml)
  work=$(mktemp -d /tmp/troika-ulfm-bench.XXXXXX)
  trap 'rm -rf "$work"' EXIT
  mkdir "$work/lib"
  for jar in "$m2/org/troika/troika-mpi/$v/troika-mpi-$v.jar" "$m2/org/troika/troika-common/$v/troika-common-$v.jar" \
             "$m2/net/java/dev/jna/jna/$jna/jna-$jna.jar"; do
    [ -f "$jar" ] || { echo "bench: $jar missing; mvn -o -q install -DskipTests" >&2; exit 2; }
    cp "$jar" "$work/lib/"   # /tmp is visible inside the root, the Maven repository may not be
  done
  echo "ULFM recovery benchmark: $runs runs per size, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  # one entry into the root for the whole benchmark (org.troika.testkit.OpenMpi5Root: private mounts, chroot)
  ULFM_BENCH_INSIDE=1 ULFM_BENCH_WORK="$work" ULFM_BENCH_RUNS="$runs" ULFM_BENCH_SIZES="$sizes" \
    java -cp testkit/target/classes org.troika.testkit.OpenMpi5Root bash "$root/bench/ulfm.sh"
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi

# ---- inside the root
work=$ULFM_BENCH_WORK
runs=$ULFM_BENCH_RUNS
sizes=$ULFM_BENCH_SIZES
cp="$root/worker/target/test-classes:$root/worker/target/classes:$(ls "$work"/lib/*.jar | tr '\n' ':')"
java=/usr/lib/jvm/java-21-openjdk-amd64/bin/java
KILL_AT=20
LAST=400
# rank NP [MPIRUN_ARGS...] -- ARGS: one mpirun of ShrinkRankMain; prints its output (failures are expected)
job() {
  local np=$1; shift
  local ft=()
  while [ "$1" != -- ]; do ft+=("$1"); shift; done
  shift
  timeout -k 5 300 mpirun "${ft[@]}" --allow-run-as-root --bind-to none --oversubscribe -np "$np" "$java" \
    -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto -cp "$cp" org.troika.worker.elastic.it.ShrinkRankMain \
    "$@" </dev/null 2>&1 || true
}
kill_ms() { sed -n 's/^rank [0-9]* kill-ms=\([0-9]*\)$/\1/p' | head -n 1; }
# the last survivor's first completed step at SIZE: max over ranks of each rank's first "step=K size=SIZE" time
first_step_ms() {
  # lines: rank W step=K size=S ms=T
  awk -v size="$1" '$1 == "rank" && $3 ~ /^step=/ && $4 == "size=" size {
      r = $2; if (!(r in first)) { split($5, a, "="); first[r] = a[2] } }
    END { m = 0; for (r in first) if (first[r] > m) m = first[r]; print m }'
}
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }

shrink_ms() {
  local np=$1 dir=$work/s-$1-$2 out k f
  out=$(job "$np" --with-ft ulfm -- "$dir" j "$LAST" "$((np - 1))@$KILL_AT" 1 0)
  k=$(echo "$out" | kill_ms)
  f=$(echo "$out" | first_step_ms $((np - 1)))
  [ -n "$k" ] && [ "$f" -gt 0 ] || { echo "bench: shrink run failed:" >&2; echo "$out" >&2; exit 1; }
  echo $((f - k))
}
relaunch_ms() {
  local np=$1 dir=$work/r-$1-$2 out k f
  out=$(job "$np" -- "$dir" j "$LAST" "$((np - 1))@$KILL_AT" 1 0)
  k=$(echo "$out" | kill_ms)
  out=$(job $((np - 1)) -- "$dir" j "$LAST" - 1 0)
  f=$(echo "$out" | first_step_ms $((np - 1)))
  [ -n "$k" ] && [ "$f" -gt 0 ] || { echo "bench: relaunch run failed:" >&2; echo "$out" >&2; exit 1; }
  echo $((f - k))
}

shrink_ms 2 warm >/dev/null
for np in $sizes; do
  s=() r=()
  for ((i = 0; i < runs; i++)); do
    s+=("$(shrink_ms "$np" "$i")")
    r+=("$(relaunch_ms "$np" "$i")")
  done
  ms=$(printf '%s\n' "${s[@]}" | median)
  mr=$(printf '%s\n' "${r[@]}" | median)
  echo "  np=$np  SIGKILL -> first step after recovery: shrink ${ms} ms   relaunch ${mr} ms   shrink/relaunch $(awk -v a="$ms" -v b="$mr" 'BEGIN{printf "%.3f", a/b}')   (shrink runs: ${s[*]}; relaunch: ${r[*]})"
done
