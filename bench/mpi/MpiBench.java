import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.Locale;
import org.troika.mpi.Communicator;
import org.troika.mpi.Mpi;
import org.troika.mpi.Op;
import org.troika.mpi.Request;

/**
 * Java side of bench/mpi.sh: the loops of osu.c through troika-mpi, on direct buffers ("buffer": passed to MPI as
 * they are) and on float[]/byte[] arrays ("array": pinned on FFM for collectives, copied on JNA and for
 * point-to-point). Same sizes, iterations, warm-up, repetitions and slowest-rank timing as osu.c; before the first
 * timed size every loop is run 100,000 times at 8 B so the JIT has compiled it (C needs no such warm-up).
 * With OSU_LIB set (osu.c built as a library), each Java repetition is preceded by the same C repetition in this
 * process, and the line also carries the best and median of the per-repetition Java/C ratios (pbest, pmed; for
 * bandwidth rows C/Java, higher is better).
 * With OSU_LIB, each repetition on direct buffers is also preceded by the C loop on these very buffers: the median of
 * those ratios (pmem) is the binding's own cost, free of where the memory lies.
 * Arguments: SCALE REPS TESTS LABEL MAXBYTES [MINBYTES] (LABEL prefixes the impl names, e.g. ffm; the backend itself
 * is chosen by TROIKA_MPI_BACKEND; sizes above MAXBYTES or below MINBYTES are skipped).
 */
public final class MpiBench {
    private static final int[] SIZES = {8, 1024, 65536, 1048576, 16777216};
    private static final int[] ITERS = {20000, 10000, 1000, 100, 10};
    private static final int WINDOW = 64;
    /** Calls at 8 B before the first timed size (env WARMUP, default 100,000; large-message runs need fewer). */
    private static final int WARMUP = Integer.parseInt(System.getenv().getOrDefault("WARMUP", "100000"));
    /**
     * osu.c's loop as a library (env OSU_LIB), run before every Java repetition for paired ratios, and the same loop
     * on given buffers; or null. Loaded after Mpi.init(): the library pulls in the MPI library, and troika-mpi must
     * set UCX_ERROR_SIGNALS before that (MPICH's UCX would take over the JVM's SIGSEGV handler).
     */
    private static com.sun.jna.Function PAIRED;
    private static com.sun.jna.Function PAIRED_ON;

    private final Communicator world;
    private final int rank;
    private final int size;
    private final FloatBuffer a;
    private final FloatBuffer b;
    private final ByteBuffer ab;
    private final ByteBuffer bb;
    private final float[] fa;
    private final float[] fb;
    private final byte[] ba;
    private final byte[] bba;
    private final Request[] window = new Request[WINDOW];

    private MpiBench(Communicator world) {
        this.world = world;
        this.rank = world.rank();
        this.size = world.size();
        int max = SIZES[SIZES.length - 1] * Math.max(1, size);
        ab = ByteBuffer.allocateDirect(max).order(ByteOrder.nativeOrder());
        bb = ByteBuffer.allocateDirect(max).order(ByteOrder.nativeOrder());
        a = ab.asFloatBuffer();
        b = bb.asFloatBuffer();
        fa = new float[max / 4];
        fb = new float[max / 4];
        Arrays.fill(fa, 1f);
        for (int i = 0; i < max / 4; i++) {
            a.put(i, 1f);
        }
        ba = new byte[max];
        bba = new byte[max];
    }

    public static void main(String[] args) {
        double scale = args.length > 0 ? Double.parseDouble(args[0]) : 1.0;
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        String[] tests = (args.length > 2 ? args[2] : "allreduce,bcast,allgather,latency,bw").split(",");
        String label = args.length > 3 ? args[3] : "java";
        int maxBytes = args.length > 4 ? Integer.parseInt(args[4]) : SIZES[SIZES.length - 1];
        int minBytes = args.length > 5 ? Integer.parseInt(args[5]) : 0;
        try (Mpi mpi = Mpi.init()) {
            String lib = System.getenv("OSU_LIB");
            PAIRED = lib == null ? null : com.sun.jna.Function.getFunction(lib, "osu_loop");
            PAIRED_ON = lib == null ? null : com.sun.jna.Function.getFunction(lib, "osu_loop_on");
            MpiBench bench = new MpiBench(Mpi.world());
            for (String test : tests) {
                for (String kind : new String[] {"buffer", "array"}) {
                    if (bench.skip(test, kind, 8)) {
                        continue;
                    }
                    bench.run(test, kind, 8, WARMUP); // JIT warm-up (C2 needs ~10^4 calls; more under load), untimed
                    double[] t = new double[reps];
                    for (int s = 0; s < SIZES.length; s++) {
                        int bytes = SIZES[s];
                        if (bench.skip(test, kind, bytes) || bytes > maxBytes || bytes < minBytes) {
                            continue;
                        }
                        int iters = (int) (ITERS[s] * scale) + 1;
                        if (test.equals("bw")) {
                            iters = iters / 16 + 1;
                        }
                        bench.run(test, kind, bytes, iters / 5 + 10);
                        double[] ratio = new double[reps];
                        double[] same = new double[reps];
                        boolean bandwidth = test.equals("bw") || bytes >= 1048576;
                        boolean onBuffers = PAIRED_ON != null && kind.equals("buffer") && !test.equals("latency")
                                && !test.equals("bw");
                        for (int r = 0; r < reps; r++) {
                            double c = PAIRED == null ? Double.NaN : PAIRED.invokeDouble(new Object[] {test, bytes,
                                    iters});
                            double cm = onBuffers ? PAIRED_ON.invokeDouble(new Object[] {test, bytes, iters,
                                    com.sun.jna.Native.getDirectBufferPointer(bench.ab),
                                    com.sun.jna.Native.getDirectBufferPointer(bench.bb)}) : Double.NaN;
                            t[r] = bench.run(test, kind, bytes, iters);
                            ratio[r] = bandwidth ? c / t[r] : t[r] / c;
                            same[r] = bandwidth ? cm / t[r] : t[r] / cm;
                        }
                        Arrays.sort(t);
                        Arrays.sort(ratio);
                        Arrays.sort(same);
                        if (bench.rank == 0) {
                            System.out.printf(Locale.ROOT, "impl=%s-%s test=%s bytes=%d iters=%d min_us=%.4f "
                                    + "med_us=%.4f pbest=%.4f pmed=%.4f pmem=%.4f%n", label, kind, test, bytes, iters,
                                    t[0] * 1e6, t[reps / 2] * 1e6, bandwidth ? ratio[reps - 1] : ratio[0],
                                    ratio[reps / 2], same[reps / 2]);
                            System.out.flush();
                        }
                    }
                }
            }
        }
    }

