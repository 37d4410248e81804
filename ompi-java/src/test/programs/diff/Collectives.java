package diff;

import java.nio.IntBuffer;
import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Request;

/** Data-moving collectives: every root, every element type, in-place forms, v and w forms, non-blocking forms. */
final class Collectives {
    private Collectives() {}

    static void run() throws Exception {
        Intracomm w = MPI.COMM_WORLD;
        int rank = w.getRank();
        int n = w.getSize();

        Out.section("barrier and bcast");
        w.barrier();
        w.iBarrier().waitFor();
        for (int root = 0; root < n; root++) {
            for (int k = 0; k < 8; k++) {
                Object a = Arrays8.array(k, 4, rank == root ? root + 5 : 0);
                w.bcast(a, 4, Arrays8.type(k), root);
                java.nio.Buffer b = rank == root ? Arrays8.buffer(k, 3, root + 7) : Arrays8.empty(k, 3);
                w.bcast(b, 3, Arrays8.type(k), root);
                Out.p("root " + root + " " + Arrays8.NAMES[k] + " " + Out.str(a) + " " + Out.str(b));
            }
            IntBuffer ib = rank == root ? PointToPoint.ints(root, 1, 2) : MPI.newIntBuffer(3);
            w.iBcast(ib, 3, MPI.INT, root).waitFor();
            int[] sl = {9, 9, 9, 9, 9};
            if (rank == root) {
                sl[2] = 42;
                sl[3] = 43;
            }
            w.bcast(MPI.slice(sl, 2), 2, MPI.INT, root);
            w.bcast(new int[0], 0, MPI.INT, root);
            Out.p("root " + root + " iBcast " + Out.str(ib) + " slice " + Out.str(sl));
        }

        Out.section("gather scatter");
        for (int root = 0; root < n; root++) {
            int[] send = {rank, rank * 10};
            int[] recv = new int[2 * n];
            w.gather(send, 2, MPI.INT, recv, 2, MPI.INT, root);
            Out.p("gather root " + root + " " + Out.str(recv));
            int[] inPlace = new int[2 * n];
            inPlace[2 * rank] = -rank;
            inPlace[2 * rank + 1] = rank + 100;
            if (rank == root) {
                w.gather(inPlace, 2, MPI.INT, root);
            } else {
                w.gather(new int[] {-rank, rank + 100}, 2, MPI.INT, root);
            }
            Out.p("gather in place root " + root + " " + Out.str(inPlace));
            double[] all = new double[3 * n];
            for (int i = 0; i < all.length; i++) {
                all[i] = root * 100 + i;
            }
            double[] part = new double[3];
            w.scatter(all, 3, MPI.DOUBLE, part, 3, MPI.DOUBLE, root);
            Out.p("scatter root " + root + " " + Out.str(part));
            double[] mine = rank == root ? all.clone() : new double[3];
            w.scatter(mine, 3, MPI.DOUBLE, root);
            Out.p("scatter in place root " + root + " " + Out.str(mine));
            IntBuffer gs = PointToPoint.ints(rank, root);
            IntBuffer gr = MPI.newIntBuffer(2 * n);
            w.iGather(gs, 2, MPI.INT, gr, 2, MPI.INT, root).waitFor();
            IntBuffer sr = MPI.newIntBuffer(2);
            w.iScatter(gr, 2, MPI.INT, sr, 2, MPI.INT, root).waitFor();
            Out.p("iGather iScatter root " + root + " " + Out.str(gr) + " " + Out.str(sr));
            IntBuffer ip = MPI.newIntBuffer(n);
            ip.put(rank, rank * 3);
            w.iGather(ip, 1, MPI.INT, root).waitFor();
            Out.p("iGather in place root " + root + " " + Out.str(ip));
            w.iScatter(ip, 1, MPI.INT, root).waitFor();
            Out.p("iScatter in place root " + root + " " + Out.str(ip));
        }

        Out.section("gatherv scatterv");
        int[] counts = new int[n];
        int[] displs = new int[n];
        int total = 0;
        for (int i = 0; i < n; i++) {
            counts[i] = i % 3;
            displs[i] = total + i;
            total += counts[i] + i;
        }
        for (int root = 0; root < n; root++) {
            int[] send = new int[counts[rank]];
            for (int i = 0; i < send.length; i++) {
                send[i] = rank * 100 + i;
            }
            int[] recv = new int[total];
            java.util.Arrays.fill(recv, -1);
            if (rank == root) {
                w.gatherv(send, counts[rank], MPI.INT, recv, counts, displs, MPI.INT, root);
            } else {
                w.gatherv(send, counts[rank], MPI.INT, root);
            }
            Out.p("gatherv root " + root + " " + Out.str(recv));
            int[] inPlace = new int[total];
            java.util.Arrays.fill(inPlace, -2);
            System.arraycopy(send, 0, inPlace, displs[rank], counts[rank]);
            if (rank == root) {
                w.gatherv(inPlace, counts, displs, MPI.INT, root);
            } else {
                w.gatherv(send, counts[rank], MPI.INT, root);
            }
            Out.p("gatherv in place root " + root + " " + Out.str(inPlace));
            long[] src = new long[total];
            for (int i = 0; i < total; i++) {
                src[i] = root * 1000 + i;
            }
            long[] part = new long[3];
            if (rank == root) {
                w.scatterv(src, counts, displs, MPI.LONG, part, counts[rank], MPI.LONG, root);
            } else {
                w.scatterv(part, counts[rank], MPI.LONG, root);
            }
            Out.p("scatterv root " + root + " " + Out.str(part));
            if (rank == root) {
                w.scatterv(src, counts, displs, MPI.LONG, root);
                Out.p("scatterv in place root keeps " + Out.str(src));
            } else {
                long[] p2 = new long[3];
                w.scatterv(p2, counts[rank], MPI.LONG, root);
                Out.p("scatterv in place receive " + Out.str(p2));
            }
            IntBuffer vs = MPI.newIntBuffer(Math.max(1, counts[rank]));
            for (int i = 0; i < counts[rank]; i++) {
                vs.put(i, rank + i * 7);
            }
            IntBuffer vr = MPI.newIntBuffer(total);
            Request rq = rank == root ? w.iGatherv(vs, counts[rank], MPI.INT, vr, counts, displs, MPI.INT, root)
                    : w.iGatherv(vs, counts[rank], MPI.INT, root);
            rq.waitFor();
            Out.p("iGatherv root " + root + " " + Out.str(vr));
            IntBuffer vback = MPI.newIntBuffer(Math.max(1, counts[rank]));
            rq = rank == root ? w.iScatterv(vr, counts, displs, MPI.INT, vback, counts[rank], MPI.INT, root)
                    : w.iScatterv(vback, counts[rank], MPI.INT, root);
            rq.waitFor();
            Out.p("iScatterv root " + root + " " + Out.str(vback));
            if (rank == root) {
                w.iGatherv(vr, counts, displs, MPI.INT, root).waitFor();
                w.iScatterv(vr, counts, displs, MPI.INT, root).waitFor();
                Out.p("iGatherv iScatterv in place root " + Out.str(vr));
            } else {
                w.iGatherv(vs, counts[rank], MPI.INT, root).waitFor();
                w.iScatterv(vback, counts[rank], MPI.INT, root).waitFor();
            }
        }

        Out.section("allGather allGatherv");
        for (int k = 0; k < 8; k++) {
            Object send = Arrays8.array(k, 2, rank + 1);
            Object recv = Arrays8.array(k, 2 * n, 0);
            w.allGather(send, 2, Arrays8.type(k), recv, 2, Arrays8.type(k));
            Out.p("allGather " + Arrays8.NAMES[k] + " " + Out.str(recv));
        }
        float[] agp = new float[n];
        agp[rank] = rank * 1.5f;
        w.allGather(agp, 1, MPI.FLOAT);
        Out.p("allGather in place " + Out.str(agp));
        int[] agv = new int[total];
        java.util.Arrays.fill(agv, -1);
        int[] mine = new int[counts[rank]];
        java.util.Arrays.fill(mine, rank);
        w.allGatherv(mine, counts[rank], MPI.INT, agv, counts, displs, MPI.INT);
        Out.p("allGatherv " + Out.str(agv));
        int[] agvp = new int[total];
        java.util.Arrays.fill(agvp, -3);
        System.arraycopy(mine, 0, agvp, displs[rank], counts[rank]);
        w.allGatherv(agvp, counts, displs, MPI.INT);
        Out.p("allGatherv in place " + Out.str(agvp));
        IntBuffer ib = PointToPoint.ints(rank, -rank);
        IntBuffer ob = MPI.newIntBuffer(2 * n);
        w.iAllGather(ib, 2, MPI.INT, ob, 2, MPI.INT).waitFor();
        Out.p("iAllGather " + Out.str(ob));
        IntBuffer obp = MPI.newIntBuffer(n);
        obp.put(rank, rank + 50);
        w.iAllGather(obp, 1, MPI.INT).waitFor();
        Out.p("iAllGather in place " + Out.str(obp));
        IntBuffer vb = MPI.newIntBuffer(Math.max(1, counts[rank]));
        for (int i = 0; i < counts[rank]; i++) {
            vb.put(i, rank * 11);
        }
        IntBuffer vo = MPI.newIntBuffer(total);
        w.iAllGatherv(vb, counts[rank], MPI.INT, vo, counts, displs, MPI.INT).waitFor();
        Out.p("iAllGatherv " + Out.str(vo));
        IntBuffer vop = MPI.newIntBuffer(total);
        for (int i = 0; i < counts[rank]; i++) {
            vop.put(displs[rank] + i, rank * 12);
        }
        w.iAllGatherv(vop, counts, displs, MPI.INT).waitFor();
        Out.p("iAllGatherv in place " + Out.str(vop));

        Out.section("allToAll allToAllv allToAllw");
        short[] a2a = new short[2 * n];
        for (int i = 0; i < a2a.length; i++) {
            a2a[i] = (short) (rank * 100 + i);
        }
        short[] a2ar = new short[2 * n];
        w.allToAll(a2a, 2, MPI.SHORT, a2ar, 2, MPI.SHORT);
        Out.p("allToAll " + Out.str(a2ar));
        IntBuffer ta = MPI.newIntBuffer(n);
        IntBuffer tr = MPI.newIntBuffer(n);
        for (int i = 0; i < n; i++) {
            ta.put(i, rank * 10 + i);
        }
        w.iAllToAll(ta, 1, MPI.INT, tr, 1, MPI.INT).waitFor();
        Out.p("iAllToAll " + Out.str(tr));
        int[] sc = new int[n];
        int[] sd = new int[n];
        int[] rc = new int[n];
        int[] rd = new int[n];
        int st = 0;
        int rt = 0;
        for (int i = 0; i < n; i++) {
            sc[i] = (rank + i) % 3;
            sd[i] = st;
            st += sc[i];
            rc[i] = (i + rank) % 3;
            rd[i] = rt;
            rt += rc[i];
        }
        double[] vsend = new double[Math.max(1, st)];
        for (int i = 0; i < vsend.length; i++) {
            vsend[i] = rank + i / 10.0;
        }
        double[] vrecv = new double[Math.max(1, rt)];
        w.allToAllv(vsend, sc, sd, MPI.DOUBLE, vrecv, rc, rd, MPI.DOUBLE);
        Out.p("allToAllv " + Out.str(vrecv));
        java.nio.DoubleBuffer dvs = MPI.newDoubleBuffer(vsend.length);
        dvs.put(vsend).clear();
        java.nio.DoubleBuffer dvr = MPI.newDoubleBuffer(vrecv.length);
        w.iAllToAllv(dvs, sc, sd, MPI.DOUBLE, dvr, rc, rd, MPI.DOUBLE).waitFor();
        Out.p("iAllToAllv " + Out.str(dvr));
        // alltoallw: one element to every process at byte displacements, an int or a short per pair of processes
        Datatype[] types = new Datatype[n];
        int[] ones = new int[n];
        int[] wd = new int[n];
        for (int i = 0; i < n; i++) {
            types[i] = (rank + i) % 2 == 0 ? MPI.INT : MPI.SHORT; // the same both ways of a pair
            ones[i] = 1;
            wd[i] = 4 * i;
        }
        int[] wsend = new int[n];
        for (int i = 0; i < n; i++) {
            wsend[i] = rank * 16 + i;
        }
        // direct buffers: Open MPI's binding reads alltoallw's byte displacements as array indices for arrays
        IntBuffer wsa = MPI.newIntBuffer(n);
        wsa.put(wsend).clear();
        IntBuffer wrecv = MPI.newIntBuffer(n);
        w.allToAllw(wsa, ones, wd, types, wrecv, ones, wd, types);
        Out.p("allToAllw " + Out.str(wrecv));
        IntBuffer wsb = MPI.newIntBuffer(n);
        wsb.put(wsend).clear();
        IntBuffer wrb = MPI.newIntBuffer(n);
        w.iAllToAllw(wsb, ones, wd, types, wrb, ones, wd, types).waitFor();
        Out.p("iAllToAllw " + Out.str(wrb));
        w.barrier();
    }
}
