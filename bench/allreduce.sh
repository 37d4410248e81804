#!/bin/bash
# Java (troika-mpi) vs C allreduce, same mpirun, same process count, interleaved runs, best of $REPS.
# Prints latency at 8 B, 1 KiB, 64 KiB and bandwidth at 1 MiB and 16 MiB, as Java/C time ratios (1.00 = as fast as C),
# for the JNA backend (JDK 17) and, when a JDK 22+ is installed, the FFM backend.
# Env: NP (ranks, default 2), REPS (default 3), SCALE (iteration multiplier, default 1), JAVA22 (a JDK 22+ java).
set -euo pipefail
source "$(dirname "$0")/allreduce/env.bash"
REPS=${REPS:-3}
SCALE=${SCALE:-1}
JAVA22=${JAVA22:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
here="$root/bench/allreduce"

mpicc -O2 -o "$BENCH_TMP/allreduce_bench" "$here/allreduce_bench.c"
javac -nowarn -cp "$TROIKA_CP" -d "$BENCH_TMP" "$here/AllreduceBench.java"
ffm=no
if [ -x "$JAVA22" ] && [ -n "$TROIKA_FFM_CP" ]; then ffm=yes; fi

# one round: C, Java over JNA, Java over FFM (when available), all under the same mpirun flags and -np $1
round() {
  local mpirun=(mpirun --allow-run-as-root --bind-to none --oversubscribe -np "$1")
  timeout -k 5 600 "${mpirun[@]}" "$BENCH_TMP/allreduce_bench" "$SCALE" | sed 's/^allreduce /allreduce-c /'
  timeout -k 5 600 "${mpirun[@]}" -x TROIKA_MPI_BACKEND=jna java -XX:+UseSerialGC \
    -cp "$BENCH_TMP:$TROIKA_CP" AllreduceBench "$SCALE" jna
  if [ "$ffm" = yes ]; then
    timeout -k 5 600 "${mpirun[@]}" -x TROIKA_MPI_BACKEND=ffm "$JAVA22" --enable-native-access=ALL-UNNAMED \
      -XX:+UseSerialGC -cp "$BENCH_TMP:$TROIKA_FFM_CP" AllreduceBench "$SCALE" ffm
  fi
}
for rep in $(seq "$REPS"); do round "$NP"; done > "$BENCH_TMP/raw.txt"
# at 1 rank MPI_Allreduce is a local copy: what remains is each binding's own cost per call, hardly affected by load
for rep in $(seq "$REPS"); do round 1; done > "$BENCH_TMP/raw1.txt"

echo "allreduce, float SUM, $NP ranks on $(nproc) cores, --bind-to none; best of $REPS interleaved runs"
echo "(machine shared with other builds: numbers measured under load; FFM backend: $ffm)"
table() {
  awk -v rows="$2" '
  { kind = $1; sub(/^allreduce-/, "", kind)
    split($2, b, "="); split($4, u, "="); bytes = b[2]; us = u[2] + 0
    key = kind SUBSEP bytes
    if (!(key in best) || us < best[key]) best[key] = us }
  function cell(v, s, bw) {
    if (v == "") return sprintf("%12s", "-")
    return bw ? sprintf("%7.0f MB/s", s / v) : sprintf("%9.3f us", v) }
  function ratio(v, c) { return v == "" ? sprintf("%9s", "-") : sprintf("%9.2f", v / c) }
  END {
    n = split("8 1024 65536 1048576 16777216", sizes, " "); if (rows) n = rows
    split("8 B,1 KiB,64 KiB,1 MiB,16 MiB", names, ",")
    split(rows ? "-,-" : "2.00,1.10,-,1.03,1.03", target, ",")
    printf "%-7s %-9s %12s %12s %12s %12s %9s %9s %9s %7s\n", "size", "metric", "C", "JNA buffer", "FFM buffer",
      "JNA array", "JNA/C", "FFM/C", "array/C", "target"
    for (i = 1; i <= n; i++) {
      s = sizes[i]; bw = s >= 1048576; c = best["c", s]
      jb = best["jna-buffer", s]; fb = (("ffm-buffer", s) in best) ? best["ffm-buffer", s] : ""; ja = best["jna-array", s]
      printf "%-7s %-9s %s %s %s %s %s %s %s %7s\n", names[i], bw ? "bandwidth" : "latency", cell(c, s, bw),
        cell(jb, s, bw), cell(fb, s, bw), cell(ja, s, bw), ratio(jb, c), ratio(fb, c), ratio(ja, c), target[i]
    }
  }' "$1"
}
table "$BENCH_TMP/raw.txt" 0
echo
echo "binding cost per call: the same programs at 1 rank (MPI_Allreduce is then a local copy)"
table "$BENCH_TMP/raw1.txt" 2
