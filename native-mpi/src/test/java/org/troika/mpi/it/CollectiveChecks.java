package org.troika.mpi.it;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.troika.mpi.Communicator;
import org.troika.mpi.Datatype;
import org.troika.mpi.FusionBuffer;
import org.troika.mpi.Mpi;
import org.troika.mpi.MpiException;
import org.troika.mpi.Op;
import org.troika.mpi.TensorBucket;
import org.troika.mpi.spi.NativeMpi;

/**
 * A rank of the collective correctness job: runs every collective × type × op against values computed in Java
 * for all ranks, plus in-place, zero-length, address, error and (with {@code --large}) 64 MiB cases. Prints one line
 * {@code rank R abi A checks-passed N failed M} and exits 1 when a check failed.
 */
public final class CollectiveChecks extends RankChecks {
    private static final int N = 37;

    private final Communicator world;
    private final int rank;
    private final int size;

    private CollectiveChecks(Communicator world) {
        this.world = world;
        this.rank = world.rank();
        this.size = world.size();
    }

    public static void main(String[] args) {
        boolean large = Arrays.asList(args).contains("--large");
        int failed;
        try (Mpi mpi = Mpi.init()) {
            CollectiveChecks c = new CollectiveChecks(Mpi.world());
            c.runAll(large);
            for (String f : c.failures) {
                System.out.println("rank " + c.rank + " FAIL " + f);
            }
            System.out.println("rank " + c.rank + " abi " + mpi.backend().abi() + " backend " + mpi.backend().getClass().getSimpleName() + " checks-passed " + c.passed
                    + " failed " + c.failures.size());
            failed = c.failures.size();
        }
        System.exit(failed == 0 ? 0 : 1);
    }

    private void runAll(boolean large) {
        for (Datatype t : List.of(Datatype.FLOAT, Datatype.DOUBLE, Datatype.INT, Datatype.LONG)) {
            for (Op op : Op.values()) {
                allreduceAllPaths(t, op);
            }
        }
        zeroLength();
        broadcasts();
        gathers();
        splits();
        fusion();
        argumentErrors();
        mpiErrors();
        if (large) {
            large();
        }
    }

    // ---- expected values ----

    /** Rank r's element i for a reduction with op: small values for PROD (exact), wide values otherwise. */
    private static double value(Datatype t, Op op, int r, int i) {
        if (op == Op.PROD) {
            return 1 + ((r + i) % 3) * (t == Datatype.FLOAT || t == Datatype.DOUBLE ? 0.5 : 1);
        }
        return switch (t) {
            case FLOAT, DOUBLE -> (i % 11) * 0.25 - r * 1.5 + 3;
            case INT -> i * 100_003 - r * 17 - 5000;
            default -> 0; // LONG handled by longValue
        };
    }

    private static long longValue(Op op, int r, int i) {
        return op == Op.PROD ? 1 + (r + i) % 3 : (1L << 40) * (i % 5) + r * 3L - 7;
    }

    private double expected(Datatype t, Op op, int i) {
        double acc = 0;
        for (int r = 0; r < size; r++) {
            double v = value(t, op, r, i);
            acc = r == 0 ? v : combine(op, acc, v);
        }
        return acc;
    }

    private long expectedLong(Op op, int i) {
        long acc = 0;
        for (int r = 0; r < size; r++) {
            long v = longValue(op, r, i);
            acc = r == 0 ? v : switch (op) {
                case SUM -> acc + v;
                case MIN -> Math.min(acc, v);
                case MAX -> Math.max(acc, v);
                case PROD -> acc * v;
            };
        }
        return acc;
    }

    private static double combine(Op op, double a, double b) {
        return switch (op) {
            case SUM -> a + b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            case PROD -> a * b;
        };
    }

    private Object input(Datatype t, Op op, int n) {
        return switch (t) {
            case FLOAT -> {
                float[] a = new float[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (float) value(t, op, rank, i);
                }
                yield a;
            }
            case DOUBLE -> {
                double[] a = new double[n];
                for (int i = 0; i < n; i++) {
                    a[i] = value(t, op, rank, i);
                }
                yield a;
            }
            case INT -> {
                int[] a = new int[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (int) value(t, op, rank, i);
                }
                yield a;
            }
            default -> {
                long[] a = new long[n];
                for (int i = 0; i < n; i++) {
                    a[i] = longValue(op, rank, i);
                }
                yield a;
            }
        };
    }

