# Sourced by the benches whose timing code lives in integration-tests' test classes (UlfmKillBench, TreeLaunchBench,
# ElasticE2eBench): they need root (network namespaces), the built distribution and those classes.
#   it_bench_prepare CLASS PREFIX   checks, makes WORK=/tmp/PREFIX.XXXXXX (/tmp: visible inside the Open MPI 5 root),
#                                   writes the test class path to $WORK/classpath
#   it_bench_java CLASS ARGS...     runs CLASS from integration-tests/ (where testkit's Dist finds the packaged troika;
#                                   TROIKA_HOME picks another one) in the background and waits; sets IT_BENCH_PID
#                                   while it runs, so a trap can end it
#   it_bench_cleanup_on_exit        on exit, INT or TERM: ends that JVM (testkit's NetnsCluster deletes its namespaces
#                                   from the JVM's shutdown hook) and removes WORK
# HERE must be the checkout's root, and the caller's working folder.
it_bench_prepare() {
  local class=$1 prefix=$2
  [ "$(id -u)" = 0 ] || { echo "bench: needs root (network namespaces)" >&2; exit 2; }
  [ -f "integration-tests/target/test-classes/org/troika/it/$class.class" ] || {
    echo "bench: build first: mvn -o -q install -DskipTests && mvn -o -q test-compile -pl integration-tests" >&2; exit 2; }
  WORK=$(mktemp -d "/tmp/$prefix.XXXXXX")
  mvn -B -q -o ${M2_REPO:+-Dmaven.repo.local=$M2_REPO} dependency:build-classpath -pl integration-tests \
    -Dmdep.outputFile="$WORK/classpath" -Dmdep.includeScope=test >/dev/null
}

IT_BENCH_PID=
it_bench_java() {
  local class=$1; shift
  local rc=0
  (cd integration-tests && exec java -Dtroika.dist="${TROIKA_HOME:-$HERE/dist/target/troika}" \
    -cp "target/test-classes:$(cat "$WORK/classpath")" "org.troika.it.$class" "$@") &
  IT_BENCH_PID=$!
  wait "$IT_BENCH_PID" || rc=$?
  IT_BENCH_PID=
  return $rc
}

it_bench_cleanup() {
  if [ -n "$IT_BENCH_PID" ] && kill -0 "$IT_BENCH_PID" 2>/dev/null; then
    kill "$IT_BENCH_PID" 2>/dev/null || true; wait "$IT_BENCH_PID" || true
  fi
  rm -rf "$WORK"
}

it_bench_cleanup_on_exit() {
  trap it_bench_cleanup EXIT
  trap 'exit 130' INT TERM
}
