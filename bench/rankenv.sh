#!/bin/bash
# bench/rankenv.sh [CALLS] [BASELINE_REV] — what bin/troika-rankenv itself costs a Java rank, before the JVM starts.
#
# Interleaved, 5 rounds of CALLS calls each (default 50), with a stand-in `java` (a copy of /bin/true in a folder with a
# JDK release file, so the script takes its Java path: CDS key, archive look-up, JNA's library path) and the
# distribution's lib/* as the class path, the archive already recorded (the common case):
#   floor:     TROIKA_JAVA_CDS=0 (rank variables and the PML choice only)
#   current:   TROIKA_JAVA_CDS=1 with this tree's script
#   baseline:  TROIKA_JAVA_CDS=1 with the script of git revision BASELINE_REV (default: none; e.g. HEAD~1)
# prints the median wall and CPU (user+sys) per call and the ratios. Needs the built distribution.
set -euo pipefail
calls=${1:-50}
base=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd -P)
lib="$root/dist/target/troika/lib"
[ -d "$lib" ] || { echo "bench: $lib missing; build first: mvn -o -q install -DskipTests" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/jdk/bin"
cp /bin/true "$work/jdk/bin/java"
echo 'JAVA_VERSION="17.0.15"' >"$work/jdk/release"
cp "$root/dist/src/bin/troika-rankenv" "$work/current"
if [ -n "$base" ]; then git -C "$root" show "$base:dist/src/bin/troika-rankenv" >"$work/baseline"; fi
export OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=4 TROIKA_HOSTNAME=h1 TROIKA_HOST_SLOTS=4
rank=("$work/jdk/bin/java" -cp "$lib/*" org.troika.examples.Training)
prime() { # records and promotes the archive of script $1 (the stand-in JVM writes none: an empty one is enough)
  local dir="$work/cache-$2" k
  TROIKA_JAVA_CDS=1 TROIKA_CDS_DIR=$dir sh "$1" "${rank[@]}"
  for k in "$dir"/*.recorder; do [ -L "$k" ] && rm -f "$k" "${k%.recorder}".*.part && touch "${k%.recorder}.jsa"; done
}
prime "$work/current" current
[ -z "$base" ] || prime "$work/baseline" baseline
one() { # label script cds: appends "wall_us cpu_ms" of CALLS calls to $work/label
  local t0 t1
  t0=$(date +%s%N)
  TROIKA_JAVA_CDS=$3 TROIKA_CDS_DIR="$work/cache-$1" /usr/bin/time -f '%U %S' -o "$work/t" \
    sh -c 'for i in $(seq '"$calls"'); do sh "$0" "$@"; done' "$2" "${rank[@]}"
  t1=$(date +%s%N)
  echo "$(( (t1 - t0) / 1000 / calls )) $(awk -v c="$calls" '{printf "%d", ($1 + $2) * 1000000 / c}' "$work/t")" >>"$work/res-$1"
}
labels="floor current"
[ -z "$base" ] || labels="$labels baseline"
for r in 1 2 3 4 5; do
  one floor "$work/current" 0
  one current "$work/current" 1
  [ -z "$base" ] || one baseline "$work/baseline" 1
done
med() { sort -n -k"$2" "$work/res-$1" | awk -v k="$2" '{a[NR]=$k} END {print a[int((NR+1)/2)]}'; }
echo "troika-rankenv, $calls calls x 5 rounds, medians per call (load $(cut -d' ' -f1-3 /proc/loadavg)):"
for l in $labels; do
  printf '  %-9s wall %6d us  cpu %6d us\n' "$l" "$(med "$l" 1)" "$(med "$l" 2)"
done
fw=$(med floor 1); cw=$(med current 1)
printf '  current/floor: wall %.2f\n' "$(echo "$cw / $fw" | bc -l)"
if [ -n "$base" ]; then
  bw=$(med baseline 1); bc_=$(med baseline 2); cc=$(med current 2)
  printf '  current/baseline: wall %.2f cpu %.2f\n' "$(echo "$cw / $bw" | bc -l)" "$(echo "$cc / $bc_" | bc -l)"
fi
