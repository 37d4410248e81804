#!/bin/bash
# Cost of the hang watchdog's collective counting in troika-mpi: allreduce latency with counting on
# (TROIKA_PROGRESS_ADDR set, as under --hang-timeout; the address refuses connections, so only the counting and the
# sampling thread run) against the same run with counting off, interleaved, best of $REPS, at 1 rank (the binding's
# own cost per call, hardly affected by load) and at $NP ranks. Prints on/off time ratios (1.00 = free).
set -euo pipefail
source "$(dirname "$0")/allreduce/env.bash"
REPS=${REPS:-3}
SCALE=${SCALE:-1}
here="$root/bench/allreduce"
javac -nowarn -cp "$TROIKA_CP" -d "$BENCH_TMP" "$here/AllreduceBench.java"
run() { # $1 ranks, $2 on|off
  local mpirun=(mpirun --allow-run-as-root --bind-to none --oversubscribe -np "$1")
  local extra=()
  if [ "$2" = on ]; then extra=(-x TROIKA_PROGRESS_ADDR=127.0.0.1:9 -x TROIKA_PROGRESS_KEY=AAAAAAAAAAAAAAAAAAAAAA==); fi
  timeout -k 5 600 "${mpirun[@]}" "${extra[@]}" -x TROIKA_MPI_BACKEND=jna java -XX:+UseSerialGC \
    -cp "$BENCH_TMP:$TROIKA_CP" AllreduceBench "$SCALE" jna 2>/dev/null | sed "s/^allreduce-/$2-/"
}
for np in 1 "$NP"; do
  for rep in $(seq "$REPS"); do run "$np" off; run "$np" on; done > "$BENCH_TMP/raw$np.txt"
done
echo "troika-mpi allreduce with the watchdog's collective counting on vs off (JNA, best of $REPS interleaved runs)"
echo "load: $(uptime | sed 's/.*load average/load average/')"
for np in 1 "$NP"; do
  awk -v np="$np" '
  { split($1, k, "-"); mode = k[1]; kind = k[2] "-" k[3]
    split($2, b, "="); split($4, u, "="); key = mode SUBSEP kind SUBSEP b[2]; us = u[2] + 0
    if (!(key in best) || us < best[key]) best[key] = us; kinds[kind SUBSEP b[2]] = 1 }
  END {
    printf "%d rank(s): %-12s %10s %12s %12s %8s\n", np, "binding", "bytes", "off us", "on us", "on/off"
    for (x in kinds) { split(x, p, SUBSEP)
      off = best["off", p[1], p[2]]; on = best["on", p[1], p[2]]
      if (p[2] <= 65536 && off > 0) printf "%-12s %-12s %10d %12.4f %12.4f %8.2f\n", "", p[1], p[2], off, on, on / off }
  }' "$BENCH_TMP/raw$np.txt" | sort -k3,3n
done