    private void checkResult(String name, Datatype t, Op op, Object result) {
        int n = java.lang.reflect.Array.getLength(result);
        for (int i = 0; i < n; i++) {
            boolean ok;
            String got;
            String want;
            if (t == Datatype.LONG) {
                long g = ((long[]) result)[i];
                ok = g == expectedLong(op, i);
                got = Long.toString(g);
                want = Long.toString(expectedLong(op, i));
            } else {
                double g = java.lang.reflect.Array.getDouble(result, i);
                double e = t == Datatype.INT ? (int) expected(t, op, i) : expected(t, op, i);
                ok = Math.abs(g - e) <= (t == Datatype.FLOAT ? 1e-5 : 1e-12) * Math.max(1, Math.abs(e));
                got = Double.toString(g);
                want = Double.toString(e);
            }
            if (!ok) {
                fail(name + " " + t + " " + op + " [" + i + "] = " + got + ", expected " + want);
                return;
            }
        }
        passed++;
    }

    // ---- allreduce ----

    private void allreduceAllPaths(Datatype t, Op op) {
        // arrays, in and out
        Object in = input(t, op, N);
        Object out = java.lang.reflect.Array.newInstance(in.getClass().getComponentType(), N);
        Object inCopy = copyOf(in);
        reduce(in, out, op);
        checkResult("array in/out", t, op, out);
        check("array in/out leaves input", java.util.Objects.deepEquals(new Object[] {in}, new Object[] {inCopy}));
        // arrays, in place
        Object data = input(t, op, N);
        reduce(data, data, op);
        checkResult("array in place", t, op, data);
        // direct buffer in place, from a non-zero position
        Buffer buf = direct(t, N + 3);
        fill(buf, 3, input(t, op, N));
        buf.position(3);
        world.allreduce(buf, op);
        checkResult("buffer in place", t, op, drain(buf, 3, t, N));
        check("buffer position kept", buf.position() == 3);
        // direct buffers send/recv
        Buffer send = direct(t, N);
        Buffer recv = direct(t, N);
        fill(send, 0, input(t, op, N));
        world.allreduce(send, recv, op);
        checkResult("buffer send/recv", t, op, drain(recv, 0, t, N));
        // raw addresses (the GPU path, exercised with host memory)
        Buffer a = direct(t, N);
        Buffer b = direct(t, N);
        fill(a, 0, input(t, op, N));
        world.allreduce(addressOf(a), addressOf(b), N, t, op);
        checkResult("address send/recv", t, op, drain(b, 0, t, N));
        world.allreduceInPlace(addressOf(a), N, t, op);
        checkResult("address in place", t, op, drain(a, 0, t, N));
    }

    private void reduce(Object in, Object out, Op op) {
        if (in instanceof float[] f) {
            world.allreduce(f, (float[]) out, op);
        } else if (in instanceof double[] d) {
            world.allreduce(d, (double[]) out, op);
        } else if (in instanceof int[] i) {
            world.allreduce(i, (int[]) out, op);
        } else {
            world.allreduce((long[]) in, (long[]) out, op);
        }
    }

    private void zeroLength() {
        float[] empty = new float[0];
        world.allreduce(empty, new float[0], Op.SUM);
        world.allreduce(new double[0], Op.MAX);
        world.allreduce(direct(Datatype.INT, 0), Op.SUM);
        world.allreduce(direct(Datatype.LONG, 0), direct(Datatype.LONG, 0), Op.MIN);
        world.allreduceInPlace(0L, 0, Datatype.FLOAT, Op.SUM);
        world.broadcast(new long[0], 0);
        check("zero-length broadcastBytes", world.broadcastBytes(new byte[0], 0).length == 0);
        float[] gathered = world.allgatherv(empty);
        check("zero-length allgatherv", gathered.length == 0);
    }

    // ---- broadcast ----

