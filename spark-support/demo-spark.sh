#!/bin/sh
# make demo-spark: SparkTraining on Spark local[4] (4 ranks inside the Spark executor, relayed mpirun), one line per
# rank in rank order. Needs troika's modules installed in ~/.m2 (mvn -o -q install -DskipTests at the root).
set -eu
cd "$(dirname "$0")"
mvn -o -q install -DskipTests
mvn -o -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/demo.classpath
export SPARK_LOCAL_IP=127.0.0.1
exec java -Dlog4j2.configurationFile=src/test/resources/log4j2-test.properties \
    -cp "target/classes:$(cat target/demo.classpath)" org.troika.spark.examples.SparkTraining --np 4 "$@"
