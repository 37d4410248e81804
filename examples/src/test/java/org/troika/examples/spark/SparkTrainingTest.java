package org.troika.examples.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.troika.spark.RunOptions;
import org.troika.testkit.Requires;

/** The Spark training demo on Spark local[4]: 4 ranks in the executor, relayed mpirun, one model on every rank. */
@Tag("integration")
@Timeout(300)
class SparkTrainingTest {
    @Test
    void theTrainingExampleEndsWithTheSameModelOnEveryRank() {
        Requires.command("mpirun");
        SparkSession spark = SparkSession.builder().master("local[4]").appName("troika-examples-test")
                .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures", "1")
                .config("spark.scheduler.barrier.maxConcurrentTasksCheck.interval", "0s").getOrCreate();
        try {
            List<String> sums = SparkTraining.checksums(spark, new String[] {"--epochs", "2", "--samples", "2048"},
                    RunOptions.builder().np(4).startTimeout(Duration.ofSeconds(120)).build());
            assertEquals(4, sums.size());
            assertTrue(sums.get(0).matches("[0-9a-f]+") && sums.stream().distinct().count() == 1, sums::toString);
        } finally {
            spark.stop();
        }
    }
}
