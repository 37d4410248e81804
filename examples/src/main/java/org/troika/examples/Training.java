package org.troika.examples;

import java.util.Locale;
import org.troika.common.UsageException;
import org.troika.mpi.Communicator;
import org.troika.mpi.Mpi;

/**
 * Data-parallel logistic regression over MPI: each rank trains on its shard of a synthetic data set, gradients are
 * summed with one allreduce per step. Rank 0 prints the loss per epoch and the final accuracy; every rank ends with
 * {@code rank <r> model-checksum <hex>}, identical on all ranks.
 *
 * <pre>troika run -np 4 java -cp 'lib/*' org.troika.examples.Training [--epochs 10] [--samples 16384]
 *     [--features 16] [--batches 16] [--lr 0.5] [--seed 42]</pre>
 */
public final class Training {
    private Training() {}

    /** The knobs of a run. */
    public record Options(int epochs, int samples, int features, int batches, double learningRate, long seed) {
        public static Options parse(String... args) {
            int epochs = 10;
            int samples = 16384;
            int features = 16;
            int batches = 16;
            double lr = 0.5;
            long seed = 42;
            for (int i = 0; i < args.length; i++) {
                String flag = args[i];
                if (i + 1 >= args.length) {
                    throw new UsageException(flag + " needs a value (or is unknown): see Training's usage");
                }
                String v = args[++i];
                try {
                    switch (flag) {
                        case "--epochs" -> epochs = Integer.parseInt(v);
                        case "--samples" -> samples = Integer.parseInt(v);
                        case "--features" -> features = Integer.parseInt(v);
                        case "--batches" -> batches = Integer.parseInt(v);
                        case "--lr" -> lr = Double.parseDouble(v);
                        case "--seed" -> seed = Long.parseLong(v);
                        default -> throw new UsageException("unknown option " + flag
                                + ": use --epochs, --samples, --features, --batches, --lr or --seed");
                    }
                } catch (NumberFormatException e) {
                    throw new UsageException(flag + " " + v + " is not a number");
                }
            }
            if (epochs < 1 || samples < 1 || features < 1 || batches < 1 || !(lr > 0)) {
                throw new UsageException("--epochs, --samples, --features, --batches and --lr must be positive");
            }
            return new Options(epochs, samples, features, batches, lr, seed);
        }
    }

    public static void main(String[] args) {
        Options o;
        try {
            o = Options.parse(args);
        } catch (UsageException e) {
            System.err.println("troika Training: " + e.getMessage());
            System.exit(UsageException.EXIT_CODE);
            return;
        }
        try (Mpi mpi = Mpi.init()) {
            Communicator world = Mpi.world();
            train(o, world.rank(), Allreducer.of(world));
        }
    }

    /** The training loop, reusable by elastic and Spark variants; returns the trained model. */
    public static LogisticModel train(Options o, int rank, Allreducer allreducer) {
        SyntheticData.Shard shard = new SyntheticData(o.seed(), o.samples(), o.features()).shard(rank,
                allreducer.size());
        LogisticModel model = new LogisticModel(o.features());
        for (int e = 1; e <= o.epochs(); e++) {
            double loss = model.epoch(shard, o.batches(), allreducer, o.learningRate());
            if (rank == 0) {
                say(String.format(Locale.ROOT, "epoch %d/%d loss %.6f", e, o.epochs(), loss));
            }
        }
        double accuracy = model.accuracy(shard, allreducer);
        if (rank == 0) {
            say(String.format(Locale.ROOT, "final accuracy %.4f on %d samples, %d ranks", accuracy, o.samples(),
                    allreducer.size()));
        }
        say("rank " + rank + " model-checksum " + model.checksum());
        return model;
    }

    /**
     * Prints a line with one write, so mpirun's output forwarding ({@code --tag-output}) never splits it
     * ({@code printf} writes each formatted piece separately).
     */
    private static void say(String line) {
        System.out.println(line);
    }
}
