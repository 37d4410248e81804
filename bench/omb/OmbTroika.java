import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import org.troika.mpi.Communicator;
import org.troika.mpi.Mpi;
import org.troika.mpi.Op;
import org.troika.mpi.Request;

/**
 * The OSU Micro-Benchmarks for Java's latency, bandwidth, allreduce and bcast loops (OMB-J 7.0's OSULatency,
 * OSUBandwidthOMPI, OSUAllReduce, OSUBcast), written for troika-mpi's own API: the same sizes, warm-up, iteration
 * counts (10,000 + 1,000 up to 8 KiB, then 500 + 100; bandwidth 100 + 50 from 1 MiB), window of 64, timing and output
 * lines ({@code size value}: latency in µs, bandwidth in MB/s, collectives the average over ranks in µs), so that
 * bench/omb-java.sh reads all three bindings' output alike.
 * Usage: OmbTroika latency|bw|allreduce|bcast buffer|arrays MIN:MAX (bytes, as OMB-J's -m; for allreduce, as there,
 * MIN counts floats and MAX is bytes).
 * Buffers are direct buffers (passed to MPI as they are); arrays are byte[]/float[] of exactly the message's length
 * (troika-mpi sends whole arrays), made before each size's timed loop.
 */
public final class OmbTroika {
    private static final int LARGE = 8192;
    private static final int WINDOW = 64;
    private static final int WARMUP = 10_000;

    private final Communicator w;
    private final int me;
    private final boolean buffers;

    private OmbTroika(Communicator w, boolean buffers) {
        this.w = w;
        this.me = w.rank();
        this.buffers = buffers;
    }

    public static void main(String[] args) {
        String[] range = args[2].split(":");
        int min = Integer.parseInt(range[0]);
        int max = Integer.parseInt(range[1]);
        try (Mpi mpi = Mpi.init()) {
            OmbTroika b = new OmbTroika(Mpi.world(), args[1].equals("buffer"));
            switch (args[0]) {
                case "latency" -> b.latency(min, max);
                case "bw" -> b.bandwidth(min, max);
                case "allreduce" -> b.allreduce(min, max);
                case "bcast" -> b.bcast(min, max);
                default -> throw new IllegalArgumentException(args[0]);
            }
        }
    }

    private static ByteBuffer direct(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
    }

    private static ByteBuffer view(ByteBuffer b, int bytes) {
        return b.duplicate().order(ByteOrder.nativeOrder()).limit(bytes);
    }

    private void print(int size, double value) {
        if (me == 0) {
            System.out.println(size + "\t\t\t" + String.format("%.2f", value));
        }
    }

    /** The average over ranks, printed by rank 0 (OMB's collectives print the average, minimum and maximum). */
    private void printAverage(int size, double us) {
        double[] t = {us};
        w.allreduce(t, Op.SUM);
        print(size, t[0] / w.size());
    }

    // ---- OSULatency: blocking ping-pong ----

    private void latency(int min, int max) {
        ByteBuffer sb = direct(max);
        ByteBuffer rb = direct(max);
        pingPong(view(sb, 1024), view(rb, 1024), new byte[1024], new byte[1024], WARMUP, 0);
        for (int size = min; size <= max; size *= 2) {
            int iters = size > LARGE ? 500 : 10_000;
            int skip = size > LARGE ? 100 : 1_000;
            double t = pingPong(view(sb, size), view(rb, size), new byte[size], new byte[size], iters, skip);
            print(size, t * 1e6 / (2.0 * iters));
            w.barrier();
        }
    }

