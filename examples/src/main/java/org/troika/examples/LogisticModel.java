package org.troika.examples;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Logistic regression trained data-parallel: every rank computes the gradient on its part of a mini-batch, one
 * allreduce per step sums gradient, loss and sample count over the ranks, and every rank applies the same averaged
 * update, so all replicas stay identical.
 */
public final class LogisticModel {
    private final double[] weights; // features, then bias

    public LogisticModel(int features) {
        this.weights = new double[features + 1];
    }

    /** A copy of the weights (features, then bias). */
    public double[] weights() {
        return weights.clone();
    }

    /** Replaces the weights, e.g. with state restored or broadcast from rank 0. */
    public void setWeights(double[] values) {
        if (values.length != weights.length) {
            throw new IllegalArgumentException("expected " + weights.length + " weights, got " + values.length);
        }
        System.arraycopy(values, 0, weights, 0, weights.length);
    }

    /**
     * One SGD step on rows {@code [from, to)} of this rank's shard (may be empty); returns the mean log-loss of the
     * whole step's global batch before the update.
     */
    public double step(SyntheticData.Shard shard, int from, int to, Allreducer allreducer, double learningRate) {
        int d = weights.length - 1;
        double[] acc = new double[d + 3]; // gradient (d + bias), loss sum, sample count
        for (int i = from; i < to; i++) {
            double[] x = shard.x()[i];
            double err = predict(x) - shard.y()[i];
            for (int j = 0; j < d; j++) {
                acc[j] += err * x[j];
            }
            acc[d] += err;
            acc[d + 1] += logLoss(x, shard.y()[i]);
            acc[d + 2] += 1;
        }
        allreducer.sumInPlace(acc);
        double n = acc[d + 2];
        if (n == 0) {
            return 0;
        }
        for (int j = 0; j <= d; j++) {
            weights[j] -= learningRate * acc[j] / n;
        }
        return acc[d + 1] / n;
    }

    /** One pass over the shard in {@code batches} mini-batches; returns the mean loss over the epoch's steps. */
    public double epoch(SyntheticData.Shard shard, int batches, Allreducer allreducer, double learningRate) {
        double loss = 0;
        for (int b = 0; b < batches; b++) {
            int from = (int) ((long) shard.size() * b / batches);
            int to = (int) ((long) shard.size() * (b + 1) / batches);
            loss += step(shard, from, to, allreducer, learningRate);
        }
        return loss / batches;
    }

    /** Fraction of all ranks' samples classified correctly. */
    public double accuracy(SyntheticData.Shard shard, Allreducer allreducer) {
        double[] counts = new double[2];
        for (int i = 0; i < shard.size(); i++) {
            counts[0] += (predict(shard.x()[i]) >= 0.5) == (shard.y()[i] == 1) ? 1 : 0;
        }
        counts[1] = shard.size();
        allreducer.sumInPlace(counts);
        return counts[0] / counts[1];
    }

    /** First 16 hex digits of SHA-256 over the weights' IEEE bits: equal on ranks whose models are identical. */
    public String checksum() {
        ByteBuffer bytes = ByteBuffer.allocate(8 * weights.length);
        for (double w : weights) {
            bytes.putDouble(w);
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes.array());
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    double predict(double[] x) {
        int d = weights.length - 1;
        double z = weights[d];
        for (int j = 0; j < d; j++) {
            z += weights[j] * x[j];
        }
        return 1 / (1 + Math.exp(-z));
    }

    private double logLoss(double[] x, double y) {
        double p = Math.min(Math.max(predict(x), 1e-12), 1 - 1e-12);
        return -(y * Math.log(p) + (1 - y) * Math.log(1 - p));
    }
}
