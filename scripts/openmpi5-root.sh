#!/bin/bash
# Builds, once per machine, the Debian trixie root in which the test suite runs Open MPI 5 (Debian 12 ships only
# Open MPI 4.1.4; trixie ships 5.0.7 with PRRTE 3.0.8 and ULFM). Called by `scripts/install-deps.sh --test`.
#
#   scripts/openmpi5-root.sh          build the root unless it is there with the same package list
#   scripts/openmpi5-root.sh --path   print where the root is (TROIKA_OMPI5_ROOT, default below)
#
# The root lives outside any checkout, at a fixed path, so every checkout and every CI step on the machine reuses it.
# A marker file in it records the suite and the package list; when this script's list changes, the next run builds a
# new root and swaps it in. Needs root, mmdebstrap (installed here if missing) and the Debian archive (the default
# mirror, or TROIKA_DEBIAN_MIRROR). About 80 s and 305 MB of downloads on 2 cores; 1.1 GB on disk.
# The tests enter it with org.troika.testkit.OpenMpi5Root (a private mount namespace per command, see there).
set -euo pipefail

ROOT=${TROIKA_OMPI5_ROOT:-/var/cache/troika-test/openmpi5-root}
SUITE=trixie
# What the integration tests run inside: Open MPI 5 and its compilers (libopenmpi-dev pulls gfortran, gcc is still
# needed by mpicc), a JDK for troika itself and JNA ranks (FFM ranks use the host's JDK 22+, bind-mounted), the tools
# the relay and the namespace hosts use (ip netns exec, unshare, setsid, mount, hostname, ps/pgrep).
PACKAGES=(openmpi-bin libopenmpi-dev gcc libc6-dev openjdk-21-jdk-headless procps iproute2 util-linux mount hostname)
MARKER=.troika-root-packages
# bump SETUP when the steps after mmdebstrap change: the marker then differs and the root is rebuilt
SETUP=3
want="suite=$SUITE setup=$SETUP packages=${PACKAGES[*]}"

if [ "${1:-}" = "--path" ]; then
  echo "$ROOT"
  exit 0
fi
up_to_date() { [ -f "$ROOT/$MARKER" ] && [ "$(cat "$ROOT/$MARKER")" = "$want" ]; }
if up_to_date; then
  echo "troika: Open MPI 5 test root is up to date ($ROOT)"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "troika: the Open MPI 5 test root $ROOT is missing or stale; build it as root: sudo $0" >&2
  exit 2
fi
if ! command -v mmdebstrap >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
fi

mkdir -p "$(dirname "$ROOT")"
# one builder per machine: a second caller waits, then finds the root built
exec 9>"$ROOT.lock"
flock 9
if up_to_date; then
  echo "troika: Open MPI 5 test root is up to date ($ROOT)"
  exit 0
fi
new="$ROOT.new.$$"
trap 'rm -rf "$new"' EXIT
start=$(date +%s)
echo "troika: building the Open MPI 5 test root ($SUITE: ${PACKAGES[*]}) in $ROOT"
include=$(IFS=,; echo "${PACKAGES[*]}")
# shellcheck disable=SC2086
mmdebstrap --quiet --variant=apt --include="$include" "$SUITE" "$new" ${TROIKA_DEBIAN_MIRROR:-}
# mount points the tests bind into (the host's JDKs, network namespaces); a root for mpirun needs HOME
mkdir -p "$new/run/netns" "$new/root"
touch "$new/etc/hosts"
version=$(chroot "$new" /usr/bin/mpirun --version | head -1)
# the JDK's default class-data archive (lib/server/classes.jsa): the package makes it at install time with
# `java -Xshare:dump`, which cannot run in mmdebstrap's chroot without /proc (the java launcher finds its libraries
# through /proc/self/exe), so the root had none and every JVM in it started without class-data sharing (0 classes
# from an archive, ~1,060 with it). Made here in a private mount namespace with /proc; the mount ends with it.
unshare --mount --propagation private sh -c 'mount -t proc proc "$1/proc" && exec chroot "$1" env -i PATH=/usr/bin:/bin \
  HOME=/root java -Xshare:dump' sh "$new" >/dev/null
echo "$want" > "$new/$MARKER"
if [ -e "$ROOT" ]; then
  mv "$ROOT" "$ROOT.old.$$"
  rm -rf "$ROOT.old.$$"
fi
mv "$new" "$ROOT"
trap - EXIT
echo "troika: built the Open MPI 5 test root in $(( $(date +%s) - start )) s: $version"
