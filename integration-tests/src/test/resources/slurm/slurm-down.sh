#!/bin/bash
# Stops what slurm-up.sh started in $D: slurmctld, every slurmd and (only if slurm-up started it) munged,
# by the pids in their pid files. TERM first, KILL after 5 s. Zombies (state Z) count as gone.
: "${D:?set D to the state directory}"
alive() { [ -e "/proc/$1" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }
pids=$(cat "$D"/slurmctld.pid "$D"/slurmd-*.pid "$D"/munged.pid 2>/dev/null | grep -E '^[0-9]+$')
[ -n "$pids" ] || exit 0
kill $pids 2>/dev/null
for _ in $(seq 1 50); do
  left=0
  for p in $pids; do alive "$p" && left=1; done
  [ $left = 0 ] && break
  sleep 0.1
done
for p in $pids; do alive "$p" && kill -9 "$p" 2>/dev/null; done
rm -f "$D"/slurmctld.pid "$D"/slurmd-*.pid "$D"/munged.pid
exit 0
