package org.troika.spark;

import org.troika.launcher.mpi.FailedRank;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;
import org.troika.launcher.cli.RunCommandLine;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;

class TroikaSparkTest {
    private static final HostPlan HOSTS = HostPlan.assign("spark", List.of(new HostSlots("spark-a", 2),
            new HostSlots("spark-b", 2)), 4);
    private static final Map<String, String> EXECUTORS = Map.of("spark-a", "10.0.0.1:7000", "spark-b", "10.0.0.2:7000");

    private static JobService.Outcome failed(String line) {
        return new JobService.Outcome(false, line.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aReportedFailureNamesRankHostExecutorExitCodeAndError() {
        String m = TroikaSpark.failureMessage(1, Map.of(0, new JobService.Outcome(true, new byte[0]), 3,
                failed("java.lang.IllegalStateException: boom")), Optional.of(new FailedRank(3, "spark-b", 1)), HOSTS,
                EXECUTORS);
        assertEquals("troika-spark: rank 3 on host spark-b (executor 10.0.0.2:7000) failed with exit code 1: "
                + "java.lang.IllegalStateException: boom", m);
    }

    @Test
    void aRankThatDiedWithoutReportingIsNamedFromMpirunsOutput() {
        String m = TroikaSpark.failureMessage(137, Map.of(), Optional.of(new FailedRank(1, "spark-a", 137)), HOSTS,
                EXECUTORS);
        assertEquals("troika-spark: rank 1 on host spark-a (executor 10.0.0.1:7000) failed with exit code 137", m);
    }

    @Test
    void withoutAnyRankTheExitCodeIsReported() {
        assertEquals("troika-spark: the MPI job failed with exit code 255 (mpirun named no rank)",
                TroikaSpark.failureMessage(255, Map.of(), Optional.empty(), HOSTS, EXECUTORS));
    }

    @Test
    void tooFewSlotsSaysHowManyAndWhatToDo() {
        assertEquals("troika-spark: 4 processes need 4 Spark task slots at once (barrier mode), but local[2] has 2"
                + " (cores / spark.task.cpus); give Spark at least 4 cores (e.g. local[4]) or run fewer processes",
                TroikaSpark.slotsMessage(4, 2, "local[2]"));
    }

    @Test
    void optionsRejectImpossibleValues() {
        assertThrows(IllegalArgumentException.class, () -> RunOptions.builder().np(0).build());
        assertThrows(IllegalArgumentException.class, () -> RunOptions.builder().startTimeout(Duration.ZERO).build());
        assertEquals(Duration.ofSeconds(600), RunOptions.defaults().startTimeout());
    }

    /** A library caller gets troika run's check and its message for the same bad value (one home per rule). */
    @Test
    void optionsGetTheCommandLinesErrorForTheSameValue() {
        assertSameError(List.of("-np", "0"), () -> RunOptions.builder().np(0).build());
        assertSameError(List.of("-np", "2000000"), () -> RunOptions.builder().np(2_000_000).build());
        assertSameError(List.of("--start-timeout", "0"),
                () -> RunOptions.builder().startTimeout(Duration.ZERO).build());
        assertSameError(List.of("--network-interfaces", "eth0,eth0"),
                () -> RunOptions.builder().networkInterfaces(List.of("eth0", "eth0")).build());
        assertSameError(List.of("--network-interface", "a;b"),
                () -> RunOptions.builder().networkInterfaces(List.of("a;b")).build());
    }

    private static void assertSameError(List<String> flags, Runnable spark) {
        List<String> args = new java.util.ArrayList<>(flags);
        args.add("hostname");
        String cli = assertThrows(UsageException.class, () -> RunCommandLine.check(args)).getMessage();
        String lib = assertThrows(IllegalArgumentException.class, spark::run).getMessage();
        assertEquals(cli, lib, String.join(" ", flags));
    }
}
