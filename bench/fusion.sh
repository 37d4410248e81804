#!/bin/bash
# Fused vs unfused allreduce of 1,000 tensors x 1,024 floats per step (troika-mpi FusionBuffer), under one mpirun.
# Env: NP (ranks, default 2), STEPS (measured steps, default 20).
set -euo pipefail
source "$(dirname "$0")/mpi/env.bash"
javac -nowarn -cp "$TROIKA_CP" -d "$BENCH_TMP" "$root/bench/fusion/FusionBench.java"
echo "(machine shared: numbers measured under load; --bind-to none)"
timeout -k 5 600 "${MPIRUN[@]}" java -XX:+UseSerialGC -cp "$BENCH_TMP:$TROIKA_CP" FusionBench "${STEPS:-20}"