    /** Seconds for {@code iters} round trips after {@code skip} untimed ones (rank 0's clock). */
    private double pingPong(ByteBuffer s, ByteBuffer r, byte[] sa, byte[] ra, int iters, int skip) {
        long t0 = 0;
        for (int i = 0; i < skip + iters; i++) {
            if (i == skip) {
                t0 = System.nanoTime();
            }
            if (me == 0) {
                if (buffers) {
                    w.send(s, 1, 998);
                    w.recvIgnoreStatus(r, 1, 998);
                } else {
                    w.send(sa, 1, 998);
                    w.recv(ra, 1, 998);
                }
            } else if (me == 1) {
                if (buffers) {
                    w.recvIgnoreStatus(r, 0, 998);
                    w.send(s, 0, 998);
                } else {
                    w.recv(ra, 0, 998);
                    w.send(sa, 0, 998);
                }
            }
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    // ---- OSUBandwidthOMPI: windows of 64 non-blocking sends, then an acknowledgement ----

    private void bandwidth(int min, int max) {
        ByteBuffer[] sb = new ByteBuffer[WINDOW];
        ByteBuffer[] rb = new ByteBuffer[WINDOW];
        for (int k = 0; k < WINDOW; k++) {
            sb[k] = direct(max);
            rb[k] = direct(max);
        }
        ByteBuffer ack = direct(4);
        Request[] reqs = new Request[WINDOW];
        windows(views(sb, 1024), views(rb, 1024), arrays(1024), arrays(1024), ack, reqs, WARMUP, 0);
        for (int size = min; size <= max; size *= 2) {
            int iters = size >= 1 << 20 ? 100 : size > LARGE ? 500 : 10_000;
            int skip = size >= 1 << 20 ? 50 : size > LARGE ? 100 : 1_000;
            double t = windows(views(sb, size), views(rb, size), arrays(size), arrays(size), ack, reqs, iters, skip);
            print(size, size / 1e6 * iters * WINDOW / t);
            w.barrier();
        }
    }

    private static ByteBuffer[] views(ByteBuffer[] b, int bytes) {
        ByteBuffer[] v = new ByteBuffer[b.length];
        for (int k = 0; k < b.length; k++) {
            v[k] = view(b[k], bytes);
        }
        return v;
    }

    private static byte[][] arrays(int bytes) {
        return new byte[WINDOW][bytes];
    }

    private double windows(ByteBuffer[] s, ByteBuffer[] r, byte[][] sa, byte[][] ra, ByteBuffer ack, Request[] reqs,
            int iters, int skip) {
        long t0 = 0;
        for (int i = 0; i < skip + iters; i++) {
            if (i == skip) {
                t0 = System.nanoTime();
            }
            if (me == 0) {
                for (int k = 0; k < WINDOW; k++) {
                    reqs[k] = buffers ? w.isend(s[k], 1, 100) : w.isend(sa[k], 1, 100);
                }
                Request.waitAll(reqs);
                w.recvIgnoreStatus(ack, 1, 101);
            } else if (me == 1) {
                for (int k = 0; k < WINDOW; k++) {
                    reqs[k] = buffers ? w.irecv(r[k], 0, 100) : w.irecv(ra[k], 0, 100);
                }
                Request.waitAll(reqs);
                w.send(ack, 0, 101);
            }
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    // ---- OSUAllReduce (floats, SUM) and OSUBcast (bytes, root 0) ----

    private void allreduce(int min, int max) {
        ByteBuffer sb = direct(max);
        ByteBuffer rb = direct(max);
        FloatBuffer ws = floats(sb, 1024);
        FloatBuffer wr = floats(rb, 1024);
        float[] was = new float[1024];
        float[] war = new float[1024];
        for (int i = 0; i < WARMUP; i++) {
            allreduceLoop(ws, wr, was, war, 1, 0);
            w.barrier();
        }
        for (int count = min; count * 4 <= max; count *= 2) {
            int iters = count > LARGE ? 500 : 10_000;
            int skip = count > LARGE ? 100 : 1_000;
            double t = allreduceLoop(floats(sb, count), floats(rb, count), new float[count], new float[count], iters,
                    skip);
            printAverage(count * 4, t * 1e6 / iters);
            w.barrier();
        }
    }

    private static FloatBuffer floats(ByteBuffer b, int count) {
        return view(b, 4 * count).asFloatBuffer();
    }

    private double allreduceLoop(FloatBuffer s, FloatBuffer r, float[] sa, float[] ra, int iters, int skip) {
        long t0 = 0;
        for (int i = 0; i < skip + iters; i++) {
            if (i == skip) {
                t0 = System.nanoTime();
            }
            if (buffers) {
                w.allreduce(s, r, Op.SUM);
            } else {
                w.allreduce(sa, ra, Op.SUM);
            }
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    private void bcast(int min, int max) {
        ByteBuffer b = direct(max);
        ByteBuffer wb = view(b, 1024);
        byte[] wa = new byte[1024];
        for (int i = 0; i < WARMUP; i++) {
            bcastLoop(wb, wa, 1, 0);
            w.barrier();
        }
        for (int size = min; size <= max; size *= 2) {
            int iters = size > LARGE ? 500 : 10_000;
            int skip = size > LARGE ? 100 : 1_000;
            double t = bcastLoop(view(b, size), new byte[size], iters, skip);
            printAverage(size, t * 1e6 / iters);
            w.barrier();
        }
    }

    private double bcastLoop(ByteBuffer b, byte[] a, int iters, int skip) {
        long t0 = 0;
        for (int i = 0; i < skip + iters; i++) {
            if (i == skip) {
                t0 = System.nanoTime();
            }
            if (buffers) {
                w.broadcast(b, 0);
            } else {
                w.broadcast(a, 0);
            }
        }
        return (System.nanoTime() - t0) / 1e9;
    }
}
