# Sourced by scripts/demo-elastic.sh and bench/elastic-e2e.sh (not run on its own): three fake hosts that share
# nothing a real cluster's nodes would not share. Each host is a network namespace on one bridge AND its own mount and
# UTS namespace (hostname TAG1..TAG3, empty private /tmp and /dev/shm, an /etc/hosts naming the three hosts), held by a
# long-lived "anchor" process; `netns_enter HOST CMD...` (or the --remote-shell template from netns_remote_shell) runs
# a command on a host in all three namespaces with a fresh login-like environment, as ssh would. Needs root, iproute2
# and util-linux. The same layout as testkit's NetnsCluster (the Java fixture of the integration tests).
#   netns_hosts_up TAG NET [SHARED...]  bridge TAGbr 10.NET.0.1/24; hosts named 10.NET.0.2-4 (interface nicI);
#                                       SHARED paths under /tmp (e.g. an installation there) stay visible on every host
#   netns_hosts_down TAG NET            kills everything on the hosts (anchors included), deletes namespaces and state
#                                       (quietly, so it can also run before _up)
#   netns_remote_shell TAG              prints the --remote-shell template that starts task services on a host
# State (pid files, the enter script, the hosts file) lives in /var/tmp/troika-netns-TAG: not /tmp, which every
# host has its own of.

netns_state() { echo "/var/tmp/troika-netns-$1"; }

netns_hosts_down() {
  local tag=$1 net=$2 i h pids
  for i in 1 2 3; do
    h=10.$net.0.$((i+1))
    pids=$(ip netns pids "$h" 2>/dev/null || true)
    # shellcheck disable=SC2086
    if [ -n "$pids" ]; then kill -9 $pids 2>/dev/null || true; fi
    ip netns del "$h" 2>/dev/null || true
    ip link del "${tag}v$i" 2>/dev/null || true
  done
  ip link del "${tag}br" 2>/dev/null || true
  rm -rf "$(netns_state "$tag")"
}

netns_hosts_up() {
  local tag=$1 net=$2 i h st n
  shift 2
  st=$(netns_state "$tag")
  mkdir -p "$st"
  ip link add "${tag}br" type bridge
  ip addr add "10.$net.0.1/24" dev "${tag}br"
  ip link set "${tag}br" up
  { echo "127.0.0.1 localhost"; for i in 1 2 3; do echo "10.$net.0.$((i+1)) $tag$i"; done; } > "$st/hosts"
  for i in 1 2 3; do
    h=10.$net.0.$((i+1))
    ip netns add "$h"
    ip link add "${tag}v$i" type veth peer name "nic$i" netns "$h"
    ip link set "${tag}v$i" master "${tag}br"
    ip link set "${tag}v$i" up
    ip -n "$h" link set lo up
    ip -n "$h" addr add "$h/24" dev "nic$i"
    ip -n "$h" link set "nic$i" up
    # the anchor: hostname, private /tmp and /dev/shm, the hosts file; shared paths under /tmp are bound back in
    # (staged outside /tmp first); prints its pid, then holds the namespaces until netns_hosts_down kills it. Started
    # in a subshell so it is not a job of the caller's shell (a plain `wait` there must not wait for it)
    # shellcheck disable=SC2016
    ( ip netns exec "$h" unshare --mount --uts --propagation private /bin/sh -c '
      set -e
      hostname "$0"; stage=$1; etc_hosts=$2; shift 2
      i=0; for p in "$@"; do   # a file (a jar) or a folder: its mount point alike
        if [ -d "$p" ]; then mkdir -p "$stage/$i"; else mkdir -p "$stage"; : > "$stage/$i"; fi
        mount --bind "$p" "$stage/$i"; i=$((i+1)); done
      mount -t tmpfs -o mode=1777 troika-host-tmp /tmp
      mount -t tmpfs -o mode=1777 troika-host-shm /dev/shm
      mount --bind "$etc_hosts" /etc/hosts
      i=0; for p in "$@"; do
        if [ -d "$stage/$i" ]; then mkdir -p "$p"; else mkdir -p "${p%/*}"; [ -e "$p" ] || : > "$p"; fi
        mount --move "$stage/$i" "$p"; i=$((i+1)); done
      echo "ready $$"
      exec sleep infinity' "$tag$i" "$st/stage-$i" "$st/hosts" "$@" > "$st/anchor-$h.out" 2>&1 < /dev/null & )
    for n in $(seq 1 100); do
      grep -q '^ready ' "$st/anchor-$h.out" 2>/dev/null && break
      sleep 0.05
    done
    grep '^ready ' "$st/anchor-$h.out" | cut -d' ' -f2 > "$st/anchor-$h.pid" \
      || { echo "netns-hosts: the anchor of $h did not start: $(cat "$st/anchor-$h.out")" >&2; return 1; }
  done
  cat > "$st/enter" <<EOF
#!/bin/sh
# enter HOST CMD...: runs CMD on the fake host HOST (its network, mount and UTS namespaces), login-like environment
h=\$1; shift
pid=\$(cat "$st/anchor-\$h.pid" 2>/dev/null) || { echo "enter: no host \$h" >&2; exit 255; }
exec nsenter -t "\$pid" -m -u -n --wd=/ -- env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\
  HOME=/root LANG=C.UTF-8 \${JAVA_HOME:+JAVA_HOME=\$JAVA_HOME} "\$@"
EOF
  chmod 700 "$st/enter"
}

netns_remote_shell() { echo "$(netns_state "$1")/enter {host}"; }

netns_enter() { local tag=$1; shift; "$(netns_state "$tag")/enter" "$@"; }
