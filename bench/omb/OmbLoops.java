import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;

/**
 * The OSU Micro-Benchmarks for Java's latency, bandwidth, allreduce and bcast loops (OMB-J 7.0's OSULatency,
 * OSUBandwidthOMPI, OSUAllReduce, OSUBcast) with the binding's calls left abstract, so that two bindings run the very
 * same loops: {@link OmbTroika} (troika-mpi's own API) and {@link OmbDropIn} (troika's {@code mpi} drop-in). The same
 * sizes, warm-up, iteration counts (10,000 + 1,000 up to 8 KiB, then 500 + 100; bandwidth 100 + 50 from 1 MiB),
 * window of 64, timing and output lines ({@code size value}: latency in µs, bandwidth in MB/s, collectives the average
 * over ranks in µs), so that bench/omb-java.sh reads every binding's output alike. Each loop is a small method, which
 * the JIT compiles early; OMB-J's own loops are one large method per program, compiled late (docs/ompi-java.md).
 * Usage: OmbTroika|OmbDropIn latency|bw|allreduce|bcast buffer|arrays MIN:MAX [SKIP] (bytes, as OMB-J's -m; for
 * allreduce, as there, MIN counts floats and MAX is bytes; SKIP, as OMB-J's -x, the untimed rounds of each size up to
 * 8 KiB, default 1,000).
 * Buffers are direct buffers (passed to MPI as they are); arrays are byte[]/float[] of exactly the message's length,
 * made before each size's timed loop.
 */
abstract class OmbLoops {
    static final int LARGE = 8192;
    static final int WINDOW = 64;
    private static final int WARMUP = 10_000;

    final int me;
    final boolean buffers;
    /** Untimed rounds of each size up to {@link #LARGE} (OMB-J's -x). */
    private int smallSkip = 1_000;

    OmbLoops(int me, boolean buffers) {
        this.me = me;
        this.buffers = buffers;
    }

    // ---- the binding ----

    abstract void send(ByteBuffer b, int bytes, int dest, int tag);

    abstract void send(byte[] a, int dest, int tag);

    /** A blocking receive whose status the loop ignores (as OMB-J does). */
    abstract void recv(ByteBuffer b, int bytes, int source, int tag);

    abstract void recv(byte[] a, int source, int tag);

    /** Starts request {@code k} of the window. */
    abstract void isend(int k, ByteBuffer b, int bytes, int dest, int tag);

    abstract void isend(int k, byte[] a, int dest, int tag);

    abstract void irecv(int k, ByteBuffer b, int bytes, int source, int tag);

    abstract void irecv(int k, byte[] a, int source, int tag);

    /** Waits for the window's {@link #WINDOW} requests. */
    abstract void waitWindow();

    abstract void allreduce(FloatBuffer s, FloatBuffer r, int count);

    abstract void allreduce(float[] s, float[] r);

    abstract void bcast(ByteBuffer b, int bytes);

    abstract void bcast(byte[] a);

    abstract void barrier();

    abstract int size();

    abstract double sum(double v);

    // ---- the loops ----

    final void run(String test, int min, int max) {
        switch (test) {
            case "latency" -> latency(min, max);
            case "bw" -> bandwidth(min, max);
            case "allreduce" -> allreduce(min, max);
            case "bcast" -> bcast(min, max);
            default -> throw new IllegalArgumentException(test);
        }
    }

    static ByteBuffer direct(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
    }

    static ByteBuffer view(ByteBuffer b, int bytes) {
        return b.duplicate().order(ByteOrder.nativeOrder()).limit(bytes);
    }

    private void print(int size, double value) {
        if (me == 0) {
            System.out.println(size + "\t\t\t" + String.format("%.2f", value));
        }
    }

    /** The average over ranks, printed by rank 0 (OMB's collectives print the average, minimum and maximum). */
    private void printAverage(int size, double us) {
        print(size, sum(us) / size());
    }

    // ---- OSULatency: blocking ping-pong ----

    private void latency(int min, int max) {
        ByteBuffer sb = direct(max);
        ByteBuffer rb = direct(max);
        pingPong(view(sb, 1024), view(rb, 1024), 1024, new byte[1024], new byte[1024], WARMUP, 0);
        for (int size = min; size <= max; size *= 2) {
            int iters = size > LARGE ? 500 : 10_000;
            int skip = size > LARGE ? 100 : smallSkip;
            double t = pingPong(view(sb, size), view(rb, size), size, new byte[size], new byte[size], iters, skip);
            print(size, t * 1e6 / (2.0 * iters));
            barrier();
        }
    }

