#!/bin/bash
# bench/scale.sh [RUNS] — what planning costs as the host count grows (issue 23.3), as whole processes.
#
# `troika run --dry-run --hostfile F -np N true` for hostfiles of 100, 1,000, 10,000 and 100,000 hosts with 8 slots
# each (N = 8 x hosts: every slot used), run RUNS times each (default 5), interleaved so load from other work hits every
# size alike. Prints per size the medians of wall time, CPU time (user+sys, /usr/bin/time, 10 ms resolution) and peak
# RSS, and the ratio of each to the 100-host plan measured in the same run, then the ratio of each 10x step.
# Targets: the 10,000-host plan within 2x of the 100-host plan; no 10x step above 12x.
# Each plan is checked: no warning, and the ranks get TROIKA_HOST_SLOTS (their place among the hosts, at any size).
# Needs the built distribution (mvn -o -q install -DskipTests).
set -euo pipefail
runs=${1:-5}
root=$(cd "$(dirname "$0")/.." && pwd -P)
troika="$root/dist/target/troika/bin/troika"
[ -x "$troika" ] || { echo "scale: $troika missing; build first: mvn -o -q install -DskipTests" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "scale: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sizes="100 1000 10000 100000"
for n in $sizes; do
  awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "node%06d slots=8\n", i }' >"$work/hosts$n"
done

echo "load before: $(uptime)"
for run in $(seq "$runs"); do
  for n in $sizes; do
    if ! /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$troika" run --dry-run --hostfile "$work/hosts$n" \
        -np $((n * 8)) true >"$work/out" 2>"$work/err"; then
      echo "scale: the $n-host plan failed:" >&2; cat "$work/err" >&2; exit 1
    fi
    if [ -s "$work/err" ]; then
      echo "scale: the $n-host plan warned:" >&2; cat "$work/err" >&2; exit 1
    fi
    grep -q -- "-x TROIKA_HOST_SLOTS " "$work/out" || { echo "scale: the $n-host plan exports no TROIKA_HOST_SLOTS" >&2; exit 1; }
    read -r wall user sys rss <"$work/time"
    echo "$n $wall $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') $rss" >>"$work/samples"
  done
done
echo "load after:  $(uptime)"

# median of column $2 for size $1
median() { awk -v n="$1" -v c="$2" '$1 == n { print $c }' "$work/samples" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf '%-8s %9s %9s %9s   %-24s %s\n' hosts wall_s cpu_s rss_mb "vs 100 (wall cpu rss)" "vs the size before (wall cpu)"
prev=
for n in $sizes; do
  w=$(median "$n" 2) c=$(median "$n" 3) r=$(median "$n" 4)
  [ -n "$prev" ] || { w0=$w c0=$c r0=$r; }
  ratio=$(awk -v w="$w" -v c="$c" -v r="$r" -v a="$w0" -v b="$c0" -v d="$r0" 'BEGIN { printf "%.2f %.2f %.2f", w / a, c / b, r / d }')
  step=-
  [ -z "$prev" ] || step=$(awk -v w="$w" -v c="$c" -v a="$pw" -v b="$pc" 'BEGIN { printf "%.2f %.2f", w / a, c / b }')
  printf '%-8s %9s %9s %9d   %-24s %s\n' "$n" "$w" "$c" $((r / 1024)) "$ratio" "$step"
  prev=$n pw=$w pc=$c
done
