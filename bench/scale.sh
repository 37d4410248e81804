#!/bin/bash
# bench/scale.sh [RUNS] — what planning costs as the host count grows (issue 23.3), as whole processes.
#
# `troika run --dry-run --hostfile F -np N true` for hostfiles of 100, 1,000, 10,000 and 100,000 hosts with 8 slots
# each (N = 8 x hosts: every slot used), run RUNS times each (default 5), interleaved so load from other work hits every
# size alike. Prints per size the medians of wall time, CPU time (user+sys, /usr/bin/time, 10 ms resolution) and peak
# RSS, and the ratio of each to the 100-host plan measured in the same run, then the ratio of each 10x step.
# Targets: the 10,000-host plan within 2x of the 100-host plan; no 10x step above 12x.
# Each plan is checked: no warning, and the ranks get TROIKA_HOST_SLOTS (their place among the hosts, at any size).
# Then the driver service with simulated task services, then the launcher's two per-rank services with simulated ranks
# (below). SCALE_ONLY=plan, =hosts or =ranks runs only that part; SIM_SIZES and SIM_RANK_SIZES set their sizes;
# SCALE_DEBUG=1 prints, per size of the hosts part, what the launch's agents, the driver and the hosts said.
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

part() { [ -z "${SCALE_ONLY:-}" ] || [ "$SCALE_ONLY" = "$1" ]; }
if part plan; then
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
# One load-generator process (bench/scale/SimulatedHosts.java) is N task services from one selector thread, each from
# its own loopback address, speaking the real relay protocol; troika's real DriverService runs in a process of its own
# with a 256 MB heap (-Xmx256m). Per size:
#   register   all N connect at once (WINDOW=N; set WINDOW to bound the connections not yet past the driver's hello):
#              time from the first connect to the last Registered (target <= 2 s), connections the driver ended
#              before Registered (the generator registers again, as a task service does), the kernel's listen
#              drops/overflows during the size's run (nstat, system-wide; target 0);
#   steady     20 s of heartbeats from every host every 2 s (and two of the driver's, every 10 s): the driver's CPU as a share of one core (target <= 10 %),
#              its heap in use after a full collection and its peak RSS, each per host (target <= 20 KB), open fds;
#   launch     one launch over all N hosts while they heartbeat: the driver opens the launch's agent key (as troika
#              run does before mpirun) and a second generator is the launch agents of a tree launch, wherever they run
#              (every agent, on the launch node or on a host, looks its host up at the driver): a Lookup per host with
#              the agent key (WINDOW at a time not yet past the hello), the reply checked against the host's registered
#              endpoint, then the host's fake daemon calls home (a connection from the host's address to the
#              generator's own listener, as an Open MPI daemon does to mpirun). Time from the first lookup's connect to
#              the last answer and to the last daemon's call home, the driver's CPU seconds for the launch (the lookups,
#              the key's end: AgentKeySpent to every task service), listen drops (system-wide);
#   silent     SILENT hosts stop heartbeating (connections open): each must be reported lost within 3 liveness
#              intervals (6 s) of its last heartbeat;
#   pause      the driver is stopped (SIGSTOP) for 2 s and continued: no further host may be reported lost.
# Then the curves: each 10x step's ratio of registration wall time, driver CPU seconds (registration + steady), peak
# RSS, fds and listen drops, and of the launch's wall time and driver CPU seconds (target <= 12x each).
lib="$root/dist/target/troika/lib"
cp="$lib/*"
javac -d "$work/cls" -cp "$cp" "$root/bench/scale/SimulatedHosts.java"
# the launcher's compiler options (bin/troika's, from lib/troika-jvm.sh: C1 only, and the per-host code at the default
# thresholds): the driver service runs inside troika run. DRIVER_JIT=c2 runs the driver with the JDK's default
# compilers instead (what TROIKA_JAVA_OPTS=-XX:TieredStopAtLevel=4 gives troika run).
. "$lib/troika-jvm.sh"
troika_jit
jit=$_troika_jit
[ "${DRIVER_JIT:-}" != c2 ] || jit="$jit -XX:TieredStopAtLevel=4"
run_java() { local heap=$1; shift; set -f; exec java $jit -XX:+UseSerialGC -Xss512k "-Xmx$heap" -cp "$work/cls:$cp" SimulatedHosts "$@"; }
ticks=$(getconf CLK_TCK)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
listen_drops() { nstat -az TcpExtListenDrops TcpExtListenOverflows 2>/dev/null | awk '/Listen/ { s += $2 } END { print s + 0 }'; }
udp_drops() { nstat -az UdpRcvbufErrors 2>/dev/null | awk '/Udp/ { s += $2 } END { print s + 0 }'; }
wait_for() { for _ in $(seq "$3"); do grep -q "$1" "$2" && return 0; sleep 0.1; done; return 1; }
# start_service OUT MODE ARGS...: a new job secret, the service (MODE ARGS) in the background with its stdin on fd 3
# (the secret first; a "heap" line asks for its heap; closing fd 3 ends it) and its output in OUT; sets secret,
# service (its pid) and addr once it listens
start_service() {
  local out=$1; shift
  secret=$(run_java 64m secret 3>&-)
  rm -f "$work/in"; mkfifo "$work/in"
  # the service's descriptor limit: FDS if set (the driver: what troika run gives itself), else the script's
  (if [ -n "${FDS:-}" ]; then ulimit -n "$FDS"; fi; run_java 256m "$@") <"$work/in" >"$out" 2>&1 &
  service=$!
  exec 3>"$work/in"
  echo "$secret" >&3
  wait_for '^ADDR=' "$out" 600 || { echo "scale: the $1 service did not start:" >&2; cat "$out" >&2; exit 1; }
  addr=$(sed -n 's/^ADDR=//p' "$out")
}
# descriptors: the generators hold up to 3 per simulated host (its connection, an agent's, a daemon's call home) and
# the driver gets what troika run raises its own limit to (FileLimit: 256 + 4 per host); root may raise the hard limit
most=0
for n in ${SIM_SIZES:-100 1000 10000} ${SIM_RANK_SIZES:-100 1000 10000}; do [ "$n" -le "$most" ] || most=$n; done
want=$((4 * most + 1024))
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -lt "$want" ]; then
  ulimit -Hn "$want" 2>/dev/null || echo "scale: only $hard descriptors (hard limit), $want wanted: large sizes may fail; run as root" >&2
