package diff;

import java.nio.Buffer;
import java.nio.IntBuffer;
import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Message;
import mpi.Request;
import mpi.Status;

/** Blocking point-to-point: every element type as arrays, direct buffers and slices; statuses; probes. */
final class PointToPoint {
    private PointToPoint() {}

    static String status(Status s, Datatype t) throws Exception {
        return "source " + s.getSource() + " tag " + s.getTag() + " count " + s.getCount(t) + " elements "
                + s.getElements(t) + " cancelled " + s.isCancelled();
    }

    static void run() throws Exception {
        Intracomm w = MPI.COMM_WORLD;
        int rank = w.getRank();
        int size = w.getSize();
        int next = (rank + 1) % size;
        int prev = (rank + size - 1) % size;

        Out.section("sendRecv arrays");
        for (int k = 0; k < 8; k++) {
            Object send = Arrays8.array(k, 6, rank + 1);
            Object recv = Arrays8.array(k, 8, 0);
            Status s = w.sendRecv(send, 6, Arrays8.type(k), next, 10 + k, recv, 8, Arrays8.type(k), prev, 10 + k);
            // only what arrived: Open MPI's binding writes whatever its native copy held past the message
            Out.p(Arrays8.NAMES[k] + " " + Out.str(Arrays8.prefix(recv, 6)) + " " + status(s, Arrays8.type(k)));
        }
        Out.section("sendRecv direct buffers");
        for (int k = 0; k < 8; k++) {
            Buffer send = Arrays8.buffer(k, 6, rank + 1);
            Buffer recv = Arrays8.empty(k, 8);
            send.position(3); // positions are ignored: offsets only through slice
            Status s = w.sendRecv(send, 6, Arrays8.type(k), next, 20 + k, recv, 8, Arrays8.type(k), prev, 20 + k);
            Out.p(Arrays8.NAMES[k] + " " + Out.str(recv) + " " + status(s, Arrays8.type(k)));
        }
        Out.section("sendRecv slices");
        for (int k = 0; k < 8; k++) {
            if (k == 3) {
                continue; // there is no slice of boolean[]
            }
            Object send = Arrays8.array(k, 9, rank + 1);
            Object recv = Arrays8.array(k, 9, 0);
            w.sendRecv(Arrays8.slice(send, 2), 4, Arrays8.type(k), next, 30 + k, Arrays8.slice(recv, 5), 4,
                    Arrays8.type(k), prev, 30 + k);
            Buffer dsend = Arrays8.buffer(k, 9, rank + 2);
            Buffer drecv = Arrays8.empty(k, 9);
            w.sendRecv(Arrays8.slice(dsend, 3), 3, Arrays8.type(k), next, 40 + k, Arrays8.slice(drecv, 1), 3,
                    Arrays8.type(k), prev, 40 + k);
            Out.p(Arrays8.NAMES[k] + " heap slice " + Out.str(recv) + " direct slice " + Out.str(drecv));
        }
        Out.section("send recv pairs");
        for (int k = 0; k < 8; k++) {
            Object a = Arrays8.array(k, 5, rank + 3);
            Object b = Arrays8.array(k, 5, 0);
            if (rank % 2 == 0) {
                w.send(a, 5, Arrays8.type(k), next, k);
                Status s = w.recv(b, 5, Arrays8.type(k), prev, k);
                Out.p(Arrays8.NAMES[k] + " " + Out.str(b) + " " + status(s, Arrays8.type(k)));
            } else {
                Status s = w.recv(b, 5, Arrays8.type(k), prev, k);
                w.send(a, 5, Arrays8.type(k), next, k);
                Out.p(Arrays8.NAMES[k] + " " + Out.str(b) + " " + status(s, Arrays8.type(k)));
            }
        }
        Out.section("complex and pairs");
        // complex types on direct buffers (Open MPI's binding sizes arrays of them wrongly: count * 8 elements)
        java.nio.FloatBuffer fc = MPI.newFloatBuffer(4);
        fc.put(new float[] {rank, rank + 0.5f, -rank, 2}).clear();
        java.nio.FloatBuffer fcIn = MPI.newFloatBuffer(4);
        w.sendRecv(fc, 2, MPI.FLOAT_COMPLEX, next, 50, fcIn, 2, MPI.FLOAT_COMPLEX, prev, 50);
        java.nio.DoubleBuffer dc = MPI.newDoubleBuffer(4);
        dc.put(new double[] {rank, -rank, 1, 2}).clear();
        java.nio.DoubleBuffer dcIn = MPI.newDoubleBuffer(4);
        Status s = w.sendRecv(dc, 2, MPI.DOUBLE_COMPLEX, next, 51, dcIn, 2, MPI.DOUBLE_COMPLEX, prev, 51);
        IntBuffer i2 = ints(rank, rank * 2, rank * 3, rank * 4);
        IntBuffer i2In = MPI.newIntBuffer(4);
        w.sendRecv(i2, 2, MPI.INT2, next, 52, i2In, 2, MPI.INT2, prev, 52);
        Out.p("float complex " + Out.str(fcIn) + " double complex " + Out.str(dcIn) + " int2 " + Out.str(i2In));
        Out.p("double complex status " + status(s, MPI.DOUBLE_COMPLEX) + " as doubles " + s.getCount(MPI.DOUBLE));

        Out.section("partial receive and zero counts");
        int[] big = new int[10];
        java.util.Arrays.fill(big, -1);
        Status part = w.sendRecv(new int[] {rank, rank, rank}, 3, MPI.INT, next, 60, big, 10, MPI.INT, prev, 60);
        Out.p("partial " + Out.str(Arrays8.prefix(big, 3)) + " " + status(part, MPI.INT) + " as bytes "
                + part.getCount(MPI.BYTE)
                + " as doubles " + part.getCount(MPI.DOUBLE) + " elements of double " + part.getElements(MPI.DOUBLE));
        Status zero = w.sendRecv(new int[1], 0, MPI.INT, next, 61, big, 0, MPI.INT, prev, 61);
        Out.p("zero " + status(zero, MPI.INT) + " unchanged " + Out.str(Arrays8.prefix(big, 3)));
        Status none = w.recv(big, 3, MPI.INT, MPI.PROC_NULL, 62);
        w.send(big, 3, MPI.INT, MPI.PROC_NULL, 62);
        Out.p("proc null " + status(none, MPI.INT));

        Out.section("derived types point to point");
        Datatype vec = Datatype.createVector(3, 1, 2, MPI.INT);
        vec.commit();
        int[] src = new int[12];
        for (int i = 0; i < 12; i++) {
            src[i] = rank * 100 + i;
        }
        int[] dst = new int[12];
        Status vs = w.sendRecv(src, 2, vec, next, 70, dst, 2, vec, prev, 70);
        Out.p("vector " + Out.str(dst) + " " + status(vs, vec) + " ints " + vs.getCount(MPI.INT));
        int[] packedInts = new int[6];
        w.sendRecv(src, 2, vec, next, 71, packedInts, 6, MPI.INT, prev, 71);
        Out.p("vector to ints " + Out.str(packedInts));
        IntBuffer vb = MPI.newIntBuffer(12);
        w.sendRecv(src, 1, vec, next, 72, vb, 1, vec, prev, 72);
        Out.p("vector into buffer " + Out.str(vb));
        vec.free();

        Out.section("probe and iProbe");
        int[] probeMsg = {rank, 7, 8};
        Request r = w.iSend(ints(probeMsg), 3, MPI.INT, next, 80);
        Status ps = w.probe(MPI.ANY_SOURCE, MPI.ANY_TAG);
        Out.p("probe " + status(ps, MPI.INT));
        int[] got = new int[ps.getCount(MPI.INT)];
        w.recv(got, got.length, MPI.INT, ps.getSource(), ps.getTag());
        r.waitFor();
        Out.p("probed message " + Out.str(got));
        r = w.iSend(ints(probeMsg), 2, MPI.INT, next, 81);
        Status ip;
        while ((ip = w.iProbe(prev, 81)) == null) {
            Thread.onSpinWait();
        }
        Out.p("iProbe " + status(ip, MPI.INT));
        w.recv(got, 2, MPI.INT, prev, 81);
        r.waitFor();
        w.barrier();
        Out.p("iProbe nothing " + w.iProbe(prev, 999));
        Out.p("probe proc null " + status(w.probe(MPI.PROC_NULL, 5), MPI.INT));

        Out.section("matched probe");
        r = w.iSend(ints(new int[] {rank, -rank}), 2, MPI.INT, next, 90);
        Message m = new Message();
        Out.p("new message null " + m.isNull() + " no proc " + m.isNoProc());
        Status ms = m.mProbe(prev, 90, w);
        Out.p("mProbe " + status(ms, MPI.INT) + " null " + m.isNull());
        int[] mr = new int[2];
        Status mrs = m.mRecv(mr, 2, MPI.INT);
        Out.p("mRecv " + Out.str(mr) + " " + status(mrs, MPI.INT) + " null after " + m.isNull());
        r.waitFor();
        r = w.iSend(ints(new int[] {rank * 3}), 1, MPI.INT, next, 91);
        Message m2 = new Message();
        Status ims;
        while ((ims = m2.imProbe(prev, 91, w)) == null) {
            Thread.onSpinWait();
        }
        IntBuffer mb = MPI.newIntBuffer(1);
        Request mreq = m2.imRecv(mb, 1, MPI.INT);
        Status imrs = mreq.waitStatus();
        Out.p("imProbe " + status(ims, MPI.INT) + " imRecv " + Out.str(mb) + " " + status(imrs, MPI.INT));
        r.waitFor();
        Message none2 = new Message();
        Status np = none2.mProbe(MPI.PROC_NULL, 0, w);
        Out.p("mProbe proc null no proc " + none2.isNoProc() + " " + status(np, MPI.INT));
        none2.mRecv(mr, 2, MPI.INT);
        Out.p("mRecv no proc leaves " + Out.str(mr));

        Out.section("send modes");
        byte[] attach = new byte[4096];
        MPI.attachBuffer(attach);
        int[] in = new int[3];
        if (rank % 2 == 0) {
            w.bSend(new int[] {rank, 1, 2}, 3, MPI.INT, next, 100);
            w.recv(in, 3, MPI.INT, prev, 100);
        } else {
            w.recv(in, 3, MPI.INT, prev, 100);
            w.bSend(new int[] {rank, 1, 2}, 3, MPI.INT, next, 100);
        }
        MPI.detachBuffer();
        Out.p("bSend " + Out.str(in));
        if (rank % 2 == 0) {
            w.sSend(new int[] {rank, 3, 4}, 3, MPI.INT, next, 101);
            w.recv(in, 3, MPI.INT, prev, 101);
        } else {
            w.recv(in, 3, MPI.INT, prev, 101);
            w.sSend(new int[] {rank, 3, 4}, 3, MPI.INT, next, 101);
        }
        Out.p("sSend " + Out.str(in));
        IntBuffer rin = MPI.newIntBuffer(3);
        Request pre = w.iRecv(rin, 3, MPI.INT, prev, 102);
        w.barrier();
        w.rSend(new int[] {rank, 5, 6}, 3, MPI.INT, next, 102);
        pre.waitFor();
        Out.p("rSend " + Out.str(rin));
        int[] rep = {rank, rank + 1};
        Status rs = w.sendRecvReplace(rep, 2, MPI.INT, next, 103, prev, 103);
        Out.p("sendRecvReplace " + Out.str(rep) + " " + status(rs, MPI.INT));
        w.barrier();
    }

    static IntBuffer ints(int... values) {
        IntBuffer b = MPI.newIntBuffer(values.length);
        b.put(values).clear();
        return b;
    }
}
