# Sourced by bench/mpi.sh and bench/fusion.sh: the troika class path and a scratch folder. Run `mvn -o -q install -DskipTests` first.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
if [ -d "$root/dist/target/troika/lib" ]; then
  TROIKA_CP="$root/dist/target/troika/lib/*"
else
  m2="$HOME/.m2/repository"
  TROIKA_CP="$root/native-mpi/target/classes:$root/common/target/classes:$(ls "$m2"/net/java/dev/jna/jna/5.17.0/jna-5.17.0.jar)"
fi
# the FFM backend is in troika-mpi's multi-release jar (META-INF/versions/22), or its classes dir in a build tree
TROIKA_FFM_CP=
if [ -d "$root/dist/target/troika/lib" ] && unzip -l "$root/dist/target/troika/lib/troika-mpi.jar" 2>/dev/null | grep -q versions/22; then
  TROIKA_FFM_CP="$TROIKA_CP"
elif [ -d "$root/native-mpi/target/classes/META-INF/versions/22" ]; then
  TROIKA_FFM_CP="$root/native-mpi/target/classes/META-INF/versions/22:$root/native-mpi/target/classes:$root/common/target/classes:$(ls "$HOME"/.m2/repository/net/java/dev/jna/jna/5.17.0/jna-5.17.0.jar)"
fi
NP=${NP:-2}
# --bind-to none: the ranks share the machine's cores (binding both to core 0 makes collectives ~600x slower here)
MPIRUN=(mpirun --allow-run-as-root --bind-to none --oversubscribe -np "$NP")
BENCH_TMP=$(mktemp -d /tmp/troika-bench.XXXXXX)
trap 'rm -rf "$BENCH_TMP"' EXIT
