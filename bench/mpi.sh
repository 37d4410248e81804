#!/bin/bash
# troika-mpi against C, OSU-style: allreduce, bcast, allgather (float), ping-pong latency and windowed bandwidth
# (bytes), each C and Java program under the same mpirun flags, interleaved, ROUNDS times. Every program warms up,
# then times REPS repetitions of each size (barrier between them; a repetition counts the slowest rank) and reports
# the min and median per call. The tables show Java/C time ratios from the best (min) repetition, with the median
# ratio after the slash; bandwidth rows (>= 1 MiB and bw) show Java/C bandwidth (higher is better).
# Then the same programs at 1 rank, where the collectives are local copies: the binding's own cost per call, in ns.
# Implementations: C; FFM (JDK 22+, java22 multi-release part) and JNA (JDK 17), each on direct buffers ("buf") and
# arrays ("arr"); Open MPI's own Java bindings (JNI) when the Open MPI 5 root of scripts/ exists (see peer rows).
# Env: NP (ranks, default 2), ROUNDS (default 2), REPS (default 5), SCALE (iterations, default 1), TESTS,
#      JAVA17, JAVA22.
set -euo pipefail
source "$(dirname "$0")/mpi/env.bash"
ROUNDS=${ROUNDS:-2}
REPS=${REPS:-5}
SCALE=${SCALE:-1}
TESTS=${TESTS:-allreduce,bcast,allgather,latency,bw}
JAVA17=${JAVA17:-java}
JAVA22=${JAVA22:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
here="$root/bench/mpi"

mpicc -O2 -o "$BENCH_TMP/osu" "$here/osu.c"
javac -nowarn -cp "$TROIKA_CP" -d "$BENCH_TMP" "$here/MpiBench.java"
ffm=no
if [ -x "$JAVA22" ] && [ -n "$TROIKA_FFM_CP" ]; then ffm=yes; fi

# pin ranks to distinct cores when there are enough of them (OSU does); else let them float
bind=(--bind-to none)
if [ "$(nproc)" -ge "$NP" ]; then bind=(--bind-to core --map-by core); fi

# one round of every implementation: $1 ranks, $2 scale, $3 tests, $4 max bytes
round() {
  local mpirun=(timeout -k 5 900 mpirun --allow-run-as-root "${bind[@]}" --oversubscribe -np "$1")
  "${mpirun[@]}" "$BENCH_TMP/osu" "$2" "$REPS" "$3" "$4"
  if [ "$ffm" = yes ]; then
    "${mpirun[@]}" -x TROIKA_MPI_BACKEND=ffm "$JAVA22" --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC \
      -cp "$BENCH_TMP:$TROIKA_FFM_CP" MpiBench "$2" "$REPS" "$3" ffm "$4"
  fi
  "${mpirun[@]}" -x TROIKA_MPI_BACKEND=jna "$JAVA17" -XX:+UseSerialGC -cp "$BENCH_TMP:$TROIKA_CP" \
    MpiBench "$2" "$REPS" "$3" jna "$4"
}

# the peer: Open MPI 5.0.7's Java bindings inside the Open MPI 5 root, when there is one (scripts/ documents it)
peer_round() { :; }
if [ -n "${OMPI5_ROOT:-}" ] && [ -x "$here/../../scripts/ompi5-run.sh" ]; then
  peer_round() { bash "$here/../../scripts/ompi5-run.sh" "$@" || true; }
fi

echo "load before: $(uptime)"
for r in $(seq "$ROUNDS"); do round "$NP" "$SCALE" "$TESTS" 16777216; done > "$BENCH_TMP/raw.txt"
# at 1 rank the collectives are local copies: what remains is each binding's own cost per call
for r in $(seq "$ROUNDS"); do round 1 $(awk "BEGIN{print $SCALE*10}") allreduce,bcast,allgather 8; done \
  > "$BENCH_TMP/raw1.txt"
echo "load after:  $(uptime)"

impls="c ffm-buffer ffm-array jna-buffer jna-array"
echo
echo "$NP ranks on $(nproc) cores (${bind[*]}), best of $ROUNDS rounds x $REPS repetitions; FFM: $ffm"
echo "cells: C's time per call (us; MB/s for bandwidth rows), then Java/C as min-ratio/median-ratio"
awk -v impls="$impls" '
  { for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
    k = f["impl"] SUBSEP f["test"] SUBSEP f["bytes"]
    if (!(k in mn) || f["min_us"] + 0 < mn[k]) mn[k] = f["min_us"] + 0
    n[k]++; md[k, n[k]] = f["med_us"] + 0
    if (!((f["test"], f["bytes"]) in seen)) { seen[f["test"], f["bytes"]] = 1; order[++rows] = f["test"] SUBSEP f["bytes"] } }
  function median(k,   i, j, t, c) { c = n[k]; for (i = 1; i <= c; i++) v[i] = md[k, i]
    for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return v[int((c + 1) / 2)] }
  function human(b) { return b >= 1048576 ? b / 1048576 " MiB" : b >= 1024 ? b / 1024 " KiB" : b " B" }
  function target(test, b) {
    if (test == "allreduce" && (b == 8 || b == 1024)) return "FFM<=1.2 JNA<=2"
    if (test == "allreduce" && b >= 1048576) return "FFM>=0.97"
    if (test == "latency" && b == 8) return "FFM<=1.2"
    return "" }
  END {
    ni = split(impls, im, " ")
    printf "%-9s %-7s %12s", "test", "size", "C"
    for (i = 2; i <= ni; i++) printf " %12s", im[i]
    printf "  %s\n", "target"
    for (r = 1; r <= rows; r++) {
      split(order[r], tb, SUBSEP); test = tb[1]; b = tb[2] + 0
      bw = test == "bw" || b >= 1048576
      c = test SUBSEP b; ck = "c" SUBSEP c
      if (!(ck in mn)) continue
      cm = mn[ck]; cmed = median(ck)
      printf "%-9s %-7s %12s", test, human(b), bw ? sprintf("%.0f MB/s", b / cm) : sprintf("%.3f us", cm)
      for (i = 2; i <= ni; i++) {
        k = im[i] SUBSEP c
        if (!(k in mn)) { printf " %12s", "-"; continue }
        jm = mn[k]; jmed = median(k)
        printf " %12s", bw ? sprintf("%.2f/%.2f", cm / jm, cmed / jmed) : sprintf("%.2f/%.2f", jm / cm, jmed / cmed)
      }
      printf "  %s\n", target(test, b)
    }
  }' "$BENCH_TMP/raw.txt"

echo
echo "binding cost per call at 1 rank, 8 B (ns; collectives are local copies): C, then each binding's extra over C"
awk -v impls="$impls" '
  { for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
    k = f["impl"] SUBSEP f["test"]
    if (!(k in mn) || f["min_us"] + 0 < mn[k]) mn[k] = f["min_us"] + 0
    if (!(f["test"] in seen)) { seen[f["test"]] = 1; order[++rows] = f["test"] } }
  END {
    ni = split(impls, im, " ")
    printf "%-9s %9s", "test", "C ns"
    for (i = 2; i <= ni; i++) printf " %12s", "+" im[i]
    printf "  %s\n", "target"
    for (r = 1; r <= rows; r++) {
      t = order[r]; c = mn["c" SUBSEP t] * 1000
      printf "%-9s %9.1f", t, c
      for (i = 2; i <= ni; i++) { k = im[i] SUBSEP t; printf " %12s", (k in mn) ? sprintf("%+.1f", mn[k] * 1000 - c) : "-" }
      printf "  %s\n", t == "allreduce" ? "FFM <= +30" : ""
    }
  }' "$BENCH_TMP/raw1.txt"
