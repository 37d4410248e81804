# Sourced by bench/mpi.sh and bench/omb-java.sh: commands inside the Open MPI 5 root that scripts/openmpi5-root.sh
# builds, where Open MPI 5.0.7's own Java bindings (../shared/peers/ompi-java, JNI) run. Each command runs in a
# private mount namespace (nothing is mounted on the host): the root with /proc, /sys, /dev, a private /dev/shm, the
# host's JDK given as $1 to in_root's caller (FFM ranks; bind-mounted at the same path) and the host's /tmp, where the
# benchmarks' programs and jars are.
OMPI5_ROOT=${TROIKA_OMPI5_ROOT:-/var/cache/troika-test/openmpi5-root}
PEER=${PEER:-/work/shared/peers/ompi-java}
# in_root JDK_HOME COMMAND...
in_root() {
  unshare --mount --propagation private /bin/sh -c '
    set -e; R=$1; J=$2; shift 2
    mount --bind "$R" "$R"; mount -t proc proc "$R/proc"; mount -t sysfs sysfs "$R/sys"; mount --rbind /dev "$R/dev"
    mount -t tmpfs -o mode=1777,nosuid,nodev shm "$R/dev/shm"
    mkdir -p "$R$J" "$R/tmp"; mount --bind "$J" "$R$J"; mount --rbind /tmp "$R/tmp"
    exec chroot "$R" env -i PATH=/usr/bin:/bin HOME=/root OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$@"
  ' sh "$OMPI5_ROOT" "$1" "${@:2}"
}
# whether the root and the peer's jar are there and this runs as root (needed for the mounts)
ompi5_available() {
  [ -f "$OMPI5_ROOT/.troika-root-packages" ] && [ -f "$PEER/mpi.jar" ] && [ "$(id -u)" = 0 ]
}
