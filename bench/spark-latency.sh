#!/bin/sh
# bench/spark-latency.sh [RUNS] — end-to-end latency of TroikaSpark.run (trivial 4-rank function, Spark local[4])
# against plain `mpirun -np 4 java -version` (four JVM starts: the floor any JVM-rank launch pays), interleaved,
# medians, difference and ratio. Needs troika's modules in ~/.m2 (mvn -o -q install -DskipTests at the root).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$root/spark-support"
mvn -o -q install -DskipTests
mvn -o -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/demo.classpath
export SPARK_LOCAL_IP=127.0.0.1
exec java -Dlog4j2.configurationFile=src/test/resources/log4j2-test.properties \
    -cp "target/classes:$(cat target/demo.classpath)" org.troika.spark.examples.SparkJobLatency "${1:-10}"
