package diff;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import mpi.Datatype;
import mpi.DoubleInt;
import mpi.FloatInt;
import mpi.Intracomm;
import mpi.LongInt;
import mpi.MPI;
import mpi.MPIException;
import mpi.Op;
import mpi.ShortInt;
import mpi.UserFunction;

/** Every predefined operation on the types it applies to, every reduction form, pairs and user operations. */
final class Reductions {
    private Reductions() {}

    static final String[] OP_NAMES = {"MAX", "MIN", "SUM", "PROD", "LAND", "BAND", "LOR", "BOR", "LXOR", "BXOR"};

    static Op[] ops() {
        return new Op[] {MPI.MAX, MPI.MIN, MPI.SUM, MPI.PROD, MPI.LAND, MPI.BAND, MPI.LOR, MPI.BOR, MPI.LXOR,
            MPI.BXOR};
    }

    /** Whether MPI defines {@code op} on element kind {@code k} (booleans: logical ops only, to stay 0/1). */
    static boolean applies(int op, int k) {
        boolean arithmetic = op <= 3;
        boolean logical = op == 4 || op == 6 || op == 8;
        boolean bitwise = op == 5 || op == 7 || op == 9;
        if (k == 3) {
            return logical;
        }
        if (k >= 6) {
            return arithmetic;
        }
        return arithmetic || logical || bitwise;
    }

    static Object operand(int k, int rank) {
        Object a = Arrays8.array(k, 3, 0);
        int[] v = {rank + 1, 2 * rank - 3, 7 - rank};
        for (int i = 0; i < 3; i++) {
            set(a, i, v[i]);
        }
        return a;
    }

    static void set(Object a, int i, int v) {
        if (a instanceof byte[] x) {
            x[i] = (byte) (v & 0x7f); // MPICH 4.0 compares MPI_UINT8_T as signed in MAX and MIN
        } else if (a instanceof char[] x) {
            x[i] = (char) (v & 0xff);
        } else if (a instanceof short[] x) {
            x[i] = (short) v;
        } else if (a instanceof boolean[] x) {
            x[i] = v % 2 != 0;
        } else if (a instanceof int[] x) {
            x[i] = v;
        } else if (a instanceof long[] x) {
            x[i] = v * 1_000_000_007L;
        } else if (a instanceof float[] x) {
            x[i] = v * 0.5f;
        } else {
            ((double[]) a)[i] = v * 0.25;
        }
    }

