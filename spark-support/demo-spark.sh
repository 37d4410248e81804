#!/bin/sh
# make demo-spark: SparkTraining (troika-examples, org.troika.examples.spark) on Spark local[4] (4 ranks inside the
# Spark executor, relayed mpirun), one line per rank in rank order. Needs troika's modules installed in the local
# Maven repository (make runs `mvn install -DskipTests` first); Spark and troika-spark are "provided" dependencies of
# the examples, put on the class path here.
set -eu
cd "$(dirname "$0")/../examples"
mvn -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/demo.classpath
export SPARK_LOCAL_IP=127.0.0.1
exec java -Dlog4j2.configurationFile=../spark-support/src/test/resources/log4j2-test.properties \
    -cp "target/classes:$(cat target/demo.classpath)" org.troika.examples.spark.SparkTraining --np 4 "$@"
