#!/bin/bash
# What starting a command on every node of a Slurm allocation costs the launch node, the way troika starts its task
# services inside Slurm: one srun per node (`srun --nodes=1 --ntasks=1 --overlap --nodelist=HOST`, troika before
# issue 23's change) against one step for all nodes (`srun --nodes=N --ntasks=N --ntasks-per-node=1 --overlap
# --nodelist=...`, troika now). Both start a sleep on every node; once every task runs, the srun processes on the
# launch node are sampled: count, RSS, threads, descriptors, CPU. Prints both and the ratios.
#
#   bash bench/srun-services.sh [NODES] [REPS]     (as root; default 16 nodes, 2 repetitions of each)
#
# NODES emulated nodes n1..NODES (integration-tests' slurm-up.sh: one slurmd per node on this machine, each with its
# own hostname, /tmp and /dev/shm). Their slurmstepds run on this machine too but are not counted: on a cluster
# they are on the compute nodes. Needs slurm-wlm and munge (scripts/install-deps.sh --test).
set -euo pipefail
NODES=${1:-16}
REPS=${2:-2}
[ "$(id -u)" = 0 ] || { echo "srun-services.sh: run as root (it starts slurmctld and slurmd)" >&2; exit 2; }
for t in slurmctld slurmd sbatch srun munge; do
  command -v "$t" >/dev/null || { echo "srun-services.sh: $t not found; run scripts/install-deps.sh --test" >&2; exit 2; }
done
here=$(cd "$(dirname "$0")/.." && pwd)
D=$(mktemp -d /var/tmp/troika-bench-srun-XXXXXX)
cp "$here"/integration-tests/src/test/resources/slurm/slurm-{up,down}.sh "$D"/
trap 'D=$D bash "$D/slurm-down.sh"; rm -rf "$D"' EXIT
D=$D NODES=$NODES CPUS=2 bash "$D/slurm-up.sh"
export SLURM_CONF=$D/slurm.conf

# the measurement runs inside the allocation (as troika does), on n1
cat > "$D/job.sh" <<'JOB'
#!/bin/bash
set -u
hz=$(getconf CLK_TCK)
nodes=$(scontrol show hostnames "$SLURM_JOB_NODELIST")
n=$(echo "$nodes" | wc -l)
# sums over the srun processes whose parent is this shell: count rss_kB threads fds cpu_ms
sample() {
  local count=0 rss=0 thr=0 fds=0 ticks=0
  for p in $(pgrep -P $$ -x srun); do
    st=$(cat /proc/$p/status 2>/dev/null) && sv=$(cat /proc/$p/stat 2>/dev/null) || continue
    count=$((count + 1))
    rss=$((rss + $(echo "$st" | awk '/^VmRSS/ {print $2}')))
    thr=$((thr + $(echo "$st" | awk '/^Threads/ {print $2}')))
    fds=$((fds + $(ls /proc/$p/fd 2>/dev/null | wc -l)))
    ticks=$((ticks + $(echo "$sv" | awk '{print $14 + $15}')))
  done
  echo "$count $rss $thr $fds $((ticks * 1000 / hz))"
}
# waits until every node runs its sleep (a marker file per node under the shared state directory)
running() {
  for _ in $(seq 1 300); do
    [ "$(ls "$1" 2>/dev/null | wc -l)" -ge "$n" ] && return 0
    sleep 0.05
  done
  echo "not every node started its task" >&2
  return 1
}
# each task lives until well after the last one started (all of them up took ~8 s at 64 nodes here)
task="mkdir -p $MARK/\$1 && touch $MARK/\$1/\$SLURMD_NODENAME && sleep $((6 + n / 4))"
for r in $(seq 1 "$REPS"); do
  m=one-per-node-$r; t0=$(date +%s%N)
  for h in $nodes; do
    srun --nodes=1 --ntasks=1 --overlap --nodelist="$h" /bin/sh -c "$task" sh "$m" </dev/null &
  done
  running "$MARK/$m"; t1=$(date +%s%N); echo "$m $(( (t1 - t0) / 1000000 )) $(sample)"; wait
  m=one-step-$r; t0=$(date +%s%N)
  srun --nodes="$n" --ntasks="$n" --ntasks-per-node=1 --overlap --kill-on-bad-exit=0 --input=all \
    --nodelist="$(echo $nodes | tr ' ' ,)" /bin/sh -c "$task" sh "$m" </dev/null &
  running "$MARK/$m"; t1=$(date +%s%N); echo "$m $(( (t1 - t0) / 1000000 )) $(sample)"; wait
done
JOB
mkdir -p "$D/marks"
out=$D/job.out
id=$(MARK=$D/marks REPS=$REPS sbatch --parsable -N "$NODES" -n "$NODES" --export=ALL -o "$out" "$D/job.sh")
for _ in $(seq 1 1200); do
  state=$(scontrol show job "$id" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
  case "$state" in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL) break ;; esac
  sleep 0.25
done
[ "$state" = COMPLETED ] || { echo "srun-services.sh: the job ended $state" >&2; cat "$out" >&2; exit 1; }
echo "launch-node cost of one command on each of $NODES Slurm nodes (load: $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-16s %8s %7s %9s %8s %6s %7s\n' mode all_up_ms srun rss_MB threads fds cpu_ms
awk '/^one-/ {printf "%-16s %8d %7d %9.1f %8d %6d %7d\n", $1, $2, $3, $4 / 1024, $5, $6, $7}' "$out"
awk '/^one-per-node/ {c++; up+=$2; rss+=$4; thr+=$5; fd+=$6; cpu+=$7}
     /^one-step/ {s++; sup+=$2; srss+=$4; sthr+=$5; sfd+=$6; scpu+=$7}
     END {if (c && s) printf "per node / one step (means): all up %.2fx, RSS %.1fx, threads %.1fx, fds %.1fx, CPU %.1fx\n",
          up / c / (sup / s), rss / c / (srss / s), thr / c / (sthr / s), fd / c / (sfd / s), cpu / c / (scpu / s + 0.001)}' "$out"
grep -v '^one-' "$out" >&2 || true