    private void broadcasts() {
        for (int root = 0; root < size; root++) {
            double[] d = new double[N];
            int[] ints = new int[N];
            byte[] bytes = new byte[N];
            long[] longs = new long[N];
            float[] floats = new float[N];
            for (int i = 0; i < N; i++) {
                d[i] = rank == root ? i * 0.5 + root : -1;
                ints[i] = rank == root ? i - root : -1;
                bytes[i] = (byte) (rank == root ? i + root : -1);
                longs[i] = rank == root ? (1L << 50) + i + root : -1;
                floats[i] = rank == root ? i + root / 4f : -1;
            }
            world.broadcast(d, root);
            world.broadcast(ints, root);
            world.broadcast(bytes, root);
            world.broadcast(longs, root);
            world.broadcast(floats, root);
            boolean ok = true;
            for (int i = 0; i < N; i++) {
                ok &= d[i] == i * 0.5 + root && ints[i] == i - root && bytes[i] == (byte) (i + root)
                        && longs[i] == (1L << 50) + i + root && floats[i] == i + root / 4f;
            }
            check("broadcast arrays root " + root, ok);

            DoubleBuffer db = (DoubleBuffer) direct(Datatype.DOUBLE, N);
            if (rank == root) {
                for (int i = 0; i < N; i++) {
                    db.put(i, i * 3.0 + root);
                }
            }
            world.broadcast(db, root);
            IntBuffer ib = (IntBuffer) direct(Datatype.INT, N);
            if (rank == root) {
                for (int i = 0; i < N; i++) {
                    ib.put(i, i * 7 + root);
                }
            }
            world.broadcast(addressOf(ib), N, Datatype.INT, root);
            ok = true;
            for (int i = 0; i < N; i++) {
                ok &= db.get(i) == i * 3.0 + root && ib.get(i) == i * 7 + root;
            }
            check("broadcast buffer and address root " + root, ok);

            byte[] payload = ("state of root " + root + " ".repeat(root * 100)).getBytes(StandardCharsets.UTF_8);
            byte[] got = world.broadcastBytes(rank == root ? payload : null, root);
            check("broadcastBytes root " + root, Arrays.equals(got, payload));
            String s = world.broadcast(rank == root ? "hello from " + root : null,
                    v -> v.getBytes(StandardCharsets.UTF_8), b -> new String(b, StandardCharsets.UTF_8), root);
            check("broadcast object root " + root, ("hello from " + root).equals(s));
        }
    }

    // ---- gathers, alltoall, reduce-scatter ----

    private void gathers() {
        float[] send = {rank, rank + 0.5f};
        float[] recv = new float[2 * size];
        world.allgather(send, recv);
        boolean ok = true;
        for (int r = 0; r < size; r++) {
            ok &= recv[2 * r] == r && recv[2 * r + 1] == r + 0.5f;
        }
        check("allgather float", ok);
        long[] lrecv = new long[size];
        world.allgather(new long[] {(1L << 40) + rank}, lrecv);
        ok = true;
        for (int r = 0; r < size; r++) {
            ok &= lrecv[r] == (1L << 40) + r;
        }
        check("allgather long", ok);

        // rank r contributes r elements valued r*10+j: lengths differ, rank 0 sends none
        double[] mine = new double[rank];
        for (int j = 0; j < rank; j++) {
            mine[j] = rank * 10 + j;
        }
        double[] all = world.allgatherv(mine);
        int k = 0;
        ok = all.length == size * (size - 1) / 2;
        for (int r = 0; r < size && ok; r++) {
            for (int j = 0; j < r; j++) {
                ok &= all[k++] == r * 10 + j;
            }
        }
        check("allgatherv double", ok);
        int[] iv = world.allgatherv(new int[] {rank, -rank});
        check("allgatherv int", iv.length == 2 * size && iv[2 * (size - 1)] == size - 1 && iv[2 * size - 1] == 1 - size);

        int[] a2a = new int[size * 2];
        for (int j = 0; j < size; j++) {
            a2a[2 * j] = rank * 100 + j;
            a2a[2 * j + 1] = -(rank * 100 + j);
        }
        int[] a2aOut = new int[size * 2];
        world.alltoall(a2a, a2aOut);
        ok = true;
        for (int i = 0; i < size; i++) {
            ok &= a2aOut[2 * i] == i * 100 + rank && a2aOut[2 * i + 1] == -(i * 100 + rank);
        }
        check("alltoall int", ok);

        double[] rs = new double[size * 3];
        for (int i = 0; i < rs.length; i++) {
            rs[i] = i + rank;
        }
        double[] rsOut = new double[3];
        world.reduceScatterBlock(rs, rsOut, Op.SUM);
        ok = true;
        for (int j = 0; j < 3; j++) {
            int i = rank * 3 + j;
            ok &= rsOut[j] == (double) i * size + size * (size - 1) / 2.0;
        }
        check("reduceScatterBlock double", ok);
    }

