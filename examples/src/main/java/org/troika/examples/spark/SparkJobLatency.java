package org.troika.examples.spark;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.troika.common.exec.LaunchPlan;
import org.troika.common.exec.ProcessSupervisor;
import org.troika.spark.RunOptions;
import org.troika.spark.TroikaSpark;

/**
 * Benchmark (bench/spark-latency.sh): wall time of one {@link TroikaSpark#run} of a trivial 4-rank function on
 * {@code local[4]}, against the floor of plain {@code mpirun -np 4} starting four JVMs ({@code java -version}) on the
 * same machine. Runs interleaved, prints medians, their difference and ratio.
 *
 * <pre>SparkJobLatency [RUNS]</pre>
 */
public final class SparkJobLatency {
    private SparkJobLatency() {}

    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> baseline = List.of("mpirun", "--bind-to", "none", "-H", "localhost:4", "-np", "4", java,
                "-Xshare:auto", "-version");
        Map<String, String> env = new java.util.HashMap<>(System.getenv());
        env.put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        env.put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        SparkSession spark = SparkSession.builder().master("local[4]").appName("troika SparkJobLatency")
                .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1").getOrCreate();
        RunOptions options = RunOptions.builder().np(4).startTimeout(Duration.ofSeconds(120)).build();
        List<Long> spark4 = new ArrayList<>();
        List<Long> plain = new ArrayList<>();
        try {
            TroikaSpark.run(spark, env2 -> env2.rank(), options); // warm-up: classes, page cache
            for (int i = 0; i < runs; i++) {
                long t0 = System.nanoTime();
                ProcessSupervisor.start(new LaunchPlan(baseline, env), s -> { }, s -> { }).waitFor();
                long t1 = System.nanoTime();
                TroikaSpark.run(spark, env2 -> env2.rank(), options);
                long t2 = System.nanoTime();
                plain.add((t1 - t0) / 1_000_000);
                spark4.add((t2 - t1) / 1_000_000);
            }
        } finally {
            spark.stop();
        }
        long m0 = median(plain);
        long m1 = median(spark4);
        System.out.printf(Locale.ROOT, "runs %d%nmpirun -np 4 java -version (floor)  median %d ms%n"
                + "TroikaSpark.run np 4 (trivial fn)   median %d ms%noverhead %d ms, ratio %.2f%n",
                runs, m0, m1, m1 - m0, (double) m1 / m0);
        System.exit(0);
    }

    private static long median(List<Long> v) {
        List<Long> s = new ArrayList<>(v);
        s.sort(null);
        return s.size() % 2 == 1 ? s.get(s.size() / 2) : (s.get(s.size() / 2 - 1) + s.get(s.size() / 2)) / 2;
    }
}
