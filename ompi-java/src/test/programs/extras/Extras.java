package extras;

import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import mpi.Count;
import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Op;
import mpi.Request;
import mpi.Status;
import mpi.Struct;
import mpi.UserFunction;

/**
 * What the differential programs cannot compare because Open MPI's own binding fails there (user operations in
 * scans, reduce and in-place forms end in NullPointerException; getElementsX crashes its JVM; arrays of complex and
 * pair types, alltoallw on arrays) and the drop-in's additions (createIndexedBlock, arrays in iSend/iRecv, argument
 * checks): each checked against values computed here. Compiled against the drop-in; called by {@code diff.Main}.
 */
public final class Extras {
    private static PrintWriter out;

    private Extras() {}

    static void ok(String what, boolean good) {
        out.println((good ? "ok " : "MISMATCH ") + what);
        out.flush();
    }

    interface Call {
        void run() throws Exception;
    }

    static void refused(String what, Call c) {
        try {
            c.run();
            ok(what + " refused", false);
        } catch (IllegalArgumentException e) {
            ok(what + " refused: " + e.getMessage(), e.getMessage() != null && !e.getMessage().isEmpty());
        } catch (Exception e) {
            ok(what + " threw " + e, false);
        }
    }

    public static void run(String dir, int rank) throws Exception {
        out = new PrintWriter(Files.newBufferedWriter(Path.of(dir, "extras-" + rank + ".txt")));
        Intracomm w = MPI.COMM_WORLD;
        int n = w.getSize();
        int next = (rank + 1) % n;
        int prev = (rank + n - 1) % n;

        out.println("== user operations in every reduction form");
        Op sum = new Op(new UserFunction() {
            @Override
            public void call(Object in, Object inOut, int count, Datatype type) throws MPIException {
                int[] a = (int[]) in;
                int[] b = (int[]) inOut;
                for (int i = 0; i < b.length; i++) {
                    b[i] += a[i];
                }
            }
        }, true);
        Op left = new Op(new UserFunction() {
            @Override
            public void call(ByteBuffer in, ByteBuffer inOut, int count, Datatype type) throws MPIException {
                for (int i = 0; i < count; i++) {
                    inOut.putInt(4 * i, in.getInt(4 * i));
                }
            }
        }, false);
        ok("user op null before use", sum.isNull());
        int[] scan = new int[1];
        w.scan(new int[] {rank + 1}, scan, 1, MPI.INT, sum);
        ok("scan " + scan[0], scan[0] == (rank + 1) * (rank + 2) / 2);
        int[] scanInPlace = {rank + 1};
        w.scan(scanInPlace, 1, MPI.INT, sum);
        ok("scan in place", scanInPlace[0] == scan[0]);
        int[] ex = {-7};
        w.exScan(new int[] {rank + 1}, ex, 1, MPI.INT, sum);
        ok("exScan", rank == 0 || ex[0] == rank * (rank + 1) / 2);
        int[] red = new int[2];
        w.reduce(new int[] {rank, 1}, red, 2, MPI.INT, sum, n - 1);
        ok("reduce", rank != n - 1 || (red[0] == n * (n - 1) / 2 && red[1] == n));
        int[] redIn = {rank, 1};
        w.reduce(redIn, 2, MPI.INT, sum, 0);
        ok("reduce in place", rank != 0 || (redIn[0] == n * (n - 1) / 2 && redIn[1] == n));
        IntBuffer ar = MPI.newIntBuffer(2);
        ar.put(0, rank).put(1, 10 + rank);
        w.allReduce(ar, 2, MPI.INT, left);
        ok("non-commutative allReduce in place keeps rank 0's", ar.get(0) == 0 && ar.get(1) == 10);
        int[] local = {1, 2};
        Intracomm.reduceLocal(new int[] {10, 20}, local, 2, MPI.INT, sum);
        ok("reduceLocal", local[0] == 11 && local[1] == 22);
        ok("user op created by use", !sum.isNull());
        Op thrower = new Op(new UserFunction() {
            @Override
            public void call(Object in, Object inOut, int count, Datatype type) throws MPIException {
                throw new IllegalStateException("from the user function");
            }
        }, true);
        try {
            w.allReduce(new int[] {1}, new int[1], 1, MPI.INT, thrower);
            ok("a throwing user function", n == 1);
        } catch (IllegalStateException e) {
            ok("a throwing user function's exception reaches the caller", "from the user function".equals(e.getMessage()));
        }
        w.barrier();
        sum.free();
        left.free();
        thrower.free();
        ok("freed", sum.isNull());
        try {
            MPI.SUM.free();
            ok("predefined op freed", false);
        } catch (MPIException e) {
            ok("a predefined op cannot be freed", e.getErrorClass() == MPI.ERR_OP);
        }

        out.println("== large counts");
        Status st = w.sendRecv(new int[] {1, 2, 3}, 3, MPI.INT, rank, 1, new int[3], 3, MPI.INT, rank, 1);
        Count c = st.getElementsX(MPI.INT);
        st.setElementsX(MPI.INT, new Count(5));
        ok("getElementsX " + c.getCount() + " setElementsX", c.getCount() == 3 && st.getElements(MPI.INT) == 5
                && st.getElementsX(MPI.BYTE).getCount() == 20 && new Count(3).equals(c) && c.compareTo(new Count(4)) < 0);

        out.println("== indexed block");
        Datatype ib = Datatype.createIndexedBlock(2, new int[] {0, 3, 7}, MPI.INT);
        ib.commit();
        ok("indexed block geometry", ib.getSize() == 6 && ib.getExtent() == 9);
        int[] src = new int[9];
        for (int i = 0; i < 9; i++) {
            src[i] = rank * 10 + i;
        }
        int[] dst = new int[6];
        w.sendRecv(src, 1, ib, next, 2, dst, 6, MPI.INT, prev, 2);
        int p = prev * 10;
        ok("indexed block transfer " + Arrays.toString(dst), Arrays.equals(dst, new int[] {p, p + 1, p + 3, p + 4,
            p + 7, p + 8}));
        ib.free();

        out.println("== arrays in non-blocking point-to-point (MVAPICH2-J style)");
        Object[] sends = {new byte[] {(byte) rank, 2}, new int[] {rank, -rank, 7}, new double[] {rank + 0.5},
            new long[] {rank * 3L}, new float[] {rank}, new short[] {(short) rank}, new char[] {(char) ('a' + rank)},
            new boolean[] {rank % 2 == 0, true}};
        Datatype[] types = {MPI.BYTE, MPI.INT, MPI.DOUBLE, MPI.LONG, MPI.FLOAT, MPI.SHORT, MPI.CHAR, MPI.BOOLEAN};
        Object[] recvs = {new byte[3], new int[4], new double[1], new long[1], new float[1], new short[1],
            new char[1], new boolean[3]};
        Request[] reqs = new Request[2 * sends.length];
        for (int k = 0; k < sends.length; k++) {
            int len = java.lang.reflect.Array.getLength(sends[k]);
            reqs[k] = w.iRecv(recvs[k], len, types[k], prev, 10 + k);
        }
        for (int k = 0; k < sends.length; k++) {
            int len = java.lang.reflect.Array.getLength(sends[k]);
            reqs[sends.length + k] = w.iSend(sends[k], len, types[k], next, 10 + k);
        }
        Arrays.fill((int[]) sends[1], 99); // reusable as soon as iSend returns
        Request.waitAll(reqs);
        ok("byte[] " + Arrays.toString((byte[]) recvs[0]), Arrays.equals((byte[]) recvs[0],
                new byte[] {(byte) prev, 2, 0}));
        ok("int[] " + Arrays.toString((int[]) recvs[1]), Arrays.equals((int[]) recvs[1], new int[] {prev, -prev, 7, 0}));
        ok("double[]", ((double[]) recvs[2])[0] == prev + 0.5);
        ok("long[]", ((long[]) recvs[3])[0] == prev * 3L);
        ok("float[]", ((float[]) recvs[4])[0] == prev);
        ok("short[]", ((short[]) recvs[5])[0] == prev);
        ok("char[]", ((char[]) recvs[6])[0] == 'a' + prev);
        ok("boolean[] " + Arrays.toString((boolean[]) recvs[7]), Arrays.equals((boolean[]) recvs[7],
                new boolean[] {prev % 2 == 0, true, false}));
        int[] slot = new int[5];
        Request r = w.iRecv((Object) MPI.slice(slot, 2), 2, MPI.INT, prev, 30); // the Buffer form wants direct ones
        w.isSend(new int[] {rank, rank + 1}, 2, MPI.INT, next, 30).waitFor();
        Status rs = r.waitStatus();
        ok("iRecv into a slice of an array " + Arrays.toString(slot), slot[2] == prev && slot[3] == prev + 1
                && slot[0] == 0 && rs.getSource() == prev);
        int[] tail = {-1, -1, -1, -1};
        Request t = w.iRecv(tail, 4, MPI.INT, prev, 31);
        Request s2 = w.iSend(new int[] {rank}, 1, MPI.INT, next, 31);
        while (!t.test()) {
            Thread.onSpinWait();
        }
        s2.waitFor();
        ok("test() completes the copy back", tail[0] == prev && tail[1] == -1);

        out.println("== arrays of complex and pair types, alltoallw on arrays");
        float[] fc = {rank, 1, 2, rank};
        float[] fcr = new float[4];
        w.allReduce(fc, fcr, 2, MPI.FLOAT_COMPLEX, MPI.SUM);
        ok("float complex on float[] " + Arrays.toString(fcr), fcr[0] == n * (n - 1) / 2f && fcr[1] == n
                && fcr[3] == n * (n - 1) / 2f);
        int[] pairs = {rank % 2, rank, 5, rank};
        int[] minloc = new int[4];
        w.allReduce(pairs, minloc, 2, MPI.INT2, MPI.MINLOC);
        ok("MINLOC of INT2 on int[] " + Arrays.toString(minloc), minloc[0] == 0 && minloc[1] == 0 && minloc[2] == 5
                && minloc[3] == 0);
        int[] ones = new int[n];
        int[] displs = new int[n];
        Datatype[] ints = new Datatype[n];
        int[] wsend = new int[n];
        for (int i = 0; i < n; i++) {
            ones[i] = 1;
            displs[i] = 4 * i;
            ints[i] = MPI.INT;
            wsend[i] = rank * 100 + i;
        }
        int[] wrecv = new int[n];
        w.allToAllw(wsend, ones, displs, ints, wrecv, ones, displs, ints);
        boolean good = true;
        for (int i = 0; i < n; i++) {
            good &= wrecv[i] == i * 100 + rank;
        }
        ok("allToAllw on int[] with byte displacements " + Arrays.toString(wrecv), good);

        out.println("== receives keep what MPI did not write");
        int[] big = {-1, -1, -1, -1, -1};
        w.sendRecv(new int[] {rank, rank}, 2, MPI.INT, next, 40, big, 5, MPI.INT, prev, 40);
        ok("partial receive " + Arrays.toString(big), big[0] == prev && big[2] == -1 && big[4] == -1);
        Datatype vec = Datatype.createVector(2, 1, 2, MPI.INT);
        vec.commit();
        int[] holes = {-5, -5, -5, -5};
        w.sendRecv(new int[] {rank, rank + 1}, 2, MPI.INT, next, 41, holes, 1, vec, prev, 41);
        ok("holes of a vector keep their values " + Arrays.toString(holes), holes[0] == prev && holes[1] == -5
                && holes[2] == prev + 1 && holes[3] == -5);
        vec.free();

        out.println("== wrong use is refused before MPI sees it");
        refused("count beyond an array", () -> w.send(new int[2], 3, MPI.INT, next, 50));
        refused("receive count beyond an array", () -> w.recv(new double[1], 2, MPI.DOUBLE, prev, 50));
        refused("count beyond a direct buffer", () -> w.bcast(MPI.newIntBuffer(2), 3, MPI.INT, 0));
        refused("vector reaching past an array", () -> {
            Datatype v = Datatype.createVector(2, 1, 4, MPI.INT);
            v.commit();
            w.send(new int[4], 1, v, next, 50);
        });
        refused("null buffer with a count", () -> w.allReduce(null, new int[1], 1, MPI.INT, MPI.SUM));
        refused("heap buffer in a non-blocking call", () -> w.iAllReduce(IntBuffer.allocate(1), 1, MPI.INT, MPI.SUM));
        refused("reduceScatter counts shorter than the group", () -> w.reduceScatter(new int[4], new int[4],
                new int[] {1}, MPI.INT, MPI.SUM));
        refused("gatherv counts shorter than the group", () -> w.gatherv(new int[1], 1, MPI.INT, new int[8],
                new int[] {1}, new int[] {0}, MPI.INT, rank));
        refused("not an array", () -> w.send("text", 1, MPI.BYTE, next, 50));
        refused("mismatched struct fields", () -> Datatype.createStruct(new int[] {1, 1}, new int[] {0},
                new Datatype[] {MPI.INT, MPI.INT}));
        try {
            new Struct() {
                {
                    addInt();
                    getType();
                    addInt();
                }

                @Override
                protected Data newData() {
                    return null;
                }
            };
            ok("field added after commit", false);
        } catch (IllegalStateException e) {
            ok("a field after getType() is refused", true);
        }
        w.barrier();
        int[] alive = new int[1];
        w.allReduce(new int[] {1}, alive, 1, MPI.INT, MPI.SUM);
        ok("still running after the refusals", alive[0] == n);

        out.println("== direct buffers in blocking calls and the in-place pinned path");
        DoubleBuffer db = MPI.newDoubleBuffer(3);
        db.put(0, rank).put(1, 1).put(2, -rank);
        w.allReduce(db, 3, MPI.DOUBLE, MPI.SUM);
        ok("in-place allReduce of a direct buffer", db.get(1) == n && db.get(0) == n * (n - 1) / 2.0);
        long[] big2 = new long[1 << 16];
        Arrays.fill(big2, rank + 1);
        w.allReduce(big2, 1 << 16, MPI.LONG, MPI.SUM);
        ok("64K longs in place", big2[0] == n * (n + 1) / 2 && big2[(1 << 16) - 1] == big2[0]);
        out.println("extras done");
        out.close();
    }
}
