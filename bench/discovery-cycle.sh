#!/bin/bash
# bench/discovery-cycle.sh [CYCLES] — CPU of one elastic discovery cycle (parse, diff, blacklist, plan) over a script
# output of 100, 1,000 and 10,000 lines (issue 23.3; target: <= 20 ms of CPU at 10,000 lines), each in a JVM of its own
# with troika run's flags (bin/troika: lib/troika-jvm.sh's troika_jit, serial GC). Per size: the first
# cycle (cold JVM), the median of CYCLES more (default 200; the elastic driver runs one per discovery interval for the
# job's life), and the process CPU per cycle over them (GC and compilation included); then the ratio of each to the
# 100-line cycle measured in the same run. Needs the built distribution (mvn -o -q install -DskipTests) and javac.
set -euo pipefail
cycles=${1:-200}
root=$(cd "$(dirname "$0")/.." && pwd -P)
lib="$root/dist/target/troika/lib"
[ -f "$lib/troika-launcher.jar" ] || { echo "discovery-cycle: $lib missing; build first: mvn -o -q install -DskipTests" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp="$lib/*"
javac -d "$work/cls" -cp "$cp" "$root/bench/elastic/DiscoveryCycle.java"
. "$lib/troika-jvm.sh"
troika_jit
echo "load before: $(uptime)"
set -f # the words of $_troika_jit are options, never file-name patterns
for n in 100 1000 10000; do
  java $_troika_jit -XX:+UseSerialGC -Xss512k -Xms128m -Xmx1g \
    -cp "$work/cls:$cp" DiscoveryCycle "$n" "$cycles" >>"$work/out"
done
echo "load after:  $(uptime)"
printf '%-7s %9s %10s %11s   %s\n' lines cold_ms steady_ms process_ms "vs 100 lines (cold steady process)"
awk 'NR == 1 { c = $2; s = $3; p = $4 }
     { printf "%-7s %9.2f %10.2f %11.2f   %.1f %.1f %.1f\n", $1, $2, $3, $4, $2 / c, $3 / s, $4 / p }' "$work/out"
awk '$1 == 10000 { printf "10,000 lines: %.2f ms of CPU per cycle (steady, this thread), %.2f ms with GC and compilation; target <= 20 ms: %s\n", $3, $4, ($4 <= 20 ? "met" : "NOT met") }' "$work/out"