fi
ulimit -n "$(ulimit -Hn)"
if part hosts; then
echo
echo "simulated hosts (driver JIT: ${DRIVER_JIT:-c1, as troika run}); load before: $(uptime)"
printf '%-7s %10s %11s %7s %6s %9s %8s %8s %8s %6s %10s %9s %6s\n' hosts registered register_ms retried drops cpu_core \
  heap_kb/h rss_mb rss_kb/h fds lost_silent detect_ms false
for n in ${SIM_SIZES:-100 1000 10000}; do
  silent=$((n / 10 < 10 ? n / 10 : 10))
  fdlimit=$((256 + 4 * n)) hard=$(ulimit -Hn)
  if [ "$hard" != unlimited ] && [ "$hard" -lt "$fdlimit" ]; then
    echo "  (the driver gets $hard descriptors, the hard limit, not troika run's $fdlimit: troika run would refuse to start)"
    fdlimit=$hard
  fi
  FDS=$fdlimit start_service "$work/driver.out" driver "$n"
  driver=$service
  drops0=$(listen_drops)
  cstart=$(cpu_ticks "$driver")
  echo "$secret" | run_java 1g hosts "$addr" "$n" 100 "${WINDOW:-$n}" 32 "$silent" >"$work/hosts.out" 2>&1 3>&- &
  hosts=$!
  wait_for '^registered' "$work/driver.out" 6000 || { echo "scale: $n hosts did not register:" >&2; tail "$work/driver.out" "$work/hosts.out" >&2; exit 1; }
  wait_for '^connected' "$work/hosts.out" 600 || { echo "scale: the generator did not connect all $n:" >&2; tail "$work/driver.out" "$work/hosts.out" >&2; exit 1; }
  c0=$(cpu_ticks "$driver"); u0=$(awk '{ print $14 }' "/proc/$driver/stat"); sleep 20; c1=$(cpu_ticks "$driver")
  u1=$(awk '{ print $14 }' "/proc/$driver/stat")
  echo heap >&3
  wait_for '^heap' "$work/driver.out" 300 || { echo "scale: no heap figure" >&2; exit 1; }
  heap=$(sed -n 's/^heap //p' "$work/driver.out")
  rss=$(awk '/VmHWM/ { print $2 }' "/proc/$driver/status")
  fds=$(ls "/proc/$driver/fd" | wc -l)
  drops=$(( $(listen_drops) - drops0 ))
  # one launch: every host looked up with the launch's agent key, every fake daemon calls home
  label=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  echo "agentkey $label" >&3
  wait_for '^agentkey open' "$work/driver.out" 300 || { echo "scale: the driver opened no agent key" >&2; exit 1; }
  ldrops0=$(listen_drops); l0=$(cpu_ticks "$driver")
  echo "$secret" | run_java 1g agents "$addr" "$n" 60 "${WINDOW:-$n}" 0 0 "$label" >"$work/agents.out" 2>&1 3>&- \
    || { echo "scale: the launch's agents failed:" >&2; tail "$work/agents.out" >&2; exit 1; }
  grep -q '^daemons' "$work/agents.out" || { echo "scale: not every host was launched:" >&2; tail "$work/agents.out" >&2; exit 1; }
  wait_for '^spent' "$work/driver.out" 300 || { echo "scale: the driver did not spend the agent key" >&2; exit 1; }
  l1=$(cpu_ticks "$driver"); ldrops=$(( $(listen_drops) - ldrops0 ))
  lookup_ms=$(sed -n 's/^connected [0-9]* retried [0-9]* in \([0-9]*\) ms/\1/p' "$work/agents.out")
  lretried=$(sed -n 's/^connected [0-9]* retried \([0-9]*\) .*/\1/p' "$work/agents.out")
  daemon_ms=$(sed -n 's/^daemons [0-9]* in \([0-9]*\) ms/\1/p' "$work/agents.out")
  [ -z "${SCALE_DEBUG:-}" ] || { date; cat "$work/agents.out"; grep -v "^lost" "$work/driver.out"; echo "lost so far: $(grep -c "^lost" "$work/driver.out")"; grep "^lost" "$work/driver.out" | head -3 || true; grep "^late" "$work/hosts.out" | tail -3 || true; } >&2
  lcpu=$(awk -v d=$((l1 - l0)) -v t="$ticks" 'BEGIN { printf "%.2f", d / t }')
  # silent hosts: each lost within 3 intervals of its last heartbeat
  wait_for '^silent' "$work/hosts.out" 300 || { echo "scale: the generator silenced no host:" >&2; tail -5 "$work/hosts.out" >&2; exit 1; }
  sleep 7
  lost1=$(grep -c '^lost' "$work/driver.out" || true)
  detect=$(awk '/^silent/ { last[$2] = $4 } /^lost/ { at[$2] = $4 }
                END { m = 0; for (h in last) { if (!(h in at)) { print "never"; exit } if (at[h] - last[h] > m) m = at[h] - last[h] } print m }' \
           "$work/hosts.out" "$work/driver.out")
  # the driver stopped for 2 s: nobody else lost
  kill -STOP "$driver"; sleep 2; kill -CONT "$driver"
  sleep 8
  lost2=$(grep -c '^lost' "$work/driver.out" || true)
  kill "$hosts"; wait "$hosts" 2>/dev/null || true # the generator, started above
  exec 3>&-; wait "$driver" || true
  ms=$(sed -n 's/^connected [0-9]* retried [0-9]* in \([0-9]*\) ms/\1/p' "$work/hosts.out")
  got=$(sed -n 's/^registered \([0-9]*\) of .*/\1/p' "$work/driver.out")
  retried=$(sed -n 's/^connected [0-9]* retried \([0-9]*\) .*/\1/p' "$work/hosts.out")
  core=$(awk -v d=$((c1 - c0)) -v t="$ticks" 'BEGIN { printf "%.3f", d / t / 20 }')
  user=$(awk -v d=$((u1 - u0)) -v t="$ticks" 'BEGIN { printf "%.3f", d / t / 20 }')
  cpu=$(awk -v d=$((c1 - cstart)) -v t="$ticks" 'BEGIN { printf "%.2f", d / t }')
  printf '%-7s %10s %11s %7s %6s %9s %8s %8s %8s %6s %10s %9s %6s\n' "$n" "$got" "$ms" "$retried" "$drops" "$core" \
    $((heap / 1024 / n)) $((rss / 1024)) $((rss / n)) "$fds" "$lost1/$silent" "$detect" $((lost2 - lost1))
  grep '^lost' "$work/driver.out" | head -n "$lost2" | grep -v "^lost h\($(seq -s '\|' $((n - silent)) $((n - 1)))\) " \
    | head -3 || true # false losses, if any, with their reasons
  echo "  $n hosts steady: driver cpu $core of a core, of it user $user (the rest in the kernel)"
  echo "  $n hosts launch: $n looked up in $lookup_ms ms ($lretried retried), $n daemons called home in $daemon_ms ms, driver cpu $lcpu s, listen drops $ldrops"
  echo "$n $ms $cpu $rss $fds $drops $heap $lookup_ms $lcpu" >>"$work/sim"
done
echo "load after:  $(uptime)"
echo "curves (each 10x step, target <= 12x): registration wall, driver CPU s (registration + steady), peak RSS, fds, listen drops"
awk 'function r(a, b) { return b > 0 ? sprintf("x%.2f", a / b) : (a > 0 ? "x" a "/0" : "0->0") }
     NR == 1 { n0 = $1; rss0 = $4; heap0 = $7 }
     NR > 1 { printf "%s -> %s hosts: wall %s (%s -> %s ms), cpu %s (%s -> %s s), rss %s, fds %s, drops %s; per host beyond %s: rss %.1f KB, heap %.1f KB; launch wall %s (%s -> %s ms), cpu %s (%s -> %s s)\n",
              p[1], $1, r($2, p[2]), p[2], $2, r($3, p[3]), p[3], $3, r($4, p[4]), r($5, p[5]), r($6, p[6]), n0,
              ($4 - rss0) / ($1 - n0), ($7 - heap0) / 1024 / ($1 - n0), r($8, p[8]), p[8], $8, r($9, p[9]), p[9], $9 }
     { split($0, p, " ") }' "$work/sim"
fi

# ---- simulated ranks: the launcher's per-rank services with 100, 1,000, 10,000 ranks (issue 23.2) -----------------
# N simulated ranks, one per host (the plan's host names are the generator's loopback addresses), against troika's
# real services in a process of their own with a 256 MB heap:
#   progress   the hang watchdog of an N-rank launch (HangWatch: its progress service - one UDP socket, reports are
#              authenticated datagrams -, the report interval it gives the ranks for a 20 s timeout - 4 s, a second
#              per 2,500 ranks, from 10,000 ranks on -, its checker): all N send their first report at once (time from
#              the first to the last sent; drops = the kernel's UDP receive-buffer drops, system-wide), then 20 s of
#              reports from every rank every interval, spread over it (the watchdog's CPU as a share of one core, heap
#              after a full collection and peak RSS per rank, fds), then SILENT ranks stop reporting: the hang must be
#              declared within the timeout + one interval + the checker's 1 s step of the first one's last report (the
#              time past the timeout is printed: at most interval + 1 s);
#   leaves     an elastic generation's worker notifier: all N ranks report their leave at once (a RankLeft datagram
#              each, sent again with DriverReporter's growing pause until the notifier's answer for it arrives, as
#              every rank of a generation does when the world changes, from up to 1,000 loopback addresses); each
#              gives up 5 s after its first datagram (target: none gives up); time from the first datagram to the
#              last answer, datagrams sent again, the notifier's CPU seconds for it.
# Drops (nstat, system-wide): the kernel's UDP receive-buffer drops during the size's run. Then each 10x step's ratio
# (target <= 12x).
if part ranks; then
echo
echo "simulated ranks (service JIT: ${DRIVER_JIT:-c1, as troika run}); load before: $(uptime)"
printf '%-7s %-8s %6s %11s %7s %6s %6s %9s %9s %8s %9s %6s %s\n' ranks service in connect_ms retried gaveup drops cpu_core \
  heap_kb/r rss_mb rss_kb/r fds "past timeout"
rm -f "$work/rsim"
for n in ${SIM_RANK_SIZES:-100 1000 10000}; do
  silent=$((n / 10 < 10 ? n / 10 : 10))
  for svc in ${SIM_RANK_SERVICES:-progress leaves}; do
    if [ "$svc" = progress ]; then
      start_service "$work/svc.out" progress "$n" 20
    else
      start_service "$work/svc.out" notify "$n"
    fi
    drops0=$(udp_drops)
    cstart=$(cpu_ticks "$service")
    if [ "$svc" = progress ]; then
      interval=$(sed -n 's/^interval //p' "$work/svc.out")
      echo "$secret" | run_java 1g ranks "$addr" "$n" 60 "${WINDOW:-$n}" 22 "$silent" "$interval" >"$work/gen.out" 2>&1 3>&- &
    else
      echo "$secret" | run_java 1g leaves "$addr" "$n" >"$work/gen.out" 2>&1 3>&- &
    fi
    gen=$!
    wait_for '^gaveup' "$work/gen.out" 600 || { echo "scale: $n ranks did not finish connecting ($svc):" >&2; tail "$work/svc.out" "$work/gen.out" >&2; exit 1; }
    core=- heap=0 past=-
    if [ "$svc" = progress ]; then
      c0=$(cpu_ticks "$service"); sleep 20; c1=$(cpu_ticks "$service")
      core=$(awk -v d=$((c1 - c0)) -v t="$ticks" 'BEGIN { printf "%.3f", d / t / 20 }')
      echo heap >&3
      wait_for '^heap' "$work/svc.out" 300 || { echo "scale: no heap figure" >&2; exit 1; }
      heap=$(sed -n 's/^heap //p' "$work/svc.out")
      wait_for '^silent' "$work/gen.out" 300 || { echo "scale: the generator silenced no rank" >&2; exit 1; }
      wait_for '^hang at' "$work/svc.out" 300 || true
      # the hang's time past the timeout (20 s) after the last report of the first silent rank to fall quiet
      past=$(awk '/^silent/ { if (first == "" || $4 < first) first = $4 } /^hang at/ { sub(":", "", $3); at = $3 }
                  END { if (at == "") print "none"; else print at - first - 20000 }' "$work/gen.out" "$work/svc.out")
    else
      wait_for '^noted' "$work/svc.out" 100 || true
    fi
    rss=$(awk '/VmHWM/ { print $2 }' "/proc/$service/status")
    fds=$(ls "/proc/$service/fd" | wc -l)
    cpu=$(awk -v d=$(( $(cpu_ticks "$service") - cstart )) -v t="$ticks" 'BEGIN { printf "%.2f", d / t }')
    drops=$(( $(udp_drops) - drops0 ))
    kill "$gen" 2>/dev/null || true; wait "$gen" 2>/dev/null || true # the generator, started above (it may have ended)
    exec 3>&-; wait "$service" || true
    got=$(sed -n 's/^connected \([0-9]*\) .*/\1/p' "$work/gen.out")
    ms=$(sed -n 's/^connected [0-9]* retried [0-9]* in \([0-9]*\) ms/\1/p' "$work/gen.out")
    retried=$(sed -n 's/^connected [0-9]* retried \([0-9]*\) .*/\1/p' "$work/gen.out")
    gaveup=$(sed -n 's/^gaveup //p' "$work/gen.out")
    printf '%-7s %-8s %6s %11s %7s %6s %6s %9s %9s %8s %9s %6s %s\n' "$n" "$svc" "$got" "$ms" "$retried" "$gaveup" \
      "$drops" "$core" $((heap / 1024 / n)) $((rss / 1024)) $((rss / n)) "$fds" "$past"
    [ "$svc" = progress ] || echo "  $n leaves: notifier cpu $cpu s, $(sed -n 's/^noted .* in \([0-9]*\) ms/\1/p' "$work/svc.out") ms from its first event to the last"
    echo "$svc $n $ms $cpu $rss $fds $drops" >>"$work/rsim"
  done
done
echo "load after:  $(uptime)"
echo "curves (each 10x step, target <= 12x): time to all in, service CPU s (all of its run), peak RSS, fds"
awk 'function r(a, b) { return b > 0 ? sprintf("x%.2f", a / b) : (a > 0 ? "x" a "/0" : "0->0") }
     { if ($1 in prev) printf "%s %s -> %s ranks: time %s (%s -> %s ms), cpu %s, rss %s, fds %s\n", $1, prev[$1], $2,
           r($3, t[$1]), t[$1], $3, r($4, c[$1]), r($5, m[$1]), r($6, f[$1])
       prev[$1] = $2; t[$1] = $3; c[$1] = $4; m[$1] = $5; f[$1] = $6 }' "$work/rsim"
fi
