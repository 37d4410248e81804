package org.troika.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.troika.testkit.Requires;

/** End to end on Spark local[4]: barrier tasks, task services, relayed mpirun, ranks in this JVM's descendants. */
@Tag("integration")
@Timeout(300)
class TroikaSparkLocalTest {
    private static SparkSession spark;

    @BeforeAll
    static void startSpark() {
        Requires.command("mpirun");
        spark = LocalSpark.start("local[4]");
    }

    @AfterAll
    static void stopSpark() {
        if (spark != null) {
            spark.stop();
        }
    }

    private static RunOptions np4() {
        return RunOptions.builder().np(4).startTimeout(Duration.ofSeconds(120)).build();
    }

    @Test
    void resultsComeBackOrderedByRank() {
        List<String> r = TroikaSpark.run(spark, env -> "rank " + env.rank() + " of " + env.size() + " local "
                + env.localRank() + "/" + env.localSize(), np4());
        assertEquals(List.of("rank 0 of 4 local 0/4", "rank 1 of 4 local 1/4", "rank 2 of 4 local 2/4",
                "rank 3 of 4 local 3/4"), r);
    }

    @Test
    void aFailingRankFailsTheJobNamingRankHostAndExitCode() {
        TroikaSparkException e = assertThrows(TroikaSparkException.class, () -> TroikaSpark.run(spark, env -> {
            if (env.rank() == 2) {
                throw new IllegalStateException("boom in rank two");
            }
            return env.rank();
        }, np4()));
        String m = e.getMessage();
        assertTrue(m.contains("rank 2 on host spark-") && m.contains("exit code 1")
                && m.contains("IllegalStateException: boom in rank two"), m);
    }

    @Test
    void moreProcessesThanCoresFailsAtOnce() {
        var e = assertThrows(org.troika.common.UsageException.class,
                () -> TroikaSpark.run(spark, env -> env.rank(), RunOptions.builder().np(8).build()));
        assertTrue(e.getMessage().contains("8 processes need 8 Spark task slots") && e.getMessage().contains("has 4"),
                e.getMessage());
    }

    @Test
    void aStartTimeoutNamesHowManyTasksRegistered() {
        TroikaSparkException e = assertThrows(TroikaSparkException.class, () -> TroikaSpark.run(spark,
                env -> env.rank(), RunOptions.builder().np(4).startTimeout(Duration.ofMillis(1)).build()));
        assertTrue(e.getMessage().matches(".*start timeout: \\d of 4 Spark tasks registered within 1 ms.*"),
                e.getMessage());
    }
}
