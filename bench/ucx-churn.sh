#!/usr/bin/env bash
# bench/ucx-churn.sh [RUNS] [SUBNET] — issue 21's "MPICH over UCX failed with init_worker No such device": a
# reproducible check of the cause and of troika's fix. In a network namespace of its own (under testkit's machine
# lock for SUBNET, default 244), three loops add an addressed veth pair, bring it up and delete it, over and over (as
# namespace tests and containers do to a host's interfaces), while a 2-rank MPICH job (ch4:ucx) starts RUNS times
# (default 30) with UCX's default device list, then RUNS times with UCX_NET_DEVICES=lo (what troika plans for ranks
# all on this machine, unless the user set it). UCX lists the network devices at ucp_init and opens each in
# ucp_worker_create; one deleted in between fails MPI_Init with "init_worker No such device". Prints the failures of
# each side and the load. Needs root, iproute2, python3 and MPICH (mpicc.mpich, mpirun.mpich).
set -euo pipefail
RUNS=${1:-30}
SUBNET=${2:-244}
[ "$(id -u)" = 0 ] || { echo "bench: needs root (network namespaces)" >&2; exit 2; }
command -v mpirun.mpich >/dev/null && command -v mpicc.mpich >/dev/null || { echo "bench: needs MPICH" >&2; exit 2; }
if [ "${UCX_CHURN_LOCKED:-}" != 1 ]; then
  # testkit.MachineLock's lock for this subnet (a POSIX record lock, as Java's FileChannel.lock takes it)
  mkdir -p /run/lock
  exec env UCX_CHURN_LOCKED=1 python3 -c 'import fcntl, os, sys
f = open(sys.argv[1], "w"); fcntl.lockf(f, fcntl.LOCK_EX); os.execvp(sys.argv[2], sys.argv[2:])' \
    "/run/lock/troika-netns-$SUBNET.lock" "$0" "$@"
fi
NS=troika-ucx-churn-$SUBNET
WORK=$(mktemp -d /tmp/troika-ucx-churn.XXXXXX)
cleanup() { touch "$WORK/stop"; wait 2>/dev/null || true; ip netns del "$NS" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
printf '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Barrier(MPI_COMM_WORLD); MPI_Finalize(); return 0; }\n' \
  > "$WORK/barrier.c"
mpicc.mpich -o "$WORK/barrier" "$WORK/barrier.c"
ip netns del "$NS" 2>/dev/null || true
ip netns add "$NS"
ip -n "$NS" link set lo up
for k in 1 2 3; do
  ( while [ ! -e "$WORK/stop" ]; do
      ip -n "$NS" link add "c${k}a" type veth peer name "c${k}b" 2>/dev/null || true
      ip -n "$NS" addr add "10.$SUBNET.$k.1/24" dev "c${k}a" 2>/dev/null || true
      ip -n "$NS" link set "c${k}a" up 2>/dev/null || true
      ip -n "$NS" link set "c${k}b" up 2>/dev/null || true
      sleep "0.0$((RANDOM % 5))"
      ip -n "$NS" link del "c${k}a" 2>/dev/null || true
    done ) &
done
echo "UCX device churn: $RUNS runs per side, load average $(cut -d' ' -f1-3 /proc/loadavg)"
side() { # side LABEL [VAR=VALUE...]: RUNS jobs; prints the failures
  local label=$1 fail=0 i out; shift
  for i in $(seq 1 "$RUNS"); do
    if ! out=$(ip netns exec "$NS" env "$@" timeout 120 mpirun.mpich -np 2 "$WORK/barrier" 2>&1); then
      fail=$((fail + 1))
      echo "  $label run $i: $(printf '%s\n' "$out" | grep -o 'init_worker.*' | tail -n1 || printf '%s\n' "$out" | tail -n1)"
    fi
  done
  echo "$label: $fail of $RUNS failed"
}
side "UCX's default devices" UCX_CHURN=1
side "UCX_NET_DEVICES=lo (troika's plan)" UCX_NET_DEVICES=lo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
