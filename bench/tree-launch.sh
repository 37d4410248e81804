#!/usr/bin/env bash
# bench/tree-launch.sh [RUNS] [MPIS] [SIZES] [SHAPE] — issue 23.4's real-size run: `troika run` of an MPI hello through
# the relay (real task services, real Open MPI daemons) on 8 and 64 network-namespace hosts, one slot each, sizes
# alternating in one run (default RUNS=2, MPIS=ompi4,ompi5, SIZES=8,64, SHAPE=tree; SHAPE=flat gives mpirun the
# flat launch troika planned before issue 23.1, to compare). Prints per launch the wall time, the launch agents alive
# at once on the launch node and their RSS, the agents started on the hosts (the tree), what was left on the hosts,
# and per MPI T(64) / T(8) against the linear 8. The hosts are testkit's NetnsCluster (subnet 10.250.0.0/24, decoy
# 10.251; its MachineLock; deleted on every exit, the JVM's shutdown hook included). Heavy on 2 cores (64 namespaces,
# 64 task-service JVMs): run it under the exclusive lock, e.g.
#   bash bench/tree-launch.sh 2      (on a machine with nothing else running)
# Needs root, Open MPI 4 (and the Open MPI 5 root for ompi5) and a build:
#   mvn -o -q install -DskipTests && mvn -o -q test-compile -pl integration-tests
# BENCH_TIMELINE=PREFIX gives every launch `--timeline PREFIX-MPI-HOSTS-RUN.json` (when the task services started and
# registered, when mpirun ran); BENCH_PROGRAM="sleep 30" runs that instead of the hello (to watch idle task services).
# BENCH_PRIVATE_PIDS=1 (Open MPI 4 only) gives every host its own PID namespace and /proc, and starts commands on the
# hosts through NetnsCluster's `enter` (private /tmp, /dev/shm, hostname) instead of `ip netns exec`.
# BENCH_ACCT=1 runs each launch under BSD process accounting (root; Debian's acct: accton, dump-acct) and prints the
# CPU of the processes that ended during it by kind: task services, agents, daemons, ranks, the launcher, the rest.
set -euo pipefail
RUNS=${1:-2}
MPIS=${2:-ompi4,ompi5}
SIZES=${3:-8,64}
SHAPE=${4:-tree}
SUBNET=${BENCH_SUBNET:-250}
HERE=$(cd "$(dirname "$0")/.." && pwd)
cd "$HERE"
. "$HERE/bench/lib/it-bench.sh"
it_bench_prepare TreeLaunchBench troika-tree-launch
it_bench_cleanup_on_exit
echo "tree launch benchmark: $RUNS runs, $MPIS, sizes $SIZES, shape $SHAPE; load average $(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
it_bench_java TreeLaunchBench "$RUNS" "$WORK" "$SUBNET" "$MPIS" "$SIZES" "$SHAPE" || rc=$?
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
