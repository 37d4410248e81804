package org.troika.spark;

import java.util.Map;
import org.apache.spark.sql.SparkSession;

/** Test sessions: local master, loopback driver, no UI, barrier slot check failing fast (MEASURED-HERE, Spark §2). */
final class LocalSpark {
    private LocalSpark() {}

    static SparkSession start(String master) {
        SparkSession.Builder b = SparkSession.builder().master(master).appName("troika-spark-test");
        Map.of("spark.ui.enabled", "false", "spark.driver.host", "127.0.0.1", "spark.driver.bindAddress", "127.0.0.1",
                "spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures", "1",
                "spark.scheduler.barrier.maxConcurrentTasksCheck.interval", "0s").forEach(b::config);
        return b.getOrCreate();
    }
}
