# Sourced by the benches that time whole commands against a baseline run in the same script (bench/rank-start.sh,
# bench/oversubscribed.sh). ROOT must be the checkout's root.
#   timed_runs_prepare    sets troika and lib (the built distribution), checks them and /usr/bin/time, makes work (a
#                         temporary folder, removed on exit)
#   timed LABEL CMD...    runs CMD (stdin /dev/null, output to $work/out) and appends "wall_ms cpu_ms" to $work/LABEL:
#                         wall time, and user+sys of the whole process tree (/usr/bin/time); a failure ends the bench
#                         with the end of the output
#   col N LABEL           the median of column N (1 wall, 2 CPU) of $work/LABEL
timed_runs_prepare() {
  troika="$ROOT/dist/target/troika/bin/troika"
  lib="$ROOT/dist/target/troika/lib"
  [ -x "$troika" ] || { echo "bench: $troika missing; build first: mvn -o -q install -DskipTests" >&2; exit 2; }
  [ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
}
timed() {
  local label=$1 t0 t1; shift
  t0=$(date +%s%N)
  /usr/bin/time -f '%U %S' -o "$work/t" "$@" </dev/null >"$work/out" 2>&1 \
    || { echo "bench: failed: $*" >&2; tail -5 "$work/out" >&2; exit 1; }
  t1=$(date +%s%N)
  echo "$(( (t1 - t0) / 1000000 )) $(awk 'END {printf "%d", ($1 + $2) * 1000}' "$work/t")" >>"$work/$label"
}
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }
col() { cut -d' ' -f"$1" "$work/$2" | median; }