    // ---- communicators ----

    private void splits() {
        try (Communicator half = world.split(rank % 2, -rank)) {
            int expectedSize = (size + 1 - rank % 2) / 2;
            // key -rank reverses the order: the highest old rank of each color gets new rank 0
            int higher = 0;
            for (int r = rank + 1; r < size; r++) {
                higher += r % 2 == rank % 2 ? 1 : 0;
            }
            check("split size", half.size() == expectedSize);
            check("split rank by key", half.rank() == higher);
            int[] sum = {1};
            half.allreduce(sum, Op.SUM);
            check("allreduce on split", sum[0] == expectedSize);
        }
        Communicator none = world.split(rank == 0 ? 0 : Communicator.UNDEFINED, 0);
        check("split UNDEFINED gives null", (rank == 0) == (none != null));
        if (none != null) {
            check("split of one", none.size() == 1);
            none.close();
        }
        check("local rank on one host", world.localRank() == rank && world.localSize() == size);
    }

    private void fusion() {
        float[][] tensors = new float[50][];
        for (int t = 0; t < tensors.length; t++) {
            tensors[t] = new float[t + 1];
            Arrays.fill(tensors[t], rank + t);
        }
        FusionBuffer fusion = new FusionBuffer(world, Datatype.FLOAT, Op.SUM, 1024);
        for (float[] t : tensors) {
            fusion.add(t);
        }
        fusion.flush();
        boolean ok = true;
        for (int t = 0; t < tensors.length; t++) {
            float want = size * t + size * (size - 1) / 2f;
            for (float v : tensors[t]) {
                ok &= v == want;
            }
        }
        check("fusion results", ok);
        // 50 tensors, 1275 floats = 5100 B through a 1 KiB buffer: about 5 collectives, far fewer than 50
        check("fusion collectives " + fusion.collectives(), fusion.collectives() >= 5 && fusion.collectives() <= 8);

        TensorBucket bucket = new TensorBucket(world, Datatype.DOUBLE, Op.SUM, 8 * 60);
        DoubleBuffer[] views = new DoubleBuffer[10];
        for (int t = 0; t < views.length; t++) {
            views[t] = bucket.doubles(t + 1);
            for (int i = 0; i <= t; i++) {
                views[t].put(i, rank * 10.0 + t);
            }
        }
        bucket.allreduce();
        ok = bucket.collectives() == 1;
        for (int t = 0; t < views.length; t++) {
            for (int i = 0; i <= t; i++) {
                ok &= views[t].get(i) == 10.0 * size * (size - 1) / 2 + (double) t * size;
            }
        }
        check("tensor bucket", ok);
    }

    // ---- errors ----

    private void argumentErrors() {
        expectIllegal("length mismatch", () -> world.allreduce(new float[3], new float[4], Op.SUM));
        expectIllegal("heap buffer", () -> world.allreduce(FloatBuffer.allocate(4), Op.SUM));
        expectIllegal("wrong byte order", () -> world.allreduce(ByteBuffer.allocateDirect(16)
                .order(ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN)
                .asFloatBuffer(), Op.SUM));
        expectIllegal("mixed types", () -> world.allreduce(direct(Datatype.FLOAT, 2), direct(Datatype.INT, 2), Op.SUM));
        expectIllegal("byte reduction", () -> world.allreduce(ByteBuffer.allocateDirect(4), Op.SUM));
        expectIllegal("read-only recv", () -> world.allreduce(direct(Datatype.INT, 2),
                ((IntBuffer) direct(Datatype.INT, 2)).asReadOnlyBuffer(), Op.SUM));
        expectIllegal("negative root", () -> world.broadcast(new int[1], -1));
        expectIllegal("root = size", () -> world.broadcast(new int[1], size));
        expectIllegal("negative count", () -> world.allreduceInPlace(addressOf(direct(Datatype.INT, 1)), -1,
                Datatype.INT, Op.SUM));
        expectIllegal("null address", () -> world.allreduce(0L, 0L, 4, Datatype.DOUBLE, Op.SUM));
        expectIllegal("allgather recv too short", () -> world.allgather(new int[2], new int[2 * size - 1]));
        world.barrier(); // still in step after the rejected calls
        passed++;
    }

