# Sourced by scripts/demo-elastic.sh and bench/elastic-e2e.sh (not run on its own): three fake hosts as network
# namespaces on one bridge, reached with `ip netns exec <address>`. Needs root and iproute2.
#   netns_hosts_up TAG NET    bridge TAGbr 10.NET.0.1/24; namespaces named 10.NET.0.2-4, each with interface nicI
#   netns_hosts_down TAG NET  deletes them again (quietly, so it can also run before _up)
netns_hosts_down() {
  local tag=$1 net=$2 i
  for i in 1 2 3; do
    ip netns del "10.$net.0.$((i+1))" 2>/dev/null || true
    ip link del "${tag}v$i" 2>/dev/null || true
  done
  ip link del "${tag}br" 2>/dev/null || true
}

netns_hosts_up() {
  local tag=$1 net=$2 i h
  ip link add "${tag}br" type bridge
  ip addr add "10.$net.0.1/24" dev "${tag}br"
  ip link set "${tag}br" up
  for i in 1 2 3; do
    h=10.$net.0.$((i+1))
    ip netns add "$h"
    ip link add "${tag}v$i" type veth peer name "nic$i" netns "$h"
    ip link set "${tag}v$i" master "${tag}br"
    ip link set "${tag}v$i" up
    ip -n "$h" link set lo up
    ip -n "$h" addr add "$h/24" dev "nic$i"
    ip -n "$h" link set "nic$i" up
  done
}
