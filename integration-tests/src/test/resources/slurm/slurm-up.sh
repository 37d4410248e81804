#!/bin/bash
# Starts a Slurm "cluster" of NODES emulated nodes n1..nNODES on this machine for troika's integration tests:
# munged (only if none runs), slurmctld, and one slurmd per node, all as root, no cgroups, no accounting.
# Each slurmd runs in its own UTS + mount namespace (hostname n<i>, private /tmp and /dev/shm, and an /etc/hosts
# naming n<i> as 127.0.0.<i>), so the nodes share no scratch files, as real nodes do not, and Open MPI and PMIx
# session files of different nodes do not collide. Facts behind this: MEASURED-HERE.md §4.2 and §7.
#   D      state directory (required; must NOT be under /tmp, since every node gets a private /tmp)
#   NODES  number of nodes (default 3), CPUS per node (default 2)
# Every daemon leaves a pid file in $D; slurm-down.sh stops them by those pids.
set -euo pipefail
: "${D:?set D to the state directory}"
NODES=${NODES:-3}; CPUS=${CPUS:-2}
case "$D" in /tmp|/tmp/*) echo "slurm-up: D=$D must not be under /tmp" >&2; exit 2 ;; esac
export SLURM_CONF=$D/slurm.conf
mkdir -p "$D/state"
cat > "$SLURM_CONF" <<CONF
ClusterName=troika-it
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool-%n
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd-%n.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SlurmdParameters=config_overrides
MinJobAge=30
KillWait=5
InactiveLimit=0
NodeName=n[1-$NODES] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[17001-$((17000 + NODES))] CPUs=$CPUS Boards=1 SocketsPerBoard=1 CoresPerSocket=$CPUS ThreadsPerCore=1 RealMemory=2000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF

# munge: the Debian package creates the key; the daemon runs as user munge. Start it only if none answers.
if ! munge -n >/dev/null 2>&1; then
  mkdir -p /run/munge && chown munge:munge /run/munge
  [ -f /etc/munge/munge.key ] || { /usr/sbin/mungekey -c; chown munge:munge /etc/munge/munge.key; }
  runuser -u munge -- /usr/sbin/munged
  cp /run/munge/munged.pid "$D/munged.pid"   # ours: slurm-down.sh stops it
fi

slurmctld -c
# the nodes' names resolve on every node (real clusters have DNS); 127.0.0.x other than .1 is not "this machine" to
# Open MPI, so it starts daemons on the other nodes through its launcher
{ echo "127.0.0.1 localhost"; for i in $(seq 1 "$NODES"); do echo "127.0.0.$i n$i"; done; } > "$D/hosts"
for i in $(seq 1 "$NODES"); do
  n=n$i
  mkdir -p "$D/spool-$n" "$D/tmp-$n"
  chmod 1777 "$D/tmp-$n"
  unshare --uts --mount --propagation private /bin/sh -c "hostname $n && mount --bind '$D/tmp-$n' /tmp \
    && mount -t tmpfs -o mode=1777 troika-node-shm /dev/shm && mount --bind '$D/hosts' /etc/hosts && exec slurmd -N $n"
done
for _ in $(seq 1 300); do
  [ "$(sinfo -h -o '%T %D' 2>/dev/null)" = "idle $NODES" ] && exit 0
  sleep 0.1
done
echo "slurm-up: the $NODES nodes did not become idle within 30 s" >&2
sinfo >&2 || true
tail -n 20 "$D"/slurmctld.log "$D"/slurmd-*.log >&2 || true
exit 1
