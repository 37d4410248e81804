import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import org.troika.mpi.Communicator;
import org.troika.mpi.Mpi;
import org.troika.mpi.Op;

/**
 * Java side of bench/allreduce.sh: the same loop as allreduce_bench.c through troika-mpi, on direct buffers (the
 * binding's fast path, label "buffer") and on float[] arrays (copied through the staging area, label "array").
 * Arguments: iteration scale, backend label (jna or ffm; the backend itself is chosen by TROIKA_MPI_BACKEND).
 */
public final class AllreduceBench {
    private static final int[] BYTES = {8, 1024, 65536, 1048576, 16777216};
    private static final int[] ITERS = {20000, 20000, 2000, 300, 40};

    public static void main(String[] args) {
        double scale = args.length > 0 ? Double.parseDouble(args[0]) : 1.0;
        String label = args.length > 1 ? args[1] : "jna";
        try (Mpi mpi = Mpi.init()) {
            Communicator world = Mpi.world();
            for (int s = 0; s < BYTES.length; s++) {
                int n = BYTES[s] / 4;
                int iters = (int) (ITERS[s] * scale) + 1;
                int warm = Math.max(iters / 10 + 5, s < 2 ? 5000 : 0); // let the JIT compile the small-size path
                FloatBuffer a = direct(n);
                FloatBuffer b = direct(n);
                for (int i = 0; i < n; i++) {
                    a.put(i, 1f);
                }
                for (int i = 0; i < warm; i++) {
                    world.allreduce(a, b, Op.SUM);
                }
                world.barrier();
                long t0 = System.nanoTime();
                for (int i = 0; i < iters; i++) {
                    world.allreduce(a, b, Op.SUM);
                }
                double us = (System.nanoTime() - t0) / 1e3 / iters;
                report(world, label + "-buffer", BYTES[s], iters, us, b.get(0));

                float[] x = new float[n];
                float[] y = new float[n];
                java.util.Arrays.fill(x, 1f);
                for (int i = 0; i < warm; i++) {
                    world.allreduce(x, y, Op.SUM);
                }
                world.barrier();
                t0 = System.nanoTime();
                for (int i = 0; i < iters; i++) {
                    world.allreduce(x, y, Op.SUM);
                }
                us = (System.nanoTime() - t0) / 1e3 / iters;
                report(world, label + "-array", BYTES[s], iters, us, y[0]);
            }
        }
    }

    private static void report(Communicator world, String kind, int bytes, int iters, double us, float check) {
        if (world.rank() == 0) {
            System.out.printf(java.util.Locale.ROOT, "allreduce-%s bytes=%d iters=%d us_per_call=%.4f check=%.0f%n",
                    kind, bytes, iters, us, check);
        }
    }

    private static FloatBuffer direct(int n) {
        return ByteBuffer.allocateDirect(4 * n).order(ByteOrder.nativeOrder()).asFloatBuffer();
    }
}
