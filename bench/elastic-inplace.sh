#!/usr/bin/env bash
# bench/elastic-inplace.sh [CASES] [SIZES] [RUNS] [MPI] — issue 25's end-to-end elastic benchmark: `troika run` with
# ElasticTraining (a commit every 20 ms step) on namespace hosts through the relay (5 hosts, testkit's NetnsCluster,
# subnet BENCH_SUBNET, default 219), each case timed from the event to the first commit line of the new world as
# troika prints it, as a multiple of F = the fastest bare `mpirun -np N java -version` (same MPI, this run):
#   leave     N ranks on min(N,4) hosts, the discovery file drops the last host  -> first commit at the smaller size
#             (Open MPI 5 + ULFM: in place; target <= 2 F)
#   leave-first  the first host drops instead: rank 0's (its rank leaves, the world's next rank 0 takes over listening
#             to the driver; before stop 52 a relaunch; not in the default CASES)
#   relaunch  the same with --fault-tolerance relaunch (an MPI that cannot change in place; target <= 7 F)
#   add       a host with N/K slots is added                                     -> first commit at the larger size
#             (target <= 4 F where growth works; a relaunch where it does not)
#   standby   the same host listed as host:0 from the start (a standby host: its task service already registered when
#             the change gives it slots; not in the default CASES)
#   standby-rank  the same with --standby-ranks N/K (as many ranks wait on the standby host, outside the world, as the
#             change gives it slots: it activates them, no process starts)
#   more      the last of the K hosts gets N/K more slots -> first commit at the larger size (spawned beside its
#             running ranks under the daemon already there; not in the default CASES)
#   kill      launch rank N-1 gets SIGKILL                                        -> first commit at a smaller size
#             (ULFM shrink; target <= 300 ms)
# BENCH_DISCOVERY_INTERVAL=S passes --discovery-interval S (default: troika's adaptive interval, 250 ms - 1 s).
# Every job line says in place or relaunch, and when troika's own lines came (discovery saw it, change sent, next
# generation, rank died/left), from the event. CASES default leave,relaunch,add,kill; SIZES default 2,4,8; RUNS 3;
# MPI OPEN_MPI_5 (the trixie root) or OPEN_MPI (the host's 4.1.4, share-nothing hosts).
# Before the measured jobs, two short jobs on all 5 hosts give every host the ranks' class-data archive (troika-rankenv
# records it at a rank's normal exit, which measured jobs never have: their ranks are torn down, a relaunch's old ones
# killed by PRRTE mid-write); BENCH_CDS_PRIME=0 skips that (then ranks run with and without an archive, mixed).
# BENCH_VERBOSE=1 runs troika with --verbose and prints, per job, the processes started after the event (when), the
# machine's CPU use and the CPU per kind of process up to the commit (its own poll slows the job: compare runs with it
# to runs with it). BENCH_RANK_JAVA runs the ranks with another java (e.g.
# /usr/lib/jvm/temurin-25-jdk-amd64/bin/java: troika-mpi's FFM backend instead of JNA; F stays the PATH's java).
# BENCH_RANK_JAVA_OPTS adds JVM options to the ranks (e.g.
# -Xlog:class+load=info:file=/tmp/r%p.log:timemillis, whose times line up with the "event at epoch ms" line).
# Keep one call under ~8 minutes on a shared machine: split by CASES or SIZES (one job is ~10-20 s).
# Needs root, the Open MPI 5 root and a build: mvn -o -q install -DskipTests && mvn -o -q test-compile -pl integration-tests
set -euo pipefail
CASES=${1:-leave,relaunch,add,kill}
SIZES=${2:-2,4,8}
RUNS=${3:-3}
MPI=${4:-OPEN_MPI_5}
HERE=$(cd "$(dirname "$0")/.." && pwd)
cd "$HERE"
. "$HERE/bench/lib/it-bench.sh"
it_bench_prepare ElasticE2eBench troika-elastic-inplace
# BENCH_KEEP=1 keeps each job's stamped output (WORK/job-N/output.txt: ms since its first line, O/E, the line); with
# PRTE_MCA_plm_base_verbose=5 in the environment it also holds PRRTE's launch steps (daemon launched, reported, rank
# forked, registered), stamped as troika passed them on
if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "bench: keeping $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi
echo "uptime before: $(uptime)"
rc=0
it_bench_java ElasticE2eBench "$CASES" "$SIZES" "$RUNS" "$WORK" "${BENCH_SUBNET:-219}" "$MPI" || rc=$?
echo "uptime after: $(uptime)"
exit $rc