    /** Seconds for {@code iters} round trips after {@code skip} untimed ones (rank 0's clock). */
    private double pingPong(ByteBuffer s, ByteBuffer r, int bytes, byte[] sa, byte[] ra, int iters, int skip) {
        long t0 = 0;
        for (int i = 0; i < skip + iters; i++) {
            if (i == skip) {
                t0 = System.nanoTime();
            }
            if (me == 0) {
                if (buffers) {
                    send(s, bytes, 1, 998);
                    recv(r, bytes, 1, 998);
                } else {
                    send(sa, 1, 998);
                    recv(ra, 1, 998);
                }
            } else if (me == 1) {
                if (buffers) {
                    recv(r, bytes, 0, 998);
                    send(s, bytes, 0, 998);
                } else {
                    recv(ra, 0, 998);
                    send(sa, 0, 998);
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
        windows(views(sb, 1024), views(rb, 1024), 1024, arrays(1024), arrays(1024), ack, WARMUP, 0);
        for (int size = min; size <= max; size *= 2) {
            int iters = size >= 1 << 20 ? 100 : size > LARGE ? 500 : 10_000;
            int skip = size >= 1 << 20 ? 50 : size > LARGE ? 100 : smallSkip;
            double t = windows(views(sb, size), views(rb, size), size, arrays(size), arrays(size), ack, iters, skip);
            print(size, size / 1e6 * iters * WINDOW / t);
            barrier();
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

    private double windows(ByteBuffer[] s, ByteBuffer[] r, int bytes, byte[][] sa, byte[][] ra, ByteBuffer ack,
            int iters, int skip) {
        long t0 = 0;
        for (int i = 0; i < skip + iters; i++) {
            if (i == skip) {
                t0 = System.nanoTime();
            }
            if (me == 0) {
                for (int k = 0; k < WINDOW; k++) {
                    if (buffers) {
                        isend(k, s[k], bytes, 1, 100);
                    } else {
                        isend(k, sa[k], 1, 100);
                    }
                }
                waitWindow();
                recv(ack, 4, 1, 101);
            } else if (me == 1) {
                for (int k = 0; k < WINDOW; k++) {
                    if (buffers) {
                        irecv(k, r[k], bytes, 0, 100);
                    } else {
                        irecv(k, ra[k], 0, 100);
                    }
                }
                waitWindow();
                send(ack, 4, 0, 101);
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
            allreduceLoop(ws, wr, 1024, was, war, 1, 0);
            barrier();
        }
        for (int count = min; count * 4 <= max; count *= 2) {
            int iters = count > LARGE ? 500 : 10_000;
            int skip = count > LARGE ? 100 : smallSkip;
            double t = allreduceLoop(floats(sb, count), floats(rb, count), count, new float[count], new float[count],
                    iters, skip);
            printAverage(count * 4, t * 1e6 / iters);
            barrier();
        }
    }

    private static FloatBuffer floats(ByteBuffer b, int count) {
        return view(b, 4 * count).asFloatBuffer();
    }

    private double allreduceLoop(FloatBuffer s, FloatBuffer r, int count, float[] sa, float[] ra, int iters,
            int skip) {
        long t0 = 0;
        for (int i = 0; i < skip + iters; i++) {
            if (i == skip) {
                t0 = System.nanoTime();
            }
            if (buffers) {
                allreduce(s, r, count);
            } else {
                allreduce(sa, ra);
            }
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    private void bcast(int min, int max) {
        ByteBuffer b = direct(max);
        ByteBuffer wb = view(b, 1024);
        byte[] wa = new byte[1024];
        for (int i = 0; i < WARMUP; i++) {
            bcastLoop(wb, 1024, wa, 1, 0);
            barrier();
        }
        for (int size = min; size <= max; size *= 2) {
            int iters = size > LARGE ? 500 : 10_000;
            int skip = size > LARGE ? 100 : smallSkip;
            double t = bcastLoop(view(b, size), size, new byte[size], iters, skip);
            printAverage(size, t * 1e6 / iters);
            barrier();
        }
    }

    private double bcastLoop(ByteBuffer b, int bytes, byte[] a, int iters, int skip) {
        long t0 = 0;
        for (int i = 0; i < skip + iters; i++) {
            if (i == skip) {
                t0 = System.nanoTime();
            }
            if (buffers) {
                bcast(b, bytes);
            } else {
                bcast(a);
            }
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    /** Runs {@code loops} as the command line asks (after the binding's init). */
    static void main(OmbLoops loops, String[] args) {
        String[] range = args[2].split(":");
        if (args.length > 3) {
            loops.smallSkip = Integer.parseInt(args[3]);
        }
        loops.run(args[0], Integer.parseInt(range[0]), Integer.parseInt(range[1]));
    }
}
