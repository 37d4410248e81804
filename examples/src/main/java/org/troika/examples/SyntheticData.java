package org.troika.examples;

import java.util.SplittableRandom;

/**
 * A deterministic binary classification data set: {@code samples} points in {@code features} dimensions, labelled by
 * a hidden linear model with 5 % label noise. Sample {@code g} depends only on the seed and {@code g}, so the data
 * set is the same for any number of ranks and each rank generates just its contiguous shard.
 */
public record SyntheticData(long seed, int samples, int features) {
    public SyntheticData {
        if (samples < 1 || features < 1) {
            throw new IllegalArgumentException("need at least one sample and one feature, got " + samples + " x "
                    + features);
        }
    }

    /** Rank {@code rank}'s share of the samples (sizes differ by at most one). */
    public Shard shard(int rank, int size) {
        int from = (int) ((long) samples * rank / size);
        int to = (int) ((long) samples * (rank + 1) / size);
        double[] truth = hiddenWeights();
        double[][] x = new double[to - from][];
        double[] y = new double[to - from];
        for (int g = from; g < to; g++) {
            SplittableRandom r = new SplittableRandom(seed * 1_000_003L + g);
            double[] p = new double[features];
            double z = truth[features];
            for (int j = 0; j < features; j++) {
                p[j] = r.nextDouble(-1, 1);
                z += truth[j] * p[j];
            }
            boolean label = z > 0;
            if (r.nextDouble() < 0.05) {
                label = !label;
            }
            x[g - from] = p;
            y[g - from] = label ? 1 : 0;
        }
        return new Shard(x, y);
    }

    private double[] hiddenWeights() {
        SplittableRandom r = new SplittableRandom(seed);
        double[] w = new double[features + 1];
        for (int j = 0; j <= features; j++) {
            w[j] = r.nextDouble(-2, 2);
        }
        w[features] *= 0.25; // small bias keeps both classes common
        return w;
    }

    /** Feature rows and 0/1 labels. */
    public record Shard(double[][] x, double[] y) {
        public int size() {
            return y.length;
        }
    }
}
