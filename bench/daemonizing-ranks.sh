#!/bin/bash
# Teardown that nothing escapes (issue 11): 4-rank jobs whose ranks each start four daemons outside their session
# (setsid -f, a double fork into a new session, one that ignores SIGTERM, a background child), ended by SIGINT,
# SIGTERM or SIGKILL of troika, locally and through the relay on two namespace hosts; counts what survives each trial.
# Baseline in the same run: the same daemonizing command under a plain `setsid sh -c ... & kill -TERM -PGID` (what a
# process-group teardown alone leaves), so the count means something on this machine.
#
#   bench/daemonizing-ranks.sh [TRIALS_PER_SIGNAL]   (default 7: 21 trials per mode; needs root for the relay mode)
# Build first: mvn -B -q -o install -DskipTests
set -euo pipefail
per=${1:-7}
root=$(cd "$(dirname "$0")/.." && pwd -P)
echo "load: $(uptime)"

# baseline: four daemonizing "ranks" torn down by process group only
marker=bench-dz-$$-$RANDOM
rank='setsid -f sleep 601; ( ( exec setsid sleep 602 ) & ); setsid -f sh -c '"'"'trap "" TERM HUP INT; exec sleep 603'"'"'; ( sleep 604 & ); exec sleep 600'
env BENCH_DZ_MARKER=$marker setsid sh -c "for i in 1 2 3 4; do sh -c '$rank' & done; wait" </dev/null >/dev/null 2>&1 &
sleep 2
pgid=$!
kill -TERM -- "-$pgid" 2>/dev/null || true
sleep 6
left=$(grep -lzx "BENCH_DZ_MARKER=$marker" /proc/[0-9]*/environ 2>/dev/null | sed -n 's#^/proc/\([0-9]*\)/environ$#\1#p' || true)
n=$(echo -n "$left" | grep -c . || true)
echo "baseline (process-group teardown only): $n survivors of 1 job"
[ -n "$left" ] && kill -KILL $left 2>/dev/null || true

cd "$root"
mvn -B -q -o -pl integration-tests test -Dtest=DaemonizingRanksTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Dtroika.it.daemon.trials="$per" || true
grep -h 'daemonizing ranks' integration-tests/target/surefire-reports/org.troika.it.DaemonizingRanksTest-output.txt
echo "load: $(uptime)"