    static void run() throws Exception {
        Intracomm w = MPI.COMM_WORLD;
        int rank = w.getRank();
        int n = w.getSize();
        Op[] ops = ops();

        Out.section("allReduce every op and type");
        for (int o = 0; o < ops.length; o++) {
            for (int k = 0; k < 8; k++) {
                if (!applies(o, k)) {
                    continue;
                }
                Object in = operand(k, rank);
                Object out = Arrays8.array(k, 3, 0);
                w.allReduce(in, out, 3, Arrays8.type(k), ops[o]);
                Object inPlace = operand(k, rank);
                w.allReduce(inPlace, 3, Arrays8.type(k), ops[o]);
                Out.p(OP_NAMES[o] + " " + Arrays8.NAMES[k] + " " + Out.str(out) + " in place " + Out.str(inPlace));
            }
        }
        Out.section("reduce every root");
        for (int root = 0; root < n; root++) {
            for (int o = 0; o < 4; o++) {
                long[] in = (long[]) operand(5, rank);
                long[] out = new long[3];
                w.reduce(in, out, 3, MPI.LONG, ops[o], root);
                double[] ip = (double[]) operand(7, rank);
                w.reduce(ip, 3, MPI.DOUBLE, ops[o], root);
                Out.p("root " + root + " " + OP_NAMES[o] + " " + Out.str(out) + " in place " + Out.str(ip));
            }
            IntBuffer ib = PointToPoint.ints(rank, rank * rank);
            IntBuffer ob = MPI.newIntBuffer(2);
            w.iReduce(ib, ob, 2, MPI.INT, MPI.SUM, root).waitFor();
            IntBuffer ipb = PointToPoint.ints(rank + 1, 2);
            w.iReduce(ipb, 2, MPI.INT, MPI.PROD, root).waitFor();
            Out.p("root " + root + " iReduce " + Out.str(ob) + " in place " + Out.str(ipb));
        }
        Out.section("buffers, slices and zero counts");
        DoubleBuffer db = MPI.newDoubleBuffer(4);
        DoubleBuffer dr = MPI.newDoubleBuffer(4);
        for (int i = 0; i < 4; i++) {
            db.put(i, rank * i);
        }
        w.allReduce(db, dr, 4, MPI.DOUBLE, MPI.SUM);
        w.allReduce(db, 4, MPI.DOUBLE, MPI.MAX);
        Out.p("buffers " + Out.str(dr) + " in place " + Out.str(db));
        int[] big = {1, 2, 3, rank, rank + 1, 9};
        int[] res = new int[6];
        w.allReduce(MPI.slice(big, 3), MPI.slice(res, 1), 2, MPI.INT, MPI.SUM);
        Out.p("slices " + Out.str(res));
        w.allReduce(big, res, 0, MPI.INT, MPI.SUM);
        Out.p("zero count leaves " + Out.str(res));
        IntBuffer ia = PointToPoint.ints(rank, 1);
        IntBuffer ir = MPI.newIntBuffer(2);
        w.iAllReduce(ia, ir, 2, MPI.INT, MPI.MAX).waitFor();
        w.iAllReduce(ia, 2, MPI.INT, MPI.SUM).waitFor();
        Out.p("iAllReduce " + Out.str(ir) + " in place " + Out.str(ia));

        Out.section("complex");
        java.nio.FloatBuffer fc = MPI.newFloatBuffer(4);
        fc.put(new float[] {rank + 1, 1, 0, 0}).clear();
        java.nio.FloatBuffer fcr = MPI.newFloatBuffer(4);
        w.allReduce(fc, fcr, 2, MPI.FLOAT_COMPLEX, MPI.SUM);
        DoubleBuffer dc = MPI.newDoubleBuffer(4);
        dc.put(new double[] {1, rank, 2, 0}).clear();
        DoubleBuffer dcr = MPI.newDoubleBuffer(4);
        w.allReduce(dc, dcr, 2, MPI.DOUBLE_COMPLEX, MPI.PROD);
        Out.p("float complex sum " + Out.str(fcr) + " double complex prod " + Out.str(dcr));

        Out.section("scan exScan reduceScatter reduceLocal");
        int[] sv = {rank + 1, 10 - rank};
        int[] so = new int[2];
        w.scan(sv, so, 2, MPI.INT, MPI.SUM);
        int[] sp = sv.clone();
        w.scan(sp, 2, MPI.INT, MPI.PROD);
        int[] eo = {-9, -9};
        w.exScan(sv, eo, 2, MPI.INT, MPI.SUM);
        int[] ep = sv.clone();
        w.exScan(ep, 2, MPI.INT, MPI.MAX);
        Out.p("scan " + Out.str(so) + " in place " + Out.str(sp) + " exScan " + (rank == 0 ? "-" : Out.str(eo))
                + " in place " + (rank == 0 ? "-" : Out.str(ep)));
        IntBuffer isb = PointToPoint.ints(rank, 2);
        IntBuffer isr = MPI.newIntBuffer(2);
        w.iScan(isb, isr, 2, MPI.INT, MPI.SUM).waitFor();
        IntBuffer iex = MPI.newIntBuffer(2);
        w.iExScan(isb, iex, 2, MPI.INT, MPI.SUM).waitFor();
        w.iScan(isb, 2, MPI.INT, MPI.MAX).waitFor();
        IntBuffer iexp = PointToPoint.ints(rank * 3, 1);
        w.iExScan(iexp, 2, MPI.INT, MPI.SUM).waitFor();
        Out.p("iScan " + Out.str(isr) + " iExScan " + (rank == 0 ? "-" : Out.str(iex)) + " iScan in place "
                + Out.str(isb) + " iExScan in place " + (rank == 0 ? "-" : Out.str(iexp)));
        int[] rcounts = new int[n];
        int total = 0;
        for (int i = 0; i < n; i++) {
            rcounts[i] = i + 1;
            total += rcounts[i];
        }
        int[] rsIn = new int[total];
        for (int i = 0; i < total; i++) {
            rsIn[i] = rank * i;
        }
        int[] rsOut = new int[rcounts[rank]];
        w.reduceScatter(rsIn, rsOut, rcounts, MPI.INT, MPI.SUM);
        int[] rsInPlace = rsIn.clone();
        w.reduceScatter(rsInPlace, rcounts, MPI.INT, MPI.MAX);
        Out.p("reduceScatter " + Out.str(rsOut) + " in place " + Out.str(java.util.Arrays.copyOf(rsInPlace,
                rcounts[rank])));
        long[] rbIn = new long[2 * n];
        for (int i = 0; i < rbIn.length; i++) {
            rbIn[i] = rank + i * 100L;
        }
        long[] rbOut = new long[2];
        w.reduceScatterBlock(rbIn, rbOut, 2, MPI.LONG, MPI.SUM);
        long[] rbp = rbIn.clone();
        w.reduceScatterBlock(rbp, 2, MPI.LONG, MPI.MIN);
        Out.p("reduceScatterBlock " + Out.str(rbOut) + " in place " + rbp[0] + "," + rbp[1]);
        IntBuffer rsb = MPI.newIntBuffer(total);
        for (int i = 0; i < total; i++) {
            rsb.put(i, rank + i);
        }
        IntBuffer rso = MPI.newIntBuffer(rcounts[rank]);
        w.iReduceScatter(rsb, rso, rcounts, MPI.INT, MPI.SUM).waitFor();
        IntBuffer rbb = MPI.newIntBuffer(n);
        for (int i = 0; i < n; i++) {
            rbb.put(i, rank * i);
        }
        IntBuffer rbo = MPI.newIntBuffer(1);
        w.iReduceScatterBlock(rbb, rbo, 1, MPI.INT, MPI.SUM).waitFor();
        w.iReduceScatter(rsb, rcounts, MPI.INT, MPI.MAX).waitFor();
        w.iReduceScatterBlock(rbb, 1, MPI.INT, MPI.MAX).waitFor();
        Out.p("iReduceScatter " + Out.str(rso) + " iReduceScatterBlock " + Out.str(rbo) + " in place "
                + rsb.get(0) + " " + rbb.get(0));
        int[] la = {1, 2, 3};
        int[] lb = {10, 20, 30};
        Intracomm.reduceLocal(la, lb, 3, MPI.INT, MPI.PROD);
        Out.p("reduceLocal " + Out.str(lb));

        Out.section("minloc maxloc");
        IntBuffer i2 = PointToPoint.ints((rank * 7) % 5, rank, 3 - rank, rank);
        IntBuffer i2o = MPI.newIntBuffer(4);
        w.allReduce(i2, i2o, 2, MPI.INT2, MPI.MINLOC);
        IntBuffer i2m = MPI.newIntBuffer(4);
        w.allReduce(i2, i2m, 2, MPI.INT2, MPI.MAXLOC);
        Out.p("int2 minloc " + Out.str(i2o) + " maxloc " + Out.str(i2m));
        pairs(w, rank, MPI.shortInt, MPI.SHORT_INT, "short int");
        pairs(w, rank, MPI.longInt, MPI.LONG_INT, "long int");
        pairs(w, rank, MPI.floatInt, MPI.FLOAT_INT, "float int");
        pairs(w, rank, MPI.doubleInt, MPI.DOUBLE_INT, "double int");

        Out.section("user operations");
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
        Op first = new Op(new UserFunction() {
            @Override
            public void call(ByteBuffer in, ByteBuffer inOut, int count, Datatype type) throws MPIException {
                for (int i = 0; i < count; i++) {
                    inOut.putDouble(8 * i, in.getDouble(8 * i));
                }
            }
        }, false);
        Out.p("commutative " + sum.isCommutative() + " " + first.isCommutative() + " null " + sum.isNull());
        int[] us = {rank, 1, rank * rank};
        int[] uo = new int[3];
        w.allReduce(us, uo, 3, MPI.INT, sum);
        IntBuffer ubIn = PointToPoint.ints(rank, 2, 3);
        IntBuffer ub = MPI.newIntBuffer(3);
        // not in place: Open MPI's binding loses the datatype of a user op there (NullPointerException)
        w.allReduce(ubIn, ub, 3, MPI.INT, sum);
        double[] uf = {rank + 0.5, -rank};
        double[] ufo = new double[2];
        w.allReduce(uf, ufo, 2, MPI.DOUBLE, first);
        // only allReduce with two buffers here: Open MPI's binding ends reduce, scans, reduceLocal and every in-place
        // form with a user operation in a NullPointerException (its Op loses the datatype); Extras checks those
        Out.p("user sum " + Out.str(uo) + " on buffer " + Out.str(ub) + " first " + Out.str(ufo));
        Datatype vec = Datatype.createContiguous(2, MPI.INT);
        vec.commit();
        int[] uv = {rank, 1, 2, rank};
        int[] uvo = new int[4];
        w.allReduce(uv, uvo, 2, vec, sum);
        Out.p("user op on a derived type " + Out.str(uvo));
        vec.free();
        sum.free();
        first.free();
        Out.p("freed " + sum.isNull());
        w.barrier();
    }

