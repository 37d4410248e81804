#!/bin/sh
# bench/spark-latency.sh [RUNS] — end-to-end latency of TroikaSpark.run (trivial 4-rank function, Spark local[4])
# against plain `mpirun -np 4 java -version` (four JVM starts: the floor any JVM-rank launch pays), interleaved,
# medians, difference and ratio. Builds and installs troika's modules first; the class is
# org.troika.examples.spark.SparkJobLatency (Spark and troika-spark are "provided" dependencies of the examples).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$root"
mvn -B -q install -DskipTests
cd "$root/examples"
mvn -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/demo.classpath
export SPARK_LOCAL_IP=127.0.0.1
exec java -Dlog4j2.configurationFile=../spark-support/src/test/resources/log4j2-test.properties \
    -cp "target/classes:$(cat target/demo.classpath)" org.troika.examples.spark.SparkJobLatency "${1:-10}"
