# Sourced by bin/troika, bin/troika-rsh and bin/troika-mkcds (not run by itself), and by bench/scale.sh and
# bench/discovery-cycle.sh.
#
# An AppCDS archive made by one JVM makes any other JVM turn class-data sharing off altogether, its own default
# archive included: 0 classes from a shared archive instead of ~1,060, about 100 ms more for every start (measured:
# the JDK 17 archive under Temurin 25 on this machine, and under the Open MPI 5 root's JDK 21). So an archive
# lib/NAME.jsa is used only by the JVM that made it, which bin/troika-mkcds writes to lib/NAME.jsa.jvm.

# troika_find JAVA: sets _tj to the file the command JAVA runs (a path as given, else the first executable file of
# that name on PATH), empty when there is none. Shell builtins only (no process: this runs before every troika start).
troika_find() {
  case $1 in
    */*) _tj=$1 ;;
    *)
      _tj= _ts=$IFS
      IFS=:
      for _td in $PATH; do
        if [ -f "${_td:-.}/$1" ] && [ -x "${_td:-.}/$1" ]; then _tj=${_td:-.}/$1; break; fi
      done
      IFS=$_ts ;;
  esac
}

# troika_jvm_id JAVA (bin/troika-mkcds): sets _troika_jvm to which JVM the command JAVA runs, one line: the real path
# of its binary, then its JDK's runtime version (from the JDK's release file), for people; empty when not found.
troika_jvm_id() {
  _troika_jvm=
  troika_find "$1"
  [ -n "$_tj" ] && _tj=$(readlink -f "$_tj" 2>/dev/null) || return 0
  _tv=
  if [ -f "${_tj%/bin/*}/release" ]; then
    while IFS= read -r _tl; do
      case $_tl in JAVA_RUNTIME_VERSION=*) _tv=$_tl ;; esac
    done <"${_tj%/bin/*}/release"
  fi
  _troika_jvm="$_tj $_tv"
}

# troika_cds_for ARCHIVE JAVA: whether ARCHIVE exists and was made by the binary the command JAVA runs (the same file:
# `test -ef` follows symbolic links such as /usr/bin/java -> /etc/alternatives/java, and a JDK updated in place has a
# new binary).
troika_cds_for() {
  [ -f "$1" ] && [ -f "$1.jvm" ] || return 1
  read -r _tm _tr <"$1.jvm" || return 1
  troika_find "$2"
  [ -n "$_tj" ] && [ -n "$_tm" ] && [ "$_tj" -ef "$_tm" ]
}

# troika_jit (bin/troika; bench/scale.sh and bench/discovery-cycle.sh for the code they run alone): sets _troika_jit to
# troika run's compiler options. C1 only and compiling only 10x hotter code: a run executes most code once (the compile
# threads cost ~20 ms CPU, measured with bench/startup.sh). Some code runs per byte or per host and is compiled at the
# JDK's default thresholds instead (a tenth of ten times them): the output pipeline (every byte of a chatty job's output
# goes through it; its per-line loop would otherwise run interpreted for most of a 24 MB stream, bench/output.sh), and
# the wire protocol and the driver service, whose work (hellos, frames and their HMACs, registrations, heartbeats) runs
# once per task service: registering 10,000 simulated hosts took 0.3-0.5 s more of the driver's CPU at ten times the
# thresholds (bench/scale.sh), and a small job never reaches the default ones. "quiet" first: CompileCommand otherwise
# prints each command on stdout, into the job's output. The patterns are words of the result: expand it with `set -f`.
troika_jit() {
  _troika_jit="-XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=10 -XX:CompileCommand=quiet"
  for _tm in org.troika.common.exec.ProcessSupervisor::pump 'org.troika.launcher.exec.LaunchOutput*::*' \
    'org.troika.launcher.spi.RankOutput*::*' 'org.troika.launcher.exec.RankFileWriter*::*' \
    'org.troika.launcher.exec.LauncherFilesTail*::*' 'org.troika.wire.*::*' 'org.troika.rsh.driver.*::*'; do
    _troika_jit="$_troika_jit -XX:CompileCommand=CompileThresholdScaling,$_tm,0.1"
  done
}
