#!/usr/bin/env bash
# bench/mpi-init.sh [RUNS] — what a rank pays to start MPI, in two parts.
# 1. What Open MPI's cm PML probe costs each rank, and what troika-rankenv saves by leaving cm out where the host has
#    no PSM/PSM2/OFI hardware (issue 14). Runs, interleaved, RUNS times each (default 15):
#      baseline: mpirun -np 2 bin/troika-rankenv ./init-probe   with TROIKA_OMPI_PML_AUTO=0 (Open MPI's own choice)
#      troika:   the same with the default (cm left out where nothing needs it)
#    init-probe is a C program that reports how long MPI_Init took; prints the medians of MPI_Init (rank 0) and of
#    the whole mpirun wall time, and the ratios troika/baseline.
# 2. JVM start -> Mpi.init() done, per rank (issue 25.3): wall time from the exec of the JVM (a `java` shim takes the
#    time, then execs the real JVM) to Mpi.init's return, and the JVM's CPU time by then; 2 ranks, through
#    bin/troika-rankenv, interleaved JAVA_RUNS times (default 9): C (exec -> MPI_Init done: the floor), JDK 17 with
#    JNA and JDK 25 with FFM, each without and with troika's class-data sharing (TROIKA_JAVA_CDS=1; archives
#    recorded by two warm-up runs first). With BASELINE_REV=<git revision>, the same rows for troika-mpi as it was
#    at that revision (its native-mpi and common built from `git archive` into a scratch folder) run interleaved
#    with the current ones: before/after in one run. JAVA17, JAVA25 choose the JDKs.
# Needs Open MPI's mpicc and `make build`.
set -euo pipefail
RUNS=${1:-15}
JAVA_RUNS=${JAVA_RUNS:-9}
JAVA17=${JAVA17:-/usr/lib/jvm/java-17-openjdk-amd64/bin/java}
JAVA25=${JAVA25:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
HERE=$(cd "$(dirname "$0")/.." && pwd)
TROIKA_HOME=${TROIKA_HOME:-$HERE/dist/target/troika}
[ -x "$TROIKA_HOME/bin/troika-rankenv" ] || { echo "bench: build first (make build)" >&2; exit 2; }
command -v mpicc >/dev/null || { echo "bench: needs Open MPI's mpicc (make setup)" >&2; exit 2; }
WORK=$(mktemp -d /tmp/troika-bench-init.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cat > "$WORK/init-probe.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
#include <stdlib.h>
#include <sys/time.h>
int main(int argc, char **argv) {
    double t0 = now();
    MPI_Init(&argc, &argv);
    double t1 = now();
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *exec_us = getenv("TROIKA_BENCH_T0"); /* part 2: since the exec, as the Java probe reports it */
    if (exec_us) {
        struct timeval tv; gettimeofday(&tv, 0);
        double since = (tv.tv_sec * 1e6 + tv.tv_usec - atof(exec_us) * 1e6) / 1e3;
        printf("rank %d init_ms %.1f cpu_ms %.1f\n", rank, since, (double) clock() * 1e3 / CLOCKS_PER_SEC);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && !exec_us) printf("init_ms %.0f\n", t1 - t0);
    MPI_Finalize();
    return 0;
}
C
mpicc -o "$WORK/init-probe" "$WORK/init-probe.c"
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
now() { date +%s%3N; }
one() { # $1 = TROIKA_OMPI_PML_AUTO value; prints "init_ms wall_ms"
  local t i
  t=$(now)
  i=$(TROIKA_OMPI_PML_AUTO=$1 mpirun --bind-to none -np 2 -H localhost:2 "$TROIKA_HOME/bin/troika-rankenv" \
      "$WORK/init-probe" | sed -n 's/^init_ms //p')
  echo "$i $(( $(now) - t ))"
}
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }
: > "$WORK/base"; : > "$WORK/troika"
for ((r = 0; r < RUNS; r++)); do one 0 >> "$WORK/base"; one 1 >> "$WORK/troika"; done
bi=$(cut -d' ' -f1 "$WORK/base" | median); bw=$(cut -d' ' -f2 "$WORK/base" | median)
ti=$(cut -d' ' -f1 "$WORK/troika" | median); tw=$(cut -d' ' -f2 "$WORK/troika" | median)
echo "MPI_Init benchmark: $RUNS interleaved runs each, medians, 2 ranks on localhost ($(mpirun --version | head -n 1));" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '  %-44s MPI_Init %5s ms   mpirun wall %5s ms\n' "Open MPI's choice (TROIKA_OMPI_PML_AUTO=0)" "$bi" "$bw"
printf '  %-44s MPI_Init %5s ms   mpirun wall %5s ms\n' "troika-rankenv default (cm left out)" "$ti" "$tw"
awk -v bi="$bi" -v ti="$ti" -v bw="$bw" -v tw="$tw" \
  'BEGIN {printf "  ratio troika/baseline: MPI_Init %.2f, wall %.2f (saved %d ms per job start)\n", ti / bi, tw / bw, bw - tw}'

# ---- part 2: JVM start -> Mpi.init() done, per rank ----
[ -x "$JAVA17" ] && [ -x "$JAVA25" ] || { echo "bench: part 2 needs $JAVA17 and $JAVA25 (JAVA17, JAVA25)" >&2; exit 2; }
here=$HERE/bench/mpi-init
mkdir -p "$WORK/probe" "$WORK/cds"
"${JAVA25%/java}/javac" -nowarn --release 17 -cp "$TROIKA_HOME/lib/*" -d "$WORK/probe" "$here/InitProbe.java"
(cd "$WORK/probe" && "${JAVA25%/java}/jar" cf "$WORK/initprobe.jar" InitProbe.class) # CDS takes jars only
# a JDK whose bin/java records the exec time, then execs the real JVM (troika-rankenv sees a `java`; CDS its release)
shim() { # $1 name, $2 real java
  mkdir -p "$WORK/$1/bin"
  cp "${2%/bin/java}/release" "$WORK/$1/release"
  printf '#!/bin/bash\nexport TROIKA_BENCH_T0=$EPOCHREALTIME\nexec %q "$@"\n' "$2" > "$WORK/$1/bin/java"
  chmod +x "$WORK/$1/bin/java"
}
shim jdk17 "$JAVA17"; shim jdk25 "$JAVA25"
# class paths: the distribution's jars; "before": the same with troika-mpi and troika-common of BASELINE_REV
cps=(after)
mkdir -p "$WORK/lib-after"; cp "$TROIKA_HOME"/lib/*.jar "$WORK/lib-after/"
if [ -n "${BASELINE_REV:-}" ]; then
  echo "building troika-mpi at $BASELINE_REV for the 'before' rows ..."
  mkdir -p "$WORK/rev"
  git -C "$HERE" archive "$BASELINE_REV" | tar -x -C "$WORK/rev"
  (cd "$WORK/rev" && mvn -B -q -o ${MAVEN_REPO:+-Dmaven.repo.local=$MAVEN_REPO} package -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -pl native-mpi -am \
      > "$WORK/rev/build.log" 2>&1) || { tail -20 "$WORK/rev/build.log" >&2; exit 1; }
  mkdir -p "$WORK/lib-before"; cp "$TROIKA_HOME"/lib/*.jar "$WORK/lib-before/"
  cp "$WORK"/rev/native-mpi/target/troika-mpi-*[0-9T].jar "$WORK/lib-before/troika-mpi.jar"
  cp "$WORK"/rev/common/target/troika-common-*[0-9T].jar "$WORK/lib-before/troika-common.jar"
  cps=(before after)
fi
java_one() { # $1 label, $2 jdk shim, $3 class-path name, $4 TROIKA_JAVA_CDS; appends "init_ms cpu_ms" per rank
  local opts=()
  [ "$2" = jdk25 ] && opts=(--enable-native-access=ALL-UNNAMED)
  TROIKA_JAVA_CDS=$4 TROIKA_CDS_DIR="$WORK/cds" mpirun --bind-to none -np 2 -H localhost:2 \
      "$TROIKA_HOME/bin/troika-rankenv" "$WORK/$2/bin/java" "${opts[@]}" -XX:+UseSerialGC \
      -cp "$WORK/lib-$3/*:$WORK/initprobe.jar" InitProbe | awk '/^rank / {print $4, $6}' >> "$WORK/j-$1"
}
variants=()
for cp in "${cps[@]}"; do
  for v in "jna17 jdk17" "ffm25 jdk25"; do
    set -- $v
    variants+=("$1-$cp $2 $cp 0" "$1-$cp-cds $2 $cp 1")
  done
done
for v in "${variants[@]}"; do # record, then promote, each CDS archive
  set -- $v; if [ "$4" = 1 ]; then java_one warm "$2" "$3" 1; java_one warm "$2" "$3" 1; fi
done
load2=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 0; r < JAVA_RUNS; r++)); do
  TROIKA_BENCH_T0= mpirun --bind-to none -np 2 -H localhost:2 "$TROIKA_HOME/bin/troika-rankenv" bash -c \
      'TROIKA_BENCH_T0=$EPOCHREALTIME exec "$0"' "$WORK/init-probe" | awk '/^rank / {print $4, $6}' >> "$WORK/j-c"
  for v in "${variants[@]}"; do set -- $v; java_one "$1" "$2" "$3" "$4"; done
done
col_median() { cut -d' ' -f"$1" "$2" | sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.1f\n", (a[NR/2]+a[NR/2+1])/2}'; }
echo
echo "JVM start -> Mpi.init() done per rank: 2 ranks through troika-rankenv, $JAVA_RUNS interleaved runs, medians over" \
  "ranks and runs; load average $load2 before, $(cut -d' ' -f1-3 /proc/loadavg) after"
c_wall=$(col_median 1 "$WORK/j-c"); c_cpu=$(col_median 2 "$WORK/j-c")
printf '  %-26s %9s %9s %14s %14s\n' "" "wall ms" "cpu ms" "wall - C ms" "cpu - C ms"
printf '  %-26s %9s %9s %14s %14s\n' "C (exec -> MPI_Init done)" "$c_wall" "$c_cpu" - -
for v in "${variants[@]}"; do
  set -- $v
  w=$(col_median 1 "$WORK/j-$1"); c=$(col_median 2 "$WORK/j-$1")
  printf '  %-26s %9s %9s %14s %14s\n' "$1" "$w" "$c" "$(awk -v a="$w" -v b="$c_wall" 'BEGIN {printf "%+.0f", a - b}')" \
    "$(awk -v a="$c" -v b="$c_cpu" 'BEGIN {printf "%+.0f", a - b}')"
done
