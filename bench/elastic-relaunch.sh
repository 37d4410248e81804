#!/bin/bash
# bench/elastic-relaunch.sh [RUNS] [WEIGHTS] — cost of starting an elastic generation that restores committed state,
# against a fresh start, at 2, 4 and 8 ranks (Open MPI, one machine, 2 ranks per fake host).
#
# Per run and rank count, interleaved (so load from other work hits both sides alike):
#   fresh:    mpirun of generation 1 with an empty node store (JVM start + MPI_Init + sync of the initial state)
#   relaunch: mpirun of generation 2 over the store generation 1 left (load the node copy on rank 0, reset
#             callbacks, MPI broadcast of the committed state to every rank)
# Time = from starting mpirun to the last rank entering the training body (its "first-step-ms" line).
# Prints medians and relaunch/fresh ratios. WEIGHTS = doubles in the state (default 1048576 = 8 MiB).
# This is the relaunch part of "discovery change -> first step of the next generation"; the end-to-end number
# adds the discovery interval (1 s poll), the ranks reaching their next commit, and mpirun's teardown.
# Needs: mvn -o -q install -pl common,native-mpi -DskipTests && mvn -o -q test-compile -pl worker
set -euo pipefail
runs=${1:-5}
weights=${2:-1048576}
root=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$root"
[ -f worker/target/test-classes/org/troika/worker/elastic/it/ElasticRankMain.class ] || {
  echo "bench: build first: mvn -o -q test-compile -pl worker" >&2; exit 2; }
# class path: worker's classes + the installed troika-mpi/troika-common jars + JNA (version from the root pom)
m2=${M2_REPO:-$HOME/.m2/repository}
v=0.1.0-SNAPSHOT
jna=$(sed -n 's:.*<jna.version>\(.*\)</jna.version>.*:\1:p' pom.xml)
cp="$root/worker/target/test-classes:$root/worker/target/classes"
for jar in "$m2/org/troika/troika-mpi/$v/troika-mpi-$v.jar" "$m2/org/troika/troika-common/$v/troika-common-$v.jar" \
           "$m2/net/java/dev/jna/jna/$jna/jna-$jna.jar"; do
  [ -f "$jar" ] || { echo "bench: $jar missing; mvn -o -q install -pl common,native-mpi -DskipTests" >&2; exit 2; }
  cp="$cp:$jar"
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_MCA_hwloc_base_binding_policy=none
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
java="$(dirname "$(readlink -f "$(command -v java)")")/java"

hosts_for() { local n=$1 i out=(); for ((i = 0; i < n; i++)); do out+=("h$((i / 2))"); done; (IFS=,; echo "${out[*]}"); }
# gen_ms NP GENERATION JOB: runs one generation, prints ms from mpirun start to the last rank's first step
gen_ms() {
  local np=$1 gen=$2 job=$3 t0 out last
  t0=$(date +%s%3N)
  out=$(timeout -k 5 300 mpirun --oversubscribe -np "$np" "$java" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
        -Xshare:auto -cp "$cp" org.troika.worker.elastic.it.ElasticRankMain "$work" "$job" "$gen" \
        "$(hosts_for "$np")" "$gen" 0 "$weights" </dev/null 2>&1) || { echo "bench: generation failed:" >&2; echo "$out" >&2; exit 1; }
  last=$(echo "$out" | sed -n 's/.*first-step-ms=\([0-9]*\).*/\1/p' | sort -n | tail -n 1)
  [ "$(echo "$out" | grep -c 'first-step-ms=')" = "$np" ] || { echo "bench: missing ranks:" >&2; echo "$out" >&2; exit 1; }
  echo $((last - t0))
}
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }

gen_ms 2 1 warm >/dev/null
echo "elastic relaunch benchmark: $runs runs per size, state $weights doubles, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for np in 2 4 8; do
  fresh=() relaunch=()
  for ((i = 0; i < runs; i++)); do
    job="np$np-run$i"
    fresh+=("$(gen_ms "$np" 1 "$job")")
    relaunch+=("$(gen_ms "$np" 2 "$job")")
  done
  mf=$(printf '%s\n' "${fresh[@]}" | median)
  mr=$(printf '%s\n' "${relaunch[@]}" | median)
  echo "  np=$np  fresh start ${mf} ms   relaunch with state ${mr} ms   ratio $(awk -v a="$mr" -v b="$mf" 'BEGIN{printf "%.2f", a/b}')"
done
