#!/bin/bash
# bench/scale.sh [RUNS] — what planning costs as the host count grows (issue 23.3), as whole processes.
#
# `troika run --dry-run --hostfile F -np N true` for hostfiles of 100, 1,000, 10,000 and 100,000 hosts with 8 slots
# each (N = 8 x hosts: every slot used), run RUNS times each (default 5), interleaved so load from other work hits every
# size alike. Prints per size the medians of wall time, CPU time (user+sys, /usr/bin/time, 10 ms resolution) and peak
# RSS, and the ratio of each to the 100-host plan measured in the same run, then the ratio of each 10x step.
# Targets: the 10,000-host plan within 2x of the 100-host plan; no 10x step above 12x.
# Each plan is checked: no warning, and the ranks get TROIKA_HOST_SLOTS (their place among the hosts, at any size).
# Then the driver service with simulated task services (below). SCALE_ONLY=hosts runs only that part.
# Needs the built distribution (mvn -o -q install -DskipTests), a JDK (javac) and nstat (iproute2).
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

if [ "${SCALE_ONLY:-}" != hosts ]; then
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
fi

# ---- simulated hosts: the driver service with 100, 1,000, 10,000 task services (issue 23.2/23.4) ------------------
# One load-generator process (bench/scale/SimulatedHosts.java) is N task services, each from its own loopback address,
# speaking the real relay protocol; troika's real DriverService runs in a process of its own. Per size: the time from
# the first registration to the last, connections refused (and retried), the kernel's listen drops/overflows during
# the run (nstat, system-wide), then with every host heartbeating every 2 s for 10 s: the driver's CPU (share of one
# core), peak RSS, open descriptors, and hosts reported lost (must be 0). "registered" below the host count: the
# driver never saw some hosts' Register although their generator saw no error (see docs/launch-agent.md).
lib="$root/dist/target/troika/lib"
cp="$lib/troika-rsh.jar:$lib/troika-wire.jar:$lib/troika-common.jar"
javac -d "$work/cls" -cp "$cp" "$root/bench/scale/SimulatedHosts.java"
run_java() { exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k -Xmx1g -cp "$work/cls:$cp" SimulatedHosts "$@"; }
ticks=$(getconf CLK_TCK)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
listen_drops() { nstat -az TcpExtListenDrops TcpExtListenOverflows 2>/dev/null | awk '/Listen/ { s += $2 } END { print s + 0 }'; }
ulimit -n "$(ulimit -Hn)"
echo
echo "simulated hosts; load before: $(uptime)"
printf '%-8s %11s %12s %8s %12s %10s %8s %8s %6s\n' hosts registered register_ms retried listen_drops cpu_core rss_mb fds lost
for n in 100 1000 10000; do
  secret=$(run_java secret 3>&-)
  rm -f "$work/in"; mkfifo "$work/in"
  run_java driver "$n" <"$work/in" >"$work/driver.out" 2>&1 &
  driver=$!
  exec 3>"$work/in"
  echo "$secret" >&3
  for _ in $(seq 600); do grep -q '^ADDR=' "$work/driver.out" && break; sleep 0.1; done
  addr=$(sed -n 's/^ADDR=//p' "$work/driver.out")
  [ -n "$addr" ] || { echo "scale: the driver did not start:" >&2; cat "$work/driver.out" >&2; exit 1; }
  drops0=$(listen_drops)
  echo "$secret" | run_java hosts "$addr" "$n" 600 >"$work/hosts.out" 2>&1 3>&- &
  hosts=$!
  for _ in $(seq 6000); do grep -q '^registered' "$work/driver.out" && break; sleep 0.1; done # K of N, K < N after a timeout
  grep -q '^registered' "$work/driver.out" || { echo "scale: $n hosts did not register:" >&2; tail "$work/driver.out" "$work/hosts.out" >&2; exit 1; }
  for _ in $(seq 600); do grep -q '^connected' "$work/hosts.out" && break; sleep 0.1; done
  c0=$(cpu_ticks "$driver"); sleep 10; c1=$(cpu_ticks "$driver")
  rss=$(awk '/VmHWM/ { print int($2 / 1024) }' "/proc/$driver/status")
  fds=$(ls "/proc/$driver/fd" | wc -l)
  lost=$(grep -c '^lost' "$work/driver.out" || true)
  drops=$(( $(listen_drops) - drops0 ))
  kill "$hosts"; wait "$hosts" 2>/dev/null || true # the generator, started above
  exec 3>&-; wait "$driver" || true
  ms=$(sed -n 's/^registered [0-9]* of [0-9]* in \([0-9]*\) ms/\1/p' "$work/driver.out")
  got=$(sed -n 's/^registered \([0-9]*\) of .*/\1/p' "$work/driver.out")
  refused=$(sed -n 's/.* refused \([0-9]*\) .*/\1/p' "$work/hosts.out")
  core=$(awk -v d=$((c1 - c0)) -v t="$ticks" 'BEGIN { printf "%.3f", d / t / 10 }')
  printf '%-8s %11s %12s %8s %12s %10s %8s %8s %6s\n' "$n" "$got" "$ms" "$refused" "$drops" "$core" "$rss" "$fds" "$lost"
  echo "$n $ms $core $rss $fds" >>"$work/sim"
done
echo "load after:  $(uptime)"
awk 'NR > 1 { printf "%s -> %s hosts: register x%.1f, heartbeat cpu x%.1f, rss x%.1f, fds x%.1f\n", p[1], $1, $2 / (p[2] > 0 ? p[2] : 1), $3 / (p[3] > 0 ? p[3] : 0.001), $4 / p[4], $5 / p[5] }
     { split($0, p, " ") }' "$work/sim"
