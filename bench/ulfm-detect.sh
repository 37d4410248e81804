#!/usr/bin/env bash
# bench/ulfm-detect.sh [RUNS] [SUBNET] [STEP_MS] [verbose] — issue 21's ULFM missed-failure case: RUNS times (default 20) a 4-rank
# `--fault-tolerance shrink` ElasticTraining job (Open MPI 5.0.7, the trixie test root) on three namespace hosts
# through the relay (slots 2,1,1), rank 3 SIGKILLed at step 50; counts the runs whose survivors recover in place within
# 60 s, and prints the detection latency (kill -> the launcher's "rank 3 ... died" line) and the recovery latency
# (kill -> first commit at size 3) of each run, with the load average. Runs that do not recover leave thread dumps and
# native stacks in the work folder. The hosts are testkit's NetnsCluster (MachineLock per subnet, default 217).
# TROIKA_HOME: the distribution to run (default dist/target/troika; under /tmp or the checkout: the root sees those).
# Needs root, the Open MPI 5 root and a build: mvn -o -q install -DskipTests && mvn -o -q test-compile -pl integration-tests
set -euo pipefail
RUNS=${1:-20}
SUBNET=${2:-217}
STEP_MS=${3:-60}   # ElasticTraining's pause per step (the tests' 60; smaller: the kill lands inside collectives more often)
VERBOSE=${4:-}     # "verbose": troika --verbose, so the task services' reports of the dead rank are timed too
HERE=$(cd "$(dirname "$0")/.." && pwd)
cd "$HERE"
. "$HERE/bench/lib/it-bench.sh"
it_bench_prepare UlfmKillBench troika-ulfm-detect
it_bench_cleanup_on_exit
echo "ULFM detection benchmark: $RUNS runs, $STEP_MS ms per step, load average $(cut -d' ' -f1-3 /proc/loadavg), work folder $WORK"
rc=0
it_bench_java UlfmKillBench "$RUNS" "$WORK" "$SUBNET" "$STEP_MS" "$VERBOSE" || rc=$?
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
