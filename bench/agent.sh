#!/bin/bash
# Launch-agent cost: start-to-relay latency and peak RSS of one `troika-rsh HOST true` (a full relay: driver lookup,
# authenticated Exec on the host's task service, /bin/sh runs `true`, exit code back), compared with a bare JVM start
# (`java -version` with the same flags) measured in the same run; with and without the AppCDS archive; then a burst
# of 128 concurrent agents (Open MPI's default plm_rsh_num_concurrent) that must all succeed. The agent without a JVM
# (lib/troika-rsh-agent, built here from rsh-agent/src/main/c with cc) in the same rows and burst, when cc is there.
# The per-daemon cost on the node that starts it (issue 23.1): an agent that starts an Open MPI daemon (its words carry
# --tree-spawn; here `sleep 60`, a daemon that stays up) hands it over to the task service once it has run 1 s and
# exits 0: its wall time to exit, its CPU (user + system) and its peak RSS, next to the same agent for `true`.
# Driver and task services: org.troika.rsh.driver.LocalRelayMain (rsh-agent test classes) on loopback (4 fake hosts, one JVM).
#
#   bench/agent.sh [REPS]     (default 15; uses dist/target/troika if built, else rsh-agent/common target jars)
# Numbers on a shared, loaded machine are noisy: read the medians and ratios.
set -euo pipefail
reps=${1:-15}
root=$(cd "$(dirname "$0")/.." && pwd -P)
work=$(mktemp -d)
relay_pid=
cleanup() {
  [ -n "$relay_pid" ] && kill "$relay_pid" 2>/dev/null || true
  exec 3>&- 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# a private copy of the agent's distribution layout (from the freshly built module jars): bin/troika-rsh + the three jars (+ the CDS archive made below)
mkdir -p "$work/troika/bin" "$work/troika/lib"
cp "$root/dist/src/bin/troika-rsh" "$work/troika/bin/"
cp "$root/dist/src/lib/troika-jvm.sh" "$work/troika/lib/"
for m in rsh-agent:troika-rsh wire:troika-wire common:troika-common; do
  jar=$(ls "$root/${m%%:*}/target/${m##*:}"-*.jar 2>/dev/null | grep -v -e sources -e tests -e javadoc | head -1 || true)
  [ -n "$jar" ] || { echo "agent.sh: build first: mvn -o -q install -pl common,wire,rsh-agent -DskipTests" >&2; exit 2; }
  cp "$jar" "$work/troika/lib/${m##*:}.jar"
done
agent="$work/troika/bin/troika-rsh"
native=0
cc -O2 -std=c11 -o "$work/troika/lib/troika-rsh-agent" "$root/rsh-agent/src/main/c/troika-rsh-agent.c" && native=1 \
  || echo "agent.sh: no C compiler: only the JVM agent is measured" >&2
cp="$work/troika/lib/troika-rsh.jar:$work/troika/lib/troika-wire.jar:$work/troika/lib/troika-common.jar"

# driver + 4 task services; their env lines arrive on stdout; fifo 3 keeps its stdin open until we exit
mkfifo "$work/in"
# LocalRelayMain is a test class of rsh-agent (not shipped in the jar)
java -XX:+UseSerialGC -cp "$cp:$root/rsh-agent/target/test-classes" org.troika.rsh.driver.LocalRelayMain h1 h2 h3 h4 <"$work/in" >"$work/env" 2>"$work/relay.err" &
relay_pid=$!
exec 3>"$work/in"
for _ in $(seq 1 600); do grep -q TROIKA_SECRET_FILE "$work/env" 2>/dev/null && break; sleep 0.1; done
grep -q TROIKA_SECRET_FILE "$work/env" || { echo "agent.sh: the local relay did not start:" >&2; cat "$work/relay.err" >&2; exit 1; }
set -a; . "$work/env"; set +a

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2))}'; }
measure() { # label, command...; prints "label median_ms peak_rss_kb median_cpu_ms"
  local label=$1; shift
  local t rss=0 r u sy
  : >"$work/times"; : >"$work/cpu"
  for _ in $(seq 1 "$reps"); do
    t=$(date +%s%N)
    /usr/bin/time -f '%M %U %S' -o "$work/rss" "$@" >/dev/null 2>"$work/cmd.err" \
      || { echo "$label failed:" >&2; cat "$work/cmd.err" "$work/relay.err" >&2; exit 1; }
    ms "$t" >>"$work/times"
    read -r r u sy < <(tail -1 "$work/rss"); [ "$r" -gt "$rss" ] && rss=$r
    awk -v u="$u" -v s="$sy" 'BEGIN{printf "%d\n", (u+s)*1000}' >>"$work/cpu"
  done
  echo "$label $(median <"$work/times") $rss $(median <"$work/cpu")"
}
flags=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto -XX:-UsePerfData -Xss256k -Xms4m -Xmx48m)
base=$(measure "jvm-baseline" java "${flags[@]}" -version)
jvm=(env TROIKA_RSH_NATIVE=off "$agent")
plain=$(measure "agent" "${jvm[@]}" h1 true)
TROIKA_RSH_JAVA_OPTS="-XX:ArchiveClassesAtExit=$work/troika/lib/troika-rsh.jsa" "${jvm[@]}" h2 true 2>/dev/null
cds=$(measure "agent+cds" "${jvm[@]}" h3 true)
# an Open MPI daemon that stays up: the agent exits once the task service took it over (1 s window)
daemon=$(measure "daemon+cds" "${jvm[@]}" h4 sleep 60 '#' --tree-spawn)
rows=("$base" "$plain" "$cds" "$daemon")
if [ $native = 1 ]; then
  rows+=("$(measure "native" "$agent" h1 true)" "$(measure "native-daemon" "$agent" h4 sleep 60 '#' --tree-spawn)")
fi

printf '%-14s %10s %8s %12s %8s\n' what median_ms ratio peak_rss_MB cpu_ms
b=$(echo "$base" | cut -d' ' -f2)
for line in "${rows[@]}"; do
  read -r label m rss cpu <<<"$line"
  printf '%-14s %10s %8s %12s %8s\n' "$label" "$m" "$(awk -v m="$m" -v b="$b" 'BEGIN{printf "%.2f", m/b}')" \
    "$(awk -v r="$rss" 'BEGIN{printf "%.1f", r/1024}')" "$cpu"
done
echo "daemon+cds: the agent's life for a daemon that stays up = JVM start + lookup + Launch + the 1 s start window;"
echo "  before issue 23.1 it lived (and held ~37 MB) as long as the daemon"

# burst: 128 agents at once over the 4 fake hosts; every one must exit 0
burst() { # label, native (on/off)
  local t=$(date +%s%N) ok
  seq 1 128 | TROIKA_RSH_NATIVE=$2 xargs -P 128 -I{} sh -c 'h=h$(( {} % 4 + 1 )); exec "$0" "$h" true' "$agent" \
    2>"$work/burst.err" && ok=ok || ok=FAILED
  echo "burst of 128 concurrent $1 agents: $ok in $(ms "$t") ms ($(grep -c . "$work/burst.err" || true) stderr lines)"
  [ "$ok" = ok ] || { sort "$work/burst.err" | uniq -c | head -5 >&2; return 1; }
}
failed=0
burst JVM off || failed=1
[ $native = 0 ] || burst native on || failed=1
[ $failed = 0 ]
