#!/bin/bash
# Installs what troika needs on Debian/Ubuntu, or says exactly what to install.
#   scripts/install-deps.sh          build + run: a JDK 17, Maven, Open MPI
#   scripts/install-deps.sh --test   also what the test suite needs: MPICH, NetPIPE, sshd, Slurm + munge, iproute2,
#                                    chromium (renders the timeline page in TimelineHtmlChromiumTest), and the Debian
#                                    trixie root with Open MPI 5 (scripts/openmpi5-root.sh: built once per machine at a
#                                    fixed path outside the checkout, then reused)
# As root it installs the missing Debian packages with apt-get (no services are started: a policy-rc.d
# that denies starting them is put in place for the install if none exists). As another user it prints the
# apt-get command to run and exits 2.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
test=0
[ "${1:-}" = "--test" ] && test=1

want=(openmpi-bin libopenmpi-dev)
check=(mpirun mpicc)
command -v java >/dev/null 2>&1 || want+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || want+=(maven)
command -v setsid >/dev/null 2>&1 || want+=(util-linux)
# bin/troika-mkcds builds the launch agent without a JVM (lib/troika-rsh-agent) with it; mpicc needs one too
command -v cc >/dev/null 2>&1 || want+=(gcc)
if [ $test = 1 ]; then
  want+=(mpich libmpich-dev netpipe-openmpi openssh-server openssh-client iproute2 iputils-ping slurm-wlm munge procps
    chromium mmdebstrap)
fi

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "troika: all required packages are installed"
  [ $test = 0 ] || bash "$here/openmpi5-root.sh"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "troika: missing packages: ${missing[*]}" >&2
  echo "troika: install them with: sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 2
fi
export DEBIAN_FRONTEND=noninteractive
made_policy=0
if [ ! -x /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; made_policy=1
fi
trap '[ "$made_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d' EXIT
echo "troika: installing ${missing[*]}"
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
for c in "${check[@]}"; do command -v "$c" >/dev/null || { echo "troika: $c still missing after install" >&2; exit 1; }; done
echo "troika: installed ${missing[*]}"
[ $test = 0 ] || bash "$here/openmpi5-root.sh"