    private void mpiErrors() {
        // arguments Communicator would reject, sent straight to the native layer: MPI itself must report them
        NativeMpi nat = Mpi.current().backend();
        long buf = addressOf(direct(Datatype.INT, 1));
        long comm = world.handle();
        expectMpiError("MPI_Bcast", () -> nat.bcast(buf, -1, nat.datatype(Datatype.INT), 0, comm));
        expectMpiError("MPI_Bcast", () -> nat.bcast(buf, 1, nat.datatype(Datatype.INT), size, comm));
        // (not a negative allreduce count: MPICH 4.0 does not check it and aborts in a memcpy)
        int[] one = {1};
        world.allreduce(one, Op.SUM);
        check("usable after MPI errors", one[0] == size);
    }

    private void expectMpiError(String function, Runnable call) {
        try {
            call.run();
            fail(function + " with a bad argument returned normally");
        } catch (MpiException e) {
            String prefix = function + " failed: ";
            check("MPI error carries MPI's text: " + e.getMessage(), e.getMessage().startsWith(prefix)
                    && e.getMessage().length() > prefix.length() + 10 && e.errorCode() != 0);
            if (rank == 0 && System.getenv("SHOW_ERRORS") != null) {
                System.out.println(e.getMessage());
            }
        }
    }

    private void large() {
        int n = 16 << 20; // 16 Mi floats = 64 MiB
        float[] data = new float[n];
        for (int i = 0; i < n; i++) {
            data[i] = (i % 7) + rank;
        }
        world.allreduce(data, Op.SUM);
        boolean ok = true;
        float extra = size * (size - 1) / 2f;
        for (int i = 0; i < n && ok; i++) {
            ok = data[i] == size * (i % 7) + extra;
        }
        check("64 MiB array allreduce", ok);
        FloatBuffer buf = (FloatBuffer) direct(Datatype.FLOAT, n);
        for (int i = 0; i < n; i++) {
            buf.put(i, (i % 5) * rank);
        }
        world.allreduce(buf, Op.MAX);
        ok = true;
        for (int i = 0; i < n && ok; i++) {
            ok = buf.get(i) == (i % 5) * (size - 1);
        }
        check("64 MiB buffer allreduce", ok);
    }

    // ---- helpers ----

    private static void fill(Buffer buf, int at, Object values) {
        int n = java.lang.reflect.Array.getLength(values);
        if (buf instanceof FloatBuffer f) {
            f.put(at, (float[]) values, 0, n);
        } else if (buf instanceof DoubleBuffer d) {
            d.put(at, (double[]) values, 0, n);
        } else if (buf instanceof IntBuffer i) {
            i.put(at, (int[]) values, 0, n);
        } else {
            ((LongBuffer) buf).put(at, (long[]) values, 0, n);
        }
    }

    private static Object drain(Buffer buf, int at, Datatype t, int n) {
        return switch (t) {
            case FLOAT -> {
                float[] a = new float[n];
                ((FloatBuffer) buf).get(at, a, 0, n);
                yield a;
            }
            case DOUBLE -> {
                double[] a = new double[n];
                ((DoubleBuffer) buf).get(at, a, 0, n);
                yield a;
            }
            case INT -> {
                int[] a = new int[n];
                ((IntBuffer) buf).get(at, a, 0, n);
                yield a;
            }
            default -> {
                long[] a = new long[n];
                ((LongBuffer) buf).get(at, a, 0, n);
                yield a;
            }
        };
    }

    private static Object copyOf(Object array) {
        int n = java.lang.reflect.Array.getLength(array);
        Object c = java.lang.reflect.Array.newInstance(array.getClass().getComponentType(), n);
        System.arraycopy(array, 0, c, 0, n);
        return c;
    }
}
