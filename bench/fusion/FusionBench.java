import java.nio.FloatBuffer;
import java.util.Locale;
import org.troika.mpi.Communicator;
import org.troika.mpi.Datatype;
import org.troika.mpi.FusionBuffer;
import org.troika.mpi.Mpi;
import org.troika.mpi.Op;
import org.troika.mpi.TensorBucket;

/**
 * Java side of bench/fusion.sh: a step reduces 1,000 tensors of 1,024 floats, either one allreduce per tensor
 * ("unfused"), through FusionBuffers of 64 MiB, 1 MiB and 256 KiB ("fused": packing copies in and out), or as views
 * of one TensorBucket (one collective, no copies). Variants alternate within each step; the best step is kept.
 */
public final class FusionBench {
    public static void main(String[] args) {
        int tensors = 1000;
        int length = 1024;
        int steps = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        try (Mpi mpi = Mpi.init()) {
            Communicator world = Mpi.world();
            float[][] grads = new float[tensors][length];
            for (float[] g : grads) {
                java.util.Arrays.fill(g, 1f);
            }
            int[] thresholds = {FusionBuffer.DEFAULT_THRESHOLD_BYTES, 1 << 20, 256 << 10};
            FusionBuffer[] fusions = new FusionBuffer[thresholds.length];
            double[] best = new double[thresholds.length + 1]; // [0] unfused
            long[] collectives = new long[thresholds.length];
            java.util.Arrays.fill(best, Double.MAX_VALUE);
            for (int f = 0; f < thresholds.length; f++) {
                fusions[f] = new FusionBuffer(world, Datatype.FLOAT, Op.SUM, thresholds[f]);
            }
            // gradients that live in one bucket: one collective per step and no packing copies
            TensorBucket bucket = new TensorBucket(world, Datatype.FLOAT, Op.SUM, tensors * length * 4);
            for (int t = 0; t < tensors; t++) {
                FloatBuffer view = bucket.floats(length);
                for (int i = 0; i < length; i++) {
                    view.put(i, 1f);
                }
            }
            double bestBucket = Double.MAX_VALUE;
            for (int s = 0; s < steps + 3; s++) { // 3 warm-up steps
                world.barrier();
                long t0 = System.nanoTime();
                for (float[] g : grads) {
                    world.allreduce(g, Op.SUM);
                }
                if (s >= 3) {
                    best[0] = Math.min(best[0], (System.nanoTime() - t0) / 1e6);
                }
                world.barrier();
                long b0 = System.nanoTime();
                bucket.allreduce();
                if (s >= 3) {
                    bestBucket = Math.min(bestBucket, (System.nanoTime() - b0) / 1e6);
                }
                for (int f = 0; f < fusions.length; f++) {
                    world.barrier();
                    long before = fusions[f].collectives();
                    t0 = System.nanoTime();
                    for (float[] g : grads) {
                        fusions[f].add(g);
                    }
                    fusions[f].flush();
                    if (s >= 3) {
                        best[f + 1] = Math.min(best[f + 1], (System.nanoTime() - t0) / 1e6);
                        collectives[f] = fusions[f].collectives() - before;
                    }
                }
            }
            if (world.rank() == 0) {
                System.out.printf(Locale.ROOT, "fusion: %d ranks, %d tensors x %d floats per step, best of %d steps%n",
                        world.size(), tensors, length, steps);
                System.out.printf(Locale.ROOT, "%-28s %16s %12s %22s %16s%n", "variant", "collectives/step",
                        "ms/step", "fewer collectives", "step speed-up");
                System.out.printf(Locale.ROOT, "%-28s %16d %12.3f %22s %16s%n", "unfused", tensors, best[0], "1x", "1.0x");
                for (int f = 0; f < thresholds.length; f++) {
                    System.out.printf(Locale.ROOT, "%-28s %16d %12.3f %21.0fx %15.1fx%n",
                            "fused, " + (thresholds[f] >> 10) + " KiB threshold", collectives[f], best[f + 1],
                            (double) tensors / collectives[f], best[0] / best[f + 1]);
                }
                System.out.printf(Locale.ROOT, "%-28s %16d %12.3f %21.0fx %15.1fx%n", "bucket views (no copies)", 1,
                        bestBucket, (double) tensors, best[0] / bestBucket);
                System.out.println("targets: >= 10x fewer collectives, >= 5x faster per step");
            }
        }
    }
}