    private boolean skip(String test, String kind, int bytes) {
        boolean p2p = test.equals("latency") || test.equals("bw");
        return (p2p && size < 2) || (test.equals("bw") && (bytes > 1048576 || kind.equals("array")));
    }

    /** One timed repetition; seconds per call (per message for latency and bw), slowest rank. */
    private double run(String test, String kind, int bytes, int iters) {
        int n = bytes / 4;
        boolean buf = kind.equals("buffer");
        a.limit(n).position(0);
        b.limit(n).position(0);
        ab.limit(bytes).position(0);
        bb.limit(bytes).position(0);
        int per = Math.max(1, n / size);
        if (test.equals("allgather")) {
            a.limit(per);
            b.limit(per * size);
        }
        float[] x = Arrays.copyOf(fa, test.equals("allgather") ? per : n);
        float[] y = new float[test.equals("allgather") ? per * size : n];
        byte[] bx = Arrays.copyOf(ba, bytes);
        byte[] by = new byte[bytes];
        world.barrier();
        double t0 = Mpi.wtime();
        // one small method per loop, the same for warm-up and timed runs, so the JIT compiles each on its own
        switch (test + "-" + kind) {
            case "allreduce-buffer" -> allreduceBuffers(iters);
            case "allreduce-array" -> allreduceArrays(x, y, iters);
            case "bcast-buffer" -> bcastBuffer(iters);
            case "bcast-array" -> bcastArray(x, iters);
            case "allgather-buffer" -> allgatherBuffers(iters);
            case "allgather-array" -> allgatherArrays(x, y, iters);
            case "latency-buffer" -> pingPongBuffers(iters);
            case "latency-array" -> pingPongArrays(bx, by, iters);
            default -> windowedBuffers(iters);
        }
        double[] t = {Mpi.wtime() - t0};
        world.allreduce(t, Op.MAX);
        double calls = test.equals("latency") ? 2.0 * iters : test.equals("bw") ? (double) WINDOW * iters : iters;
        return t[0] / calls;
    }

    private void allreduceBuffers(int iters) {
        for (int i = 0; i < iters; i++) {
            world.allreduce(a, b, Op.SUM);
        }
    }

    private void allreduceArrays(float[] x, float[] y, int iters) {
        for (int i = 0; i < iters; i++) {
            world.allreduce(x, y, Op.SUM);
        }
    }

    private void bcastBuffer(int iters) {
        for (int i = 0; i < iters; i++) {
            world.broadcast(a, 0);
        }
    }

    private void bcastArray(float[] x, int iters) {
        for (int i = 0; i < iters; i++) {
            world.broadcast(x, 0);
        }
    }

    private void allgatherBuffers(int iters) {
        for (int i = 0; i < iters; i++) {
            world.allgather(a, b);
        }
    }

    private void allgatherArrays(float[] x, float[] y, int iters) {
        for (int i = 0; i < iters; i++) {
            world.allgather(x, y);
        }
    }

    /** Like osu_latency (MPI_STATUS_IGNORE): recvIgnoreStatus, as C. */
    private void pingPongBuffers(int iters) {
        for (int i = 0; i < iters; i++) {
            if (rank == 0) {
                world.send(ab, 1, 1);
                world.recvIgnoreStatus(bb, 1, 1);
            } else if (rank == 1) {
                world.recvIgnoreStatus(bb, 0, 1);
                world.send(ab, 0, 1);
            }
        }
    }

    private void pingPongArrays(byte[] x, byte[] y, int iters) {
        for (int i = 0; i < iters; i++) {
            if (rank == 0) {
                world.send(x, 1, 1);
                world.recv(y, 1, 1);
            } else if (rank == 1) {
                world.recv(y, 0, 1);
                world.send(x, 0, 1);
            }
        }
    }

    /** osu_bw: a window of isends (irecvs) completed by waitAll, then a 4-byte acknowledgement. */
    private void windowedBuffers(int iters) {
        ByteBuffer ack = ab.duplicate().order(ByteOrder.nativeOrder());
        ack.limit(4);
        ByteBuffer ackIn = bb.duplicate().order(ByteOrder.nativeOrder());
        ackIn.limit(4);
        for (int i = 0; i < iters; i++) {
            if (rank == 0) {
                for (int w = 0; w < WINDOW; w++) {
                    window[w] = world.isend(ab, 1, 2);
                }
                Request.waitAll(window);
                world.recv(ackIn, 1, 3);
            } else if (rank == 1) {
                for (int w = 0; w < WINDOW; w++) {
                    window[w] = world.irecv(bb, 0, 2);
                }
                Request.waitAll(window);
                world.send(ack, 0, 3);
            }
        }
    }
}