    /** MINLOC and MAXLOC over two pairs per rank, written and read through the pair's struct accessors. */
    static void pairs(Intracomm w, int rank, mpi.Struct pair, Datatype type, String name) throws Exception {
        int ext = pair.getExtent();
        ByteBuffer in = MPI.newByteBuffer(2 * ext);
        ByteBuffer min = MPI.newByteBuffer(2 * ext);
        ByteBuffer max = MPI.newByteBuffer(2 * ext);
        for (int i = 0; i < 2; i++) {
            int value = (rank * 3 + i) % 4;
            put(pair, in, i, value, rank);
        }
        w.allReduce(in, min, 2, type, MPI.MINLOC);
        w.allReduce(in, max, 2, type, MPI.MAXLOC);
        Out.p(name + " extent " + ext + " minloc " + get(pair, min, 0) + " " + get(pair, min, 1) + " maxloc "
                + get(pair, max, 0) + " " + get(pair, max, 1));
    }

    static void put(mpi.Struct pair, ByteBuffer b, int i, int value, int index) throws Exception {
        if (pair instanceof ShortInt s) {
            ShortInt.Data d = s.getData(b, i);
            d.putValue((short) value);
            d.putIndex(index);
        } else if (pair instanceof LongInt s) {
            LongInt.Data d = s.getData(b, i);
            d.putValue(value);
            d.putIndex(index);
        } else if (pair instanceof FloatInt s) {
            FloatInt.Data d = s.getData(b, i);
            d.putValue(value);
            d.putIndex(index);
        } else {
            DoubleInt.Data d = ((DoubleInt) pair).getData(b, i);
            d.putValue(value);
            d.putIndex(index);
        }
    }

    static String get(mpi.Struct pair, ByteBuffer b, int i) throws Exception {
        if (pair instanceof ShortInt s) {
            ShortInt.Data d = s.getData(b, i);
            return d.getValue() + "@" + d.getIndex();
        } else if (pair instanceof LongInt s) {
            LongInt.Data d = s.getData(b, i);
            return d.getValue() + "@" + d.getIndex();
        } else if (pair instanceof FloatInt s) {
            FloatInt.Data d = s.getData(b, i);
            return d.getValue() + "@" + d.getIndex();
        }
        DoubleInt.Data d = ((DoubleInt) pair).getData(b, i);
        return d.getValue() + "@" + d.getIndex();
    }
}
