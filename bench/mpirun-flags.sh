#!/bin/bash
# What does each candidate default mpirun flag cost on this machine?
# Runs a 2-rank MPI program (MPI_Init + MPI_Allreduce + MPI_Finalize) under Open MPI's mpirun with each flag set,
# REPS times (default 7), and prints the median wall time and its ratio to the bare baseline measured in the same
# run. Also times MPICH's mpirun when present. Numbers on a shared machine are noisy: read the ratios.
#
#   bench/mpirun-flags.sh [REPS]        env: MPIRUN (default mpirun), MPICC (default mpicc)
set -euo pipefail
reps=${1:-7}
mpirun=${MPIRUN:-mpirun}
mpicc=${MPICC:-mpicc}
command -v "$mpirun" >/dev/null || { echo "mpirun-flags: $mpirun not found (apt-get install openmpi-bin libopenmpi-dev)" >&2; exit 2; }
command -v "$mpicc" >/dev/null || { echo "mpirun-flags: $mpicc not found (apt-get install libopenmpi-dev)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/allreduce.c" <<'C'
#include <mpi.h>
int main(int argc, char **argv) {
    int rank, sum;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
C
"$mpicc" -O2 -o "$work/allreduce" "$work/allreduce.c"

# running as root: the two environment variables (what troika uses) instead of --allow-run-as-root
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
# the environment export troika plans: -x NAME for every exportable name of this shell
exports=()
while IFS= read -r name; do
  case $name in BASH_FUNC_*|OLDPWD*|*_VISIBLE_DEVICES*|TROIKA_SECRET_KEY|OMPI_*|OPAL_*|PMIX_*|PRTE_*|PMI_*) continue ;; esac
  exports+=(-x "$name")
done < <(compgen -e | sort)

# Candidates are timed round-robin (one run of each per round, REPS rounds, after one warm-up round), so load
# from other processes drifts over all of them alike; each gets the median of its REPS runs.
labels=(); flagsets=()
candidate() { # label, flags...
  labels+=("$1"); shift
  local joined=; if [ "$#" -gt 0 ]; then joined=$(printf '%s\n' "$@"); fi
  flagsets+=("$joined")
}
time_ms() { # runs one candidate once, prints milliseconds or FAIL
  local flags=() t0 t1
  if [ -n "${flagsets[$1]}" ]; then mapfile -t flags <<<"${flagsets[$1]}"; fi
  t0=$(date +%s%N)
  if ! timeout -k 5 120 "$mpirun" "${hosts[@]}" "${flags[@]}" "$prog" >/dev/null 2>"$work/err"; then
    echo "mpirun-flags: failed: ${labels[$1]} :: $(head -c 300 "$work/err")" >&2; echo FAIL; return
  fi
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000000 ))
}
report() {
  local n=${#labels[@]} i r base= med
  local -a runs
  for ((i = 0; i < n; i++)); do time_ms "$i" >/dev/null; runs[i]=; done   # warm-up
  for ((r = 0; r < reps; r++)); do
    for ((i = 0; i < n; i++)); do runs[i]+="$(time_ms "$i") "; done
  done
  printf '%-62s %9s %7s\n' "flags" "median_ms" "ratio"
  for ((i = 0; i < n; i++)); do
    if [[ ${runs[i]} == *FAIL* ]]; then printf '%-62s %9s %7s\n' "${labels[i]}" FAIL -; continue; fi
    med=$(printf '%s\n' ${runs[i]} | sort -n | sed -n "$(( (reps + 1) / 2 ))p")
    [ -n "$base" ] || base=$med
    printf '%-62s %9d %7.2f\n' "${labels[i]}" "$med" "$(echo "scale=2; $med / $base" | bc)"
  done
  labels=(); flagsets=()
}

prog="$work/allreduce"
hosts=(-np 2 -H localhost:2)
echo "mpirun flag costs: $("$mpirun" --version 2>&1 | head -1), 2 ranks on localhost, median of $reps rounds"
echo "(measured on $(nproc) cores, $(date -u +%FT%TZ); the machine may be shared, compare ratios)"
candidate "(baseline: -np 2 -H localhost:2)"
candidate "--bind-to none --map-by slot" --bind-to none --map-by slot
candidate "--tag-output" --tag-output
candidate "--tag-output --timestamp-output" --tag-output --timestamp-output
candidate "-x NAME for the whole environment (${#exports[@]} names)" "${exports[@]}"
candidate "--mca btl_tcp_if_include lo --mca oob_tcp_if_include lo" --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo
candidate "--mca plm_rsh_no_tree_spawn true --mca plm_rsh_num_concurrent 1" --mca plm_rsh_no_tree_spawn true --mca plm_rsh_num_concurrent 1
candidate "troika default plan (tag, bind none, map slot, -x env)" --tag-output --bind-to none --map-by slot "${exports[@]}"
candidate "-mca pml ob1 (not emitted: disables UCX on InfiniBand)" -mca pml ob1
candidate "-mca btl ^openib (never emitted: re-enables ofi)" -mca btl ^openib
candidate "-mca btl ^openib,ofi" -mca btl ^openib,ofi
report

if command -v mpirun.mpich >/dev/null && command -v mpicc.mpich >/dev/null; then
  mpicc.mpich -O2 -o "$work/allreduce.mpich" "$work/allreduce.c"
  echo
  echo "MPICH (Hydra) $(mpirun.mpich --version 2>&1 | grep -m1 Version: | tr -s ' ' | cut -d' ' -f3), same program"
  mpirun=mpirun.mpich; prog="$work/allreduce.mpich"; hosts=(-np 2 -ppn 2 -hosts localhost)
  candidate "(baseline: -np 2 -ppn 2 -hosts localhost)"
  candidate "-l" -l
  candidate "-bind-to none -map-by slot (not emitted: Hydra's default)" -bind-to none -map-by slot
  report
fi
