# Sourced by bin/troika, bin/troika-rsh and bin/troika-mkcds (not run by itself).
#
# An AppCDS archive made by one JVM makes any other JVM turn class-data sharing off altogether, its own default
# archive included: 0 classes from a shared archive instead of ~1,060, about 100 ms more for every start (measured:
# the JDK 17 archive under Temurin 25 on this machine, and under the Open MPI 5 root's JDK 21). So an archive
# lib/NAME.jsa is used only by the JVM that made it, whose identity bin/troika-mkcds writes to lib/NAME.jsa.jvm.

# troika_jvm_id JAVA: sets _troika_jvm to which JVM the command JAVA runs, one line: the real path of its binary and its
# JDK's runtime version (from the JDK's release file); empty when JAVA is not found. Builtins apart from one readlink.
troika_jvm_id() {
  _troika_jvm=
  _tj=$(command -v "$1" 2>/dev/null) || return 0
  if [ -L "$_tj" ]; then _tj=$(readlink -f "$_tj" 2>/dev/null) || return 0; fi
  _tv=
  if [ -f "${_tj%/bin/*}/release" ]; then
    while IFS= read -r _tl; do
      case $_tl in JAVA_RUNTIME_VERSION=*) _tv=$_tl ;; esac
    done <"${_tj%/bin/*}/release"
  fi
  _troika_jvm="$_tj $_tv"
}

# troika_cds_for ARCHIVE JAVA: whether ARCHIVE exists and was made by the JVM that JAVA runs.
troika_cds_for() {
  [ -f "$1" ] && [ -f "$1.jvm" ] || return 1
  IFS= read -r _tm <"$1.jvm" || return 1
  troika_jvm_id "$2"
  [ -n "$_troika_jvm" ] && [ "$_tm" = "$_troika_jvm" ]
}
