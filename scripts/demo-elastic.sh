#!/usr/bin/env bash
# make demo-elastic: ElasticTraining on three fake hosts that share nothing (network, mount and UTS namespaces on this
# machine: own hostname, own /tmp and /dev/shm; see scripts/netns-hosts.sh), reached through the troika relay, with a
# discovery script whose host list changes while the job trains:
#   start: A and B (1 slot each, 2 ranks)  ->  C added (3 ranks)  ->  B removed (2 ranks: A, C).
# Watch "committed step=<n> size=<world>" change its size while the step count goes on without a gap.
# Needs root (namespaces), Open MPI and a built distribution (make build).
# Usage: scripts/demo-elastic.sh [STEPS] [STEP_MS]
set -euo pipefail
STEPS=${1:-120}
STEP_MS=${2:-100}
HERE=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/netns-hosts.sh
. "$HERE/scripts/netns-hosts.sh"
TROIKA_HOME=${TROIKA_HOME:-$HERE/dist/target/troika}
TAG=dem
NET=${DEMO_SUBNET:-233}
[ "$(id -u)" = 0 ] || { echo "demo-elastic: needs root (network namespaces)" >&2; exit 2; }
[ -x "$TROIKA_HOME/bin/troika" ] || { echo "demo-elastic: build first (make build)" >&2; exit 2; }

WORK=$(mktemp -d /tmp/troika-demo-elastic.XXXXXX)
HOSTS=(10.$NET.0.2 10.$NET.0.3 10.$NET.0.4)
cleanup() {
  netns_hosts_down "$TAG" "$NET"
  rm -rf "$WORK"
}
trap cleanup EXIT
cleanup 2>/dev/null; WORK=$(mktemp -d /tmp/troika-demo-elastic.XXXXXX)

netns_hosts_up "$TAG" "$NET" "$TROIKA_HOME"

# the discovery script prints the current host file; the demo edits that file while the job runs
printf '%s:1\n%s:1\n' "${HOSTS[0]}" "${HOSTS[1]}" > "$WORK/hosts"
printf '#!/bin/sh\ncat %s\n' "$WORK/hosts" > "$WORK/discover.sh"
chmod +x "$WORK/discover.sh"

export OMPI_MCA_hwloc_base_binding_policy=none
"$TROIKA_HOME/bin/troika" run --host-discovery-script "$WORK/discover.sh" --min-np 2 \
    --remote-shell "$(netns_remote_shell "$TAG")" --network-interface 10.$NET.0.0/24 \
    java -cp "$TROIKA_HOME/lib/*" org.troika.examples.ElasticTraining --steps "$STEPS" --commit-every 5 \
    --step-ms "$STEP_MS" 2>&1 | tee "$WORK/log" &
JOB=$!

wait_for() { # wait until the log has a commit with this world size, or the job ended
  until grep -q "committed step=.* size=$1" "$WORK/log" 2>/dev/null; do
    kill -0 $JOB 2>/dev/null || return 0
    sleep 0.2
  done
}
wait_for 2
sleep 2
echo "demo-elastic: discovery now adds ${HOSTS[2]}" >&2
printf '%s:1\n%s:1\n%s:1\n' "${HOSTS[0]}" "${HOSTS[1]}" "${HOSTS[2]}" > "$WORK/hosts"
wait_for 3
sleep 2
echo "demo-elastic: discovery now drops ${HOSTS[1]}" >&2
printf '%s:1\n%s:1\n' "${HOSTS[0]}" "${HOSTS[2]}" > "$WORK/hosts"
wait $JOB
echo "demo-elastic: committed steps: $(grep -o 'committed step=[0-9]*' "$WORK/log" | cut -d= -f2 | tr '\n' ' ')" >&2
for h in "${HOSTS[@]}"; do
  # what troika left on each host's own /tmp and /dev/shm (Open MPI's session directories and JVM perf data aside)
  left=$(netns_enter "$TAG" "$h" sh -c 'ls -A /tmp /dev/shm' | grep -v -e '^/' -e '^$' -e '^ompi\.' -e '^hsperfdata_' || true)
  echo "demo-elastic: left on $h ($(netns_enter "$TAG" "$h" hostname)): ${left:-nothing}" >&2
done
