#!/bin/bash
# troika-mpi against C, OSU-style: allreduce, bcast, allgather (float), ping-pong latency and windowed bandwidth
# (bytes), each C and Java program under the same mpirun flags, interleaved, ROUNDS times. Every program warms up,
# then times REPS repetitions of each size (barrier between them; a repetition counts the slowest rank) and reports
# the min and median per call. Each Java repetition is preceded by the same repetition of the C loop in the same
# process (osu.c built as a library), so every Java time has a C time taken a moment before: the tables show the
# best and the median of these paired Java/C ratios (time ratios; bandwidth rows, >= 1 MiB and bw, show Java/C
# bandwidth: higher is better), which a machine whose load changes from second to second disturbs far less than
# ratios of separate runs. The C column is the standalone C program's best.
# Then the same programs at 1 rank, where the collectives are local copies: the binding's own cost per call, in ns.
# Implementations: C; FFM (JDK 22+, java22 multi-release part) and JNA (JDK 17), each on direct buffers ("buf") and
# arrays ("arr"); Open MPI's own Java bindings (JNI) when the Open MPI 5 root of scripts/ exists (see peer rows).
# Env: NP (ranks, default 2), ROUNDS (default 2), REPS (default 5), SCALE (iteration multiplier, default 0.5), TESTS,
#      JAVA17, JAVA22.
set -euo pipefail
source "$(dirname "$0")/mpi/env.bash"
ROUNDS=${ROUNDS:-2}
REPS=${REPS:-5}
SCALE=${SCALE:-0.5}
TESTS=${TESTS:-allreduce,bcast,allgather,latency,bw}
JAVA17=${JAVA17:-java}
JAVA22=${JAVA22:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
here="$root/bench/mpi"

mpicc -O2 -o "$BENCH_TMP/osu" "$here/osu.c"
mpicc -O2 -shared -fPIC -DOSU_LIB -o "$BENCH_TMP/libosu.so" "$here/osu.c"
javac -nowarn -cp "$TROIKA_CP" -d "$BENCH_TMP" "$here/MpiBench.java"
ffm=no
if [ -x "$JAVA22" ] && [ -n "$TROIKA_FFM_CP" ]; then ffm=yes; fi

# pin ranks to distinct cores when there are enough of them (OSU does); else let them float
bind=(--bind-to none)
if [ "$(nproc)" -ge "$NP" ]; then bind=(--bind-to core --map-by core); fi

# one round of every implementation: $1 ranks, $2 scale, $3 tests, $4 max bytes, $5 repetitions
round() {
  local mpirun=(timeout -k 5 900 mpirun --allow-run-as-root "${bind[@]}" --oversubscribe -np "$1")
  "${mpirun[@]}" "$BENCH_TMP/osu" "$2" "$5" "$3" "$4"
  if [ "$ffm" = yes ]; then
    "${mpirun[@]}" -x TROIKA_MPI_BACKEND=ffm -x OSU_LIB="$BENCH_TMP/libosu.so" "$JAVA22" --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC \
      -cp "$BENCH_TMP:$TROIKA_FFM_CP" MpiBench "$2" "$5" "$3" ffm "$4"
  fi
  "${mpirun[@]}" -x TROIKA_MPI_BACKEND=jna -x OSU_LIB="$BENCH_TMP/libosu.so" "$JAVA17" -XX:+UseSerialGC -cp "$BENCH_TMP:$TROIKA_CP" \
    MpiBench "$2" "$5" "$3" jna "$4"
}

# The peer: Open MPI 5.0.7's own Java bindings (JNI), inside the Open MPI 5 root (bench/mpi/ompi5.bash)
source "$(dirname "$0")/mpi/ompi5.bash"
jdk22_home=$(dirname "$(dirname "$JAVA22")")
peer=no
if ompi5_available && [ "$ffm" = yes ] && [ -d "$root/dist/target/troika/lib" ]; then
  peer=yes
  mkdir -p "$BENCH_TMP/peer"
  cp "$PEER/mpi.jar" "$PEER/Bench.java" "$here/osu.c" "$BENCH_TMP/peer/"
  # troika's jars, copied so that the root sees them under /tmp
  mkdir -p "$BENCH_TMP/peer/lib"
  cp "$root"/dist/target/troika/lib/*.jar "$BENCH_TMP/peer/lib/"
  cp "$BENCH_TMP"/MpiBench*.class "$BENCH_TMP/peer/"
  in_root "$jdk22_home" /bin/sh -c "cd $BENCH_TMP/peer && mpicc -O2 -o osu5 osu.c && javac -nowarn -cp mpi.jar -d . Bench.java"
fi
# one round inside the Open MPI 5 root: C, troika over FFM (JDK 25), Open MPI's Java bindings (JDK 21); np $1, $2
# repetitions
peer_round() {
  local p="$BENCH_TMP/peer" mpirun=(timeout -k 5 900 mpirun "${bind[@]}" --oversubscribe -np "$1")
  in_root "$jdk22_home" "${mpirun[@]}" "$p/osu5" "$SCALE" "$2" allreduce,latency 1048576 | sed 's/impl=c /impl=c5 /'
  in_root "$jdk22_home" "${mpirun[@]}" -x TROIKA_MPI_BACKEND=ffm -x TROIKA_LIBMPI=libmpi.so.40 "$JAVA22" \
    --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -cp "$p:$p/lib/*" MpiBench "$SCALE" "$2" \
    allreduce,latency troika5 1048576
  for v in buf arr; do
    in_root "$jdk22_home" "${mpirun[@]}" java -XX:+UseSerialGC -Djava.library.path=/usr/lib/x86_64-linux-gnu -cp "$p/mpi.jar:$p" \
      Bench "$v" ar8 ar1m pp8 | awk -v v="$v" '/^OMPI-Java/ { split($5, b, "="); split($6, i, "="); split($7, u, "=")
        t = $3 == "pp8" ? "latency" : "allreduce"
        printf "impl=ompijava-%s test=%s bytes=%s iters=%s min_us=%s med_us=%s\n", v, t, b[2], i[2], u[2], u[2] }'
  done
}

echo "load before: $(uptime)"
for r in $(seq "$ROUNDS"); do round "$NP" "$SCALE" "$TESTS" 16777216 "$REPS"; done > "$BENCH_TMP/raw.txt"
# at 1 rank the collectives are local copies: what remains is each binding's own cost per call. Many short
# repetitions (about 1 ms each), so that the best of them escaped the other processes of a shared machine.
for r in $(seq "$ROUNDS"); do round 1 "$SCALE" allreduce,bcast,allgather 8 $((REPS * 6)); done > "$BENCH_TMP/raw1.txt"
if [ "$peer" = yes ]; then
  if ! { for r in $(seq "$ROUNDS"); do peer_round "$NP" "$REPS"; done > "$BENCH_TMP/raw5.txt"
         for r in $(seq "$ROUNDS"); do peer_round 1 $((REPS * 6)); done > "$BENCH_TMP/raw5-1.txt"; } 2>"$BENCH_TMP/peer.err"; then
    echo "(peer rows failed: $(tail -3 "$BENCH_TMP/peer.err"))"
    peer=no
  fi
fi
echo "load after:  $(uptime)"

impls="c ffm-buffer ffm-array jna-buffer jna-array"
echo
echo "$NP ranks on $(nproc) cores (${bind[*]}), best of $ROUNDS rounds x $REPS repetitions; FFM: $ffm"
echo "cells: C's best time per call (us; MB/s for bandwidth rows), then Java/C as min-ratio/median-ratio of the"
echo "separate runs, and [the median of the paired ratios] (each Java repetition against the C one just before it)"
awk -v impls="$impls" '
  { delete f; for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
    k = f["impl"] SUBSEP f["test"] SUBSEP f["bytes"]
    if (!(k in mn) || f["min_us"] + 0 < mn[k]) mn[k] = f["min_us"] + 0
    n[k]++; md[k, n[k]] = f["med_us"] + 0
    if ("pbest" in f) { bw = f["test"] == "bw" || f["bytes"] + 0 >= 1048576
      if (!(k in pb) || (bw ? f["pbest"] + 0 > pb[k] : f["pbest"] + 0 < pb[k])) pb[k] = f["pbest"] + 0
      pn[k]++; pm[k, pn[k]] = f["pmed"] + 0 }
    if (!((f["test"], f["bytes"]) in seen)) { seen[f["test"], f["bytes"]] = 1; order[++rows] = f["test"] SUBSEP f["bytes"] } }
  function pmedian(k,   i, j, t, c) { c = pn[k]; for (i = 1; i <= c; i++) v[i] = pm[k, i]
    for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return v[int((c + 1) / 2)] }
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
    for (i = 2; i <= ni; i++) printf " %17s", im[i]
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
        if (!(k in mn)) { printf " %17s", "-"; continue }
        jm = mn[k]; jmed = median(k)
        printf " %17s", (bw ? sprintf("%.2f/%.2f", cm / jm, cmed / jmed) : sprintf("%.2f/%.2f", jm / cm, jmed / cmed)) \
          ((k in pb) ? sprintf("[%.2f]", pmedian(k)) : "")
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

if [ "$peer" = yes ]; then
  echo
  echo "the peer, in the Open MPI 5.0.7 root: C, troika-mpi (FFM, JDK 25) and Open MPI's Java bindings (JNI, JDK 21);"
  echo "cells: C's best time per call, then Java/C time ratios min/median (Open MPI's Bench times one run: min = median)"
  for f in raw5 raw5-1; do
    awk -v np="$([ $f = raw5 ] && echo "$NP" || echo 1)" -v header="$([ $f = raw5 ] && echo 1 || echo 0)" '
      { for (i = 1; i <= NF; i++) { split($i, kv, "="); g[kv[1]] = kv[2] }
        k = g["impl"] SUBSEP g["test"] SUBSEP g["bytes"]
        if (!(k in mn) || g["min_us"] + 0 < mn[k]) mn[k] = g["min_us"] + 0
        if (!(k in md) || g["med_us"] + 0 < md[k]) md[k] = g["med_us"] + 0 }
      END {
        split("troika5-buffer troika5-array ompijava-buf ompijava-arr", im, " ")
        if (header) printf "%-3s %-9s %-7s %11s %15s %15s %15s %15s\n", "np", "test", "size", "C (OMPI 5)",
          "troika-ffm-buf", "troika-ffm-arr", "ompi-java-buf", "ompi-java-arr"
        split("allreduce 8,allreduce 1048576,latency 8", rows, ",")
        for (r = 1; r <= 3; r++) {
          split(rows[r], tb, " "); c = tb[1] SUBSEP tb[2]
          if (!(("c5" SUBSEP c) in mn)) continue
          cm = mn["c5" SUBSEP c]; cd = md["c5" SUBSEP c]
          printf "%-3s %-9s %-7s %8.3f us", np, tb[1], (tb[2] >= 1048576 ? "1 MiB" : "8 B"), cm
          for (i = 1; i <= 4; i++) { k = im[i] SUBSEP c
            printf " %15s", (k in mn) ? sprintf("%.2f/%.2f", mn[k] / cm, md[k] / cd) : "-" }
          printf "\n"
        }
      }' "$BENCH_TMP/$f.txt"
  done
fi
