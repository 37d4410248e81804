package org.troika.examples.spark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.troika.common.UsageException;
import org.troika.examples.Allreducer;
import org.troika.examples.Training;
import org.troika.mpi.Mpi;
import org.troika.spark.RunOptions;
import org.troika.spark.TroikaSpark;

/**
 * The data-parallel training example ({@link Training}) run inside Spark executors with {@link TroikaSpark#run}: each
 * rank trains on its shard with MPI allreduce, returns its model checksum, and the driver prints one line per rank in
 * rank order, {@code rank <r> model-checksum <hex>} (identical checksums: the ranks agree on the model).
 *
 * <pre>java -cp ... org.troika.examples.spark.SparkTraining [--master local[4]] [--np 4] [Training options...]</pre>
 */
public final class SparkTraining {
    private SparkTraining() {}

    /** Trains with {@code trainingArgs} ({@link Training.Options}) in {@code spark}'s executors; the checksums by rank. */
    public static List<String> checksums(SparkSession spark, String[] trainingArgs, RunOptions options) {
        String[] args = trainingArgs.clone();
        return TroikaSpark.run(spark, env -> {
            Mpi mpi = Mpi.init();
            try {
                return Training.train(Training.Options.parse(args), Mpi.world().rank(), Allreducer.of(Mpi.world()))
                        .checksum();
            } finally {
                mpi.close();
            }
        }, options);
    }

    public static void main(String[] args) {
        String master = "local[4]";
        Integer np = null;
        List<String> training = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if ((args[i].equals("--master") || args[i].equals("--np")) && i + 1 < args.length) {
                if (args[i].equals("--master")) {
                    master = args[++i];
                } else {
                    np = Integer.parseInt(args[++i]);
                }
            } else {
                training.add(args[i]);
            }
        }
        String[] trainingArgs = training.toArray(String[]::new);
        try {
            Training.Options.parse(trainingArgs); // bad options fail here, not in every rank
        } catch (UsageException e) {
            System.err.println("troika SparkTraining: " + e.getMessage());
            System.exit(UsageException.EXIT_CODE);
        }
        SparkSession spark = SparkSession.builder().master(master).appName("troika SparkTraining")
                .config("spark.ui.enabled", "false").getOrCreate();
        int code = 0;
        try {
            RunOptions.Builder options = RunOptions.builder().startTimeout(Duration.ofSeconds(120));
            if (np != null) {
                options.np(np);
            }
            List<String> checksums = checksums(spark, trainingArgs, options.build());
            for (int r = 0; r < checksums.size(); r++) {
                System.out.println("rank " + r + " model-checksum " + checksums.get(r));
            }
        } catch (RuntimeException e) {
            System.err.println(e.getMessage());
            code = 1;
        } finally {
            spark.stop();
        }
        System.exit(code);
    }
}
