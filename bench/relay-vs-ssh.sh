#!/bin/bash
# Time from `troika run` to the end of a 3-rank MPI hello (MPI_Init + Allreduce + Finalize) on three network-namespace
# hosts, three ways, REPS rounds interleaved, medians and ratios against plain ssh measured in the same run:
#   ssh    --launch-agent ssh                      (Open MPI's ssh into sshd in each namespace; no task services)
#   relay  --remote-shell 'ip netns exec {host}'   (task services + troika-rsh agent + network detection; no sshd used)
#   relay-nics  the same with --network-interfaces given (detection skipped)
# Needs root, iproute2, openssh-server, mpicc, and the built distribution (mvn -o -q install -DskipTests).
#   bench/relay-vs-ssh.sh [REPS]   (default 5)
# Numbers on a shared, loaded machine are noisy: read the ratios.
set -euo pipefail
reps=${1:-5}
root=$(cd "$(dirname "$0")/.." && pwd -P)
troika="$root/dist/target/troika/bin/troika"
[ -x "$troika" ] || { echo "relay-vs-ssh: build the distribution first (mvn -o -q install -DskipTests)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "relay-vs-ssh: needs root (network namespaces)" >&2; exit 2; }
S=10.230; br=rvsbr; hosts=(10.230.0.2 10.230.0.3 10.230.0.4)
work=$(mktemp -d)
down() {
  for h in "${hosts[@]}"; do
    pids=$(ip netns pids "$h" 2>/dev/null || true); [ -n "$pids" ] && kill -9 $pids 2>/dev/null || true
    ip netns del "$h" 2>/dev/null || true
  done
  for i in 1 2 3; do ip link del rvsv$i 2>/dev/null || true; done
  ip link del $br 2>/dev/null || true
  rm -rf "$work"
}
trap down EXIT
down 2>/dev/null; work=$(mktemp -d)

cat >"$work/hello.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int r, s, sum; MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &s);
  MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d/%d sum=%d\n", r, s, sum); MPI_Finalize(); return 0;
}
C
mpicc -O1 -o "$work/hello" "$work/hello.c"

ssh-keygen -q -t ed25519 -N '' -f "$work/host_key"; ssh-keygen -q -t ed25519 -N '' -f "$work/id"
cp "$work/id.pub" "$work/authorized_keys"; mkdir -p /run/sshd
printf '%s\n' "HostKey $work/host_key" "PermitRootLogin prohibit-password" "PasswordAuthentication no" \
  "KbdInteractiveAuthentication no" "UsePAM no" "StrictModes no" "AuthorizedKeysFile $work/authorized_keys" \
  "PrintMotd no" "MaxStartups 100:30:200" >"$work/sshd_config"
printf '%s\n' "Host *" "  User root" "  IdentityFile $work/id" "  IdentitiesOnly yes" "  StrictHostKeyChecking no" \
  "  UserKnownHostsFile /dev/null" "  LogLevel ERROR" "  BatchMode yes" "  ConnectTimeout 5" >"$work/ssh_config"
ip link add $br type bridge; ip addr add $S.0.1/24 dev $br; ip link set $br up
i=0
for h in "${hosts[@]}"; do
  i=$((i+1))
  ip netns add "$h"
  ip link add rvsv$i type veth peer name nic$i netns "$h"; ip link set rvsv$i master $br; ip link set rvsv$i up
  ip -n "$h" link set lo up; ip -n "$h" addr add "$h/24" dev nic$i; ip -n "$h" link set nic$i up
  ip netns exec "$h" unshare --uts /bin/sh -c "hostname $h; exec /usr/sbin/sshd -f $work/sshd_config -o ListenAddress=$h"
done
for h in "${hosts[@]}"; do for _ in $(seq 1 100); do ssh -F "$work/ssh_config" "$h" true 2>/dev/null && break; done; done

H=$(printf '%s:1,' "${hosts[@]}"); H=${H%,}
run() { # label, troika run args...
  local label=$1; shift
  local t; t=$(date +%s%N)
  "$troika" run -np 3 -H "$H" "$@" "$work/hello" >"$work/out" 2>"$work/err" || { echo "$label failed:" >&2; cat "$work/out" "$work/err" >&2; exit 1; }
  [ "$(grep -c 'sum=3' "$work/out")" = 3 ] || { echo "$label: wrong output" >&2; cat "$work/out" >&2; exit 1; }
  echo "$label $(( ($(date +%s%N) - t) / 1000000 ))" >>"$work/times"
}
for _ in $(seq 1 "$reps"); do
  OMPI_MCA_plm_rsh_args="-F $work/ssh_config" run ssh --launch-agent ssh
  run relay --remote-shell 'ip netns exec {host}'
  run relay-nics --remote-shell 'ip netns exec {host}' --network-interfaces $S.0.0/24
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2))}'; }
base=$(awk '$1=="ssh"{print $2}' "$work/times" | median)
printf '%-11s %10s %7s\n' way median_ms ratio
for w in ssh relay relay-nics; do
  m=$(awk -v w=$w '$1==w{print $2}' "$work/times" | median)
  printf '%-11s %10s %7s\n' $w "$m" "$(awk -v m="$m" -v b="$base" 'BEGIN{printf "%.2f", m/b}')"
done
