#!/bin/bash
# bench/large.sh — troika-mpi against C at 1 MiB and 16 MiB (issue 24.4: <= 1.03x), on Open MPI 4.1.4, MPICH 4.0.2 and
# (as root, when scripts/openmpi5-root.sh built it) Open MPI 5.0.7. Float SUM allreduce and broadcast, 2 ranks.
#
# At these sizes one process's timings depend on where its buffers happen to lie (the same C program, launched again,
# varies by 10-30% here), so a single launch decides nothing. Every launch of every program counts its best of REPS
# repetitions; LAUNCHES launches of each (default 8) alternate; the table shows medians over launches:
#   C         bench/mpi/osu.c (buffers from aligned_alloc)
#   ffm-*     bench/mpi/MpiBench.java on JDK 25, FFM backend ("buffer": ByteBuffer.allocateDirect as programs do,
#             "array": float[] passed to MPI as it is)
#   jna-*     the same on JDK 17 (MPICH: JDK 17, Open MPI 5 root: its JDK 21), JNA backend (arrays copied through the
#             staging area, in 1 MiB pieces)
# Cells: Java/C time ratio of the medians, then [pmem]: within one launch, the median ratio of each repetition to the
# C loop run just before it on the very same direct buffers (osu.c as a library): the binding's own cost, free of
# where the memory lies. Env: LAUNCHES, REPS (default 5), SCALE (iterations, default 1), TESTS (default
# allreduce,bcast), WARMUP (MpiBench's untimed 8 B calls first, default 10000), MPIS (default ompi4,mpich,ompi5: those to run),
# IMPLS (default c,ffm,jna; add c-placed for C on buffers OFFSETS bytes past a page, default 40,56: where two fresh
# float[] of 1 MiB lie in a JDK 25 heap, 8 mod 16, to tell the arrays' placement from the binding; c-inplace for C's
# allreduce with MPI_IN_PLACE, as troika-mpi reduces Java arrays), JAVA_OPTS (more JVM options for the Java launches, e.g. -XX:ObjectAlignmentInBytes=64),
# JAVA17, JAVA25. A launch that fails is named on
# stderr and left out of the medians; the others go on.
set -euo pipefail
source "$(dirname "$0")/mpi/env.bash"
source "$(dirname "$0")/mpi/ompi5.bash"
LAUNCHES=${LAUNCHES:-8}
REPS=${REPS:-5}
SCALE=${SCALE:-1}
TESTS=${TESTS:-allreduce,bcast}
MPIS=${MPIS:-ompi4,mpich,ompi5}
IMPLS=${IMPLS:-c,ffm,jna}
JAVA_OPTS=${JAVA_OPTS:-}
OFFSETS=${OFFSETS:-40,56}
export WARMUP=${WARMUP:-10000}
JAVA17=${JAVA17:-/usr/lib/jvm/java-17-openjdk-amd64/bin/java}
JAVA25=${JAVA25:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
[ -n "$TROIKA_FFM_CP" ] || { echo "bench: needs troika-mpi built with its FFM part (JDK 22+ javac)" >&2; exit 2; }
here="$root/bench/mpi"
jdk25=$(dirname "$(dirname "$JAVA25")")
mkdir -p "$BENCH_TMP/ompi4" "$BENCH_TMP/mpich" "$BENCH_TMP/ompi5" "$BENCH_TMP/lib"
cp "$root"/dist/target/troika/lib/*.jar "$BENCH_TMP/lib/" 2>/dev/null || true
"$jdk25/bin/javac" -nowarn --release 17 -cp "$TROIKA_CP" -d "$BENCH_TMP" "$here/MpiBench.java"
for m in ompi4:mpicc.openmpi mpich:mpicc.mpich; do
  d=$BENCH_TMP/${m%%:*}; cc=${m#*:}
  "$cc" -O2 -w -o "$d/osu" "$here/osu.c"; "$cc" -O2 -w -shared -fPIC -DOSU_LIB -o "$d/libosu.so" "$here/osu.c"
done
mpis=()
for m in ompi4 mpich; do [[ ",$MPIS," == *",$m,"* ]] && mpis+=("$m"); done
if [[ ",$MPIS," == *",ompi5,"* ]] && ompi5_available && [ -d "$root/dist/target/troika/lib" ]; then
  cp "$here/osu.c" "$BENCH_TMP/ompi5/"
  in_root "$jdk25" /bin/sh -c "cd $BENCH_TMP/ompi5 && mpicc -O2 -o osu osu.c && mpicc -O2 -shared -fPIC -DOSU_LIB -o libosu.so osu.c"
  mpis+=(ompi5)
fi
bind=(--bind-to none)
if [ "$(nproc)" -ge 2 ]; then bind=(--bind-to core --map-by core); fi
args=("$SCALE" "$REPS" "$TESTS")
one() { # mpi impl: one launch; prints the programs' lines prefixed with "mpi=<mpi>"
  local mpi=$1 impl=$2 d=$BENCH_TMP/$1 run java cp
  case $mpi in
    ompi4) run=(timeout -k 5 600 mpirun --allow-run-as-root "${bind[@]}" -np 2) ;;
    mpich) run=(timeout -k 5 600 mpirun.mpich -np 2) ;;
    ompi5) run=(in_root "$jdk25" timeout -k 5 600 mpirun "${bind[@]}" -np 2) ;;
  esac
  case $impl in
    c) "${run[@]}" "$d/osu" "${args[@]}" 16777216 1048576 ;;
    c-placed)
      if [ "$mpi" = mpich ]; then run+=(-env OSU_OFFSETS "$OFFSETS"); else run+=(-x OSU_OFFSETS="$OFFSETS"); fi
      "${run[@]}" "$d/osu" "${args[@]}" 16777216 1048576 | sed 's/^impl=c /impl=c-placed /' ;;
    c-inplace)
      if [ "$mpi" = mpich ]; then run+=(-env OSU_INPLACE 1); else run+=(-x OSU_INPLACE=1); fi
      "${run[@]}" "$d/osu" "${args[@]}" 16777216 1048576 | sed 's/^impl=c /impl=c-inplace /' ;;
    ffm|jna)
      java=$JAVA25; cp="$BENCH_TMP:$TROIKA_FFM_CP"
      [ "$mpi" = ompi5 ] && cp="$BENCH_TMP:$BENCH_TMP/lib/*"
      if [ "$impl" = jna ]; then java=$JAVA17; [ "$mpi" = ompi5 ] && java=java; fi
      if [ "$mpi" = mpich ]; then
        run+=(-env TROIKA_MPI_BACKEND "$impl" -env OSU_LIB "$d/libosu.so" -env WARMUP "$WARMUP")
      else
        run+=(-x TROIKA_MPI_BACKEND="$impl" -x OSU_LIB="$d/libosu.so" -x WARMUP="$WARMUP")
      fi
      "${run[@]}" "$java" $([ "$impl" = ffm ] && echo --enable-native-access=ALL-UNNAMED) -XX:+UseSerialGC $JAVA_OPTS -cp "$cp" \
        MpiBench "${args[@]}" "$impl" 16777216 1048576 ;;
  esac | sed -n "s/^impl=/mpi=$mpi impl=/p"
}
echo "load before: $(uptime)"
for ((l = 0; l < LAUNCHES; l++)); do
  for mpi in "${mpis[@]}"; do for impl in c c-placed c-inplace ffm jna; do
    [[ ",$IMPLS," == *",$impl,"* ]] || continue
    one "$mpi" "$impl" || echo "bench: launch $l of $impl on $mpi failed (left out)" >&2
  done; done
done > "$BENCH_TMP/raw.txt"
echo "load after:  $(uptime)"
echo
echo "2 ranks on $(nproc) cores, $LAUNCHES launches of each program (alternating), best of $REPS repetitions per launch"
echo "cells: C's median us; Java/C time ratio of the medians over launches [binding-only ratio: same buffers, same launch]"
awk '
  { delete f; for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
    k = f["mpi"] SUBSEP f["impl"] SUBSEP f["test"] SUBSEP f["bytes"]
    n[k]++; v[k, n[k]] = f["min_us"] + 0; if (f["pmem"] != "NaN" && f["pmem"] != "") { pn[k]++; pv[k, pn[k]] = f["pmem"] + 0 }
    seen[f["mpi"]] = 1; tests[f["test"]] = 1 }
  function med(arr, key, cnt,   i, j, t, a) { for (i = 1; i <= cnt; i++) a[i] = arr[key, i]
    for (i = 1; i <= cnt; i++) for (j = i + 1; j <= cnt; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return cnt % 2 ? a[(cnt + 1) / 2] : (a[cnt / 2] + a[cnt / 2 + 1]) / 2 }
  END {
    split("ffm-buffer ffm-array jna-buffer jna-array c-placed c-inplace", im, " ")
    printf "%-6s %-9s %-7s %11s", "mpi", "test", "size", "C"
    for (i = 1; i <= 6; i++) printf " %17s", im[i]
    printf "\n"
    split("ompi4 mpich ompi5", mp, " "); split("allreduce bcast", ts, " "); split("1048576 16777216", sz, " ")
    for (m = 1; m <= 3; m++) for (t = 1; t <= 2; t++) for (s = 1; s <= 2; s++) {
      c = mp[m] SUBSEP "c" SUBSEP ts[t] SUBSEP sz[s]
      if (!(c in n)) continue
      cm = med(v, c, n[c])
      printf "%-6s %-9s %-7s %8.1f us", mp[m], ts[t], sz[s] == 1048576 ? "1 MiB" : "16 MiB", cm
      for (i = 1; i <= 6; i++) {
        k = mp[m] SUBSEP im[i] SUBSEP ts[t] SUBSEP sz[s]
        if (!(k in n)) { printf " %17s", "-"; continue }
        printf " %17s", sprintf("%.3f", med(v, k, n[k]) / cm) ((k in pn) ? sprintf("[%.3f]", med(pv, k, pn[k])) : "")
      }
      printf "\n"
    }
  }' "$BENCH_TMP/raw.txt"
