package org.troika.wire;

import java.util.Arrays;
import java.util.List;

/**
 * The Spark protocol ({@link Protocol#SPARK}) between the job service in the Spark driver, the barrier tasks and the
 * ranks. Data only ({@link SparkCodec}); the function and the results are Java-serialized byte arrays that the
 * receiver deserializes only with the job's class filter, and only after the frame authenticated.
 */
public sealed interface SparkMessage {

    /** task → job service, first frame of the task's connection: task {@code index} runs on {@code hostHash}. */
    record Task(int index, String hostHash, String executor) implements SparkMessage {}

    /**
     * job service → task, once every task registered: start the task service of host word {@code serviceHost}
     * registering with {@code driver} (empty host: this task runs no service, it only waits for the job's end).
     */
    record Assign(String serviceHost, List<Endpoint> driver) implements SparkMessage {
        public Assign {
            driver = List.copyOf(driver);
        }
    }

    /** rank → Spark job service: send me the function to run. */
    record FetchFunction(int rank) implements SparkMessage {}

    /**
     * Spark job service → rank: the Java-serialized function and the {@code ObjectInputFilter} pattern the rank must
     * deserialize it (and the driver its result) with. Only ever sent on an authenticated channel.
     */
    record FunctionBytes(String classFilter, byte[] data) implements SparkMessage {
        public FunctionBytes {
            data = data.clone();
        }

        @Override
        public byte[] data() {
            return data.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof FunctionBytes x && x.classFilter.equals(classFilter) && Arrays.equals(x.data, data);
        }

        @Override
        public int hashCode() {
            return 31 * classFilter.hashCode() + Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "FunctionBytes[" + data.length + " bytes]";
        }
    }

    /**
     * rank → Spark job service: the rank's Java-serialized result ({@code ok}) or a one-line error as UTF-8 (not ok);
     * answered with {@link Stored} when stored, {@link Failure} when refused.
     */
    record RankResult(int rank, boolean ok, byte[] data) implements SparkMessage {
        public RankResult {
            data = data.clone();
        }

        @Override
        public byte[] data() {
            return data.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof RankResult x && x.rank == rank && x.ok == ok && Arrays.equals(x.data, data);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * rank + Boolean.hashCode(ok)) + Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "RankResult[rank=" + rank + ", ok=" + ok + ", " + data.length + " bytes]";
        }
    }

    /**
     * driver's worker notification service → rank 0 of an elastic generation: the hosts changed ({@code bits}: removed
     * = 1, added = 2), so the ranks leave together at their next commit. Data only.

    /** job service → rank: the {@link RankResult} was stored. */
    record Stored(int rank) implements SparkMessage {}

    /** job service → task: the job ended normally; the task returns. */
    record Shutdown(String reason) implements SparkMessage {}

    /** job service → task or rank: the job failed, or the request was refused; one line. */
    record Failure(String message) implements SparkMessage {}
}
