#!/bin/bash
# The red team's flood against a running relay job, measured: a 3-host job over network namespaces, and from a fourth
# namespace host with ten addresses, 500 connections that never send a byte plus 400 that announce a 1 MiB body and
# trickle it, at the driver service (inside `troika run`) and at one host's task service at once.
# Prints, per service, RSS / threads / file descriptors before, during (max) and after the flood, the ratio
# during/before (the baseline is the same process just before the flood), and how fast the flood connections were
# closed. It runs integration-tests' ServiceFloodTest, which also asserts the bounds (< 150 MB RSS, closed < 10 s).
# Needs root, iproute2, mpicc, and the built distribution (mvn -o -q install -DskipTests).
#   bench/service-flood.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd -P)
[ -x "$root/dist/target/troika/bin/troika" ] || { echo "service-flood: build the distribution first (mvn -o -q install -DskipTests)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "service-flood: needs root (network namespaces)" >&2; exit 2; }
echo "load: $(uptime)"
cd "$root"
if ! mvn -B -o -q -pl integration-tests test -Dtest=ServiceFloodTest -Dsurefire.failIfNoSpecifiedTests=false \
    -Dtroika.test.excludedGroups= >/tmp/service-flood.$$.log 2>&1; then
  cat /tmp/service-flood.$$.log >&2; rm -f /tmp/service-flood.$$.log; exit 1
fi
rm -f /tmp/service-flood.$$.log
out="$root/integration-tests/target/surefire-reports/org.troika.it.ServiceFloodTest-output.txt"
# service-flood NAME before: rss=45MB threads=34 fds=41 | during (max): rss=... | after: rss=... | flood: k=v ...
grep '^service-flood ' "$out" | sed 's/MB//g; s/[|:]/ /g' | awk '
  { name = $2; n = 0
    for (i = 3; i <= NF; i++) if ($i ~ /^(rss|threads|fds)=/) { split($i, kv, "="); v[++n] = kv[2] }
    flood = ""; for (i = 3; i <= NF; i++) if ($i ~ /^(opened|busy|closed|open|max_close_ms|median_close_ms)=/) flood = flood " " $i
    printf "%-13s %-8s %8s %8s %8s %14s\n", "service", "metric", "before", "during", "after", "during/before"
    split("rss_mb threads fds", m, " ")
    for (k = 1; k <= 3; k++) printf "%-13s %-8s %8s %8s %8s %14.2f\n", name, m[k], v[k], v[k+3], v[k+6], v[k+3] / v[k]
    printf "%-13s flood:%s\n\n", name, flood }'
