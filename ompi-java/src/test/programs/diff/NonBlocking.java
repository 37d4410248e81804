package diff;

import java.nio.IntBuffer;
import java.util.TreeSet;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Prequest;
import mpi.Request;
import mpi.Status;

/** Non-blocking point-to-point on direct buffers and every wait/test form; persistent requests; cancel. */
final class NonBlocking {
    private NonBlocking() {}

    static IntBuffer ints(int... v) {
        return PointToPoint.ints(v);
    }

    static void run() throws Exception {
        Intracomm w = MPI.COMM_WORLD;
        int rank = w.getRank();
        int size = w.getSize();
        int next = (rank + 1) % size;
        int prev = (rank + size - 1) % size;

        Out.section("iSend iRecv waitFor waitStatus");
        IntBuffer in = MPI.newIntBuffer(4);
        Request r = w.iRecv(in, 4, MPI.INT, prev, 1);
        Request s = w.iSend(ints(rank, rank + 1, rank + 2), 3, MPI.INT, next, 1);
        Status st = r.waitStatus();
        s.waitFor();
        Out.p("received " + Out.str(in) + " " + PointToPoint.status(st, MPI.INT) + " null after " + r.isNull() + " "
                + s.isNull());
        Out.p("wait on null request " + PointToPoint.status(r.waitStatus(), MPI.INT));

        Out.section("test testStatus getStatus");
        IntBuffer in2 = MPI.newIntBuffer(2);
        r = w.iRecv(in2, 2, MPI.INT, prev, 2);
        s = w.iSend(ints(rank * 7, 1), 2, MPI.INT, next, 2);
        Status gs;
        while ((gs = r.getStatus()) == null) {
            Thread.onSpinWait();
        }
        Out.p("getStatus " + PointToPoint.status(gs, MPI.INT) + " request still there " + !r.isNull());
        Status ts;
        while ((ts = r.testStatus()) == null) {
            Thread.onSpinWait();
        }
        while (!s.test()) {
            Thread.onSpinWait();
        }
        Out.p("testStatus " + PointToPoint.status(ts, MPI.INT) + " " + Out.str(in2) + " nulls " + r.isNull() + " "
                + s.isNull());
        Out.p("test of null request " + r.test());

        Out.section("waitAll waitAllStatus testAll testAllStatus");
        IntBuffer[] bufs = new IntBuffer[4];
        Request[] reqs = new Request[8];
        for (int i = 0; i < 4; i++) {
            bufs[i] = MPI.newIntBuffer(2);
            reqs[i] = w.iRecv(bufs[i], 2, MPI.INT, prev, 10 + i);
        }
        for (int i = 0; i < 4; i++) {
            reqs[4 + i] = w.iSend(ints(rank, i), 2, MPI.INT, next, 10 + i);
        }
        Status[] all = Request.waitAllStatus(reqs);
        for (int i = 0; i < 4; i++) {
            Out.p("waitAllStatus " + i + " " + Out.str(bufs[i]) + " " + PointToPoint.status(all[i], MPI.INT));
        }
        Out.p("all null " + allNull(reqs) + " statuses " + all.length);
        for (int i = 0; i < 4; i++) {
            reqs[i] = w.iRecv(bufs[i], 2, MPI.INT, prev, 20 + i);
            reqs[4 + i] = w.iSend(ints(rank, -i), 2, MPI.INT, next, 20 + i);
        }
        Request.waitAll(reqs);
        Out.p("waitAll " + Out.str(bufs[0]) + Out.str(bufs[3]) + " all null " + allNull(reqs));
        for (int i = 0; i < 4; i++) {
            reqs[i] = w.iRecv(bufs[i], 2, MPI.INT, prev, 30 + i);
            reqs[4 + i] = w.iSend(ints(rank, i * i), 2, MPI.INT, next, 30 + i);
        }
        while (!Request.testAll(reqs)) {
            Thread.onSpinWait();
        }
        Out.p("testAll " + Out.str(bufs[2]) + " all null " + allNull(reqs));
        for (int i = 0; i < 4; i++) {
            reqs[i] = w.iRecv(bufs[i], 2, MPI.INT, prev, 40 + i);
            reqs[4 + i] = w.iSend(ints(rank, 9), 2, MPI.INT, next, 40 + i);
        }
        Status[] tas;
        while ((tas = Request.testAllStatus(reqs)) == null) {
            Thread.onSpinWait();
        }
        Out.p("testAllStatus " + tas.length + " " + PointToPoint.status(tas[1], MPI.INT) + " " + Out.str(bufs[1]));

        Out.section("waitAny testAny waitSome testSome");
        IntBuffer never = MPI.newIntBuffer(1);
        Request[] any = {w.iRecv(never, 1, MPI.INT, prev, 999), w.iRecv(bufs[0], 2, MPI.INT, prev, 50)};
        Request sa = w.iSend(ints(rank, 50), 2, MPI.INT, next, 50);
        int idx = Request.waitAny(any);
        Out.p("waitAny " + idx + " " + Out.str(bufs[0]) + " nulls " + any[0].isNull() + any[1].isNull());
        sa.waitFor();
        any[1] = w.iRecv(bufs[1], 2, MPI.INT, prev, 51);
        sa = w.iSend(ints(rank, 51), 2, MPI.INT, next, 51);
        Status was = Request.waitAnyStatus(any);
        Out.p("waitAnyStatus index " + was.getIndex() + " " + PointToPoint.status(was, MPI.INT));
        sa.waitFor();
        any[1] = w.iRecv(bufs[2], 2, MPI.INT, prev, 52);
        sa = w.iSend(ints(rank, 52), 2, MPI.INT, next, 52);
        int ti;
        while ((ti = Request.testAny(any)) == MPI.UNDEFINED) {
            Thread.onSpinWait();
        }
        Out.p("testAny " + ti + " " + Out.str(bufs[2]));
        sa.waitFor();
        any[1] = w.iRecv(bufs[3], 2, MPI.INT, prev, 53);
        sa = w.iSend(ints(rank, 53), 2, MPI.INT, next, 53);
        Status tas1;
        while ((tas1 = Request.testAnyStatus(any)) == null) {
            Thread.onSpinWait();
        }
        Out.p("testAnyStatus index " + tas1.getIndex() + " " + PointToPoint.status(tas1, MPI.INT));
        sa.waitFor();
        any[0].cancel();
        Status cs = any[0].waitStatus();
        Out.p("cancelled " + cs.isCancelled() + " null " + any[0].isNull());
        Request[] none = {MPI.REQUEST_NULL, any[0]};
        Out.p("waitAny on nulls " + Request.waitAny(none) + " testAny on nulls " + Request.testAny(none));
        Status wan = Request.waitAnyStatus(none);
        Out.p("waitAnyStatus on nulls index " + wan.getIndex() + " source " + wan.getSource() + " tag "
                + wan.getTag());

        Request[] some = new Request[6];
        IntBuffer[] sb = new IntBuffer[3];
        for (int i = 0; i < 3; i++) {
            sb[i] = MPI.newIntBuffer(1);
            some[i] = w.iRecv(sb[i], 1, MPI.INT, prev, 60 + i);
            some[3 + i] = w.iSend(ints(rank * 10 + i), 1, MPI.INT, next, 60 + i);
        }
        TreeSet<Integer> done = new TreeSet<>();
        while (done.size() < 6) {
            int[] got = Request.waitSome(some);
            if (got == null) {
                break;
            }
            for (int g : got) {
                done.add(g);
            }
        }
        Out.p("waitSome completed " + done + " " + Out.str(sb[0]) + Out.str(sb[2]) + " then "
                + java.util.Arrays.toString(Request.waitSome(some)));
        for (int i = 0; i < 3; i++) {
            some[i] = w.iRecv(sb[i], 1, MPI.INT, prev, 70 + i);
            some[3 + i] = w.iSend(ints(rank * 20 + i), 1, MPI.INT, next, 70 + i);
        }
        done.clear();
        while (done.size() < 6) {
            Status[] got = Request.testSomeStatus(some);
            if (got == null) {
                break;
            }
            for (Status g : got) {
                done.add(g.getIndex());
                if (g.getIndex() < 3) {
                    Out.p("testSomeStatus receive " + g.getIndex() + " " + PointToPoint.status(g, MPI.INT));
                }
            }
        }
        Out.p("testSomeStatus completed " + done + " " + Out.str(sb[1]));
        for (int i = 0; i < 3; i++) {
            some[i] = w.iRecv(sb[i], 1, MPI.INT, prev, 80 + i);
            some[3 + i] = w.iSend(ints(rank * 30 + i), 1, MPI.INT, next, 80 + i);
        }
        done.clear();
        while (done.size() < 6) {
            int[] got = Request.testSome(some);
            if (got == null) {
                break;
            }
            for (int g : got) {
                done.add(g);
            }
        }
        Out.p("testSome completed " + done + " " + Out.str(sb[2]));
        for (int i = 0; i < 3; i++) {
            some[i] = w.iRecv(sb[i], 1, MPI.INT, prev, 90 + i);
            some[3 + i] = w.iSend(ints(rank * 40 + i), 1, MPI.INT, next, 90 + i);
        }
        done.clear();
        while (done.size() < 6) {
            Status[] got = Request.waitSomeStatus(some);
            if (got == null) {
                break;
            }
            for (Status g : got) {
                done.add(g.getIndex());
            }
        }
        Out.p("waitSomeStatus completed " + done + " " + Out.str(sb[0]));

        Out.section("synchronous, buffered and ready starts");
        MPI.attachBuffer(new byte[4096]);
        IntBuffer a = MPI.newIntBuffer(2);
        IntBuffer b = MPI.newIntBuffer(2);
        IntBuffer c = MPI.newIntBuffer(2);
        Request[] modes = {w.iRecv(a, 2, MPI.INT, prev, 201), w.iRecv(b, 2, MPI.INT, prev, 202),
            w.iRecv(c, 2, MPI.INT, prev, 203), null, null, null};
        w.barrier();
        modes[3] = w.isSend(ints(rank, 201), 2, MPI.INT, next, 201);
        modes[4] = w.ibSend(ints(rank, 202), 2, MPI.INT, next, 202);
        modes[5] = w.irSend(ints(rank, 203), 2, MPI.INT, next, 203);
        Request.waitAll(modes);
        MPI.detachBuffer();
        Out.p("isSend " + Out.str(a) + " ibSend " + Out.str(b) + " irSend " + Out.str(c));

        Out.section("persistent requests");
        IntBuffer pin = MPI.newIntBuffer(2);
        IntBuffer pout = MPI.newIntBuffer(2);
        Prequest precv = w.recvInit(pin, 2, MPI.INT, prev, 300);
        Prequest psend = w.sendInit(pout, 2, MPI.INT, next, 300);
        for (int round = 0; round < 3; round++) {
            pout.put(0, rank).put(1, round);
            precv.start();
            psend.start();
            Status ps = precv.waitStatus();
            psend.waitFor();
            Out.p("round " + round + " " + Out.str(pin) + " " + PointToPoint.status(ps, MPI.INT) + " inactive not null "
                    + !precv.isNull());
        }
        pout.put(0, -rank).put(1, 9);
        Prequest.startAll(new Prequest[] {precv, psend});
        Request.waitAll(new Request[] {precv, psend});
        Out.p("startAll " + Out.str(pin));
        Prequest ps2 = w.sSendInit(pout, 2, MPI.INT, next, 301);
        Prequest pb = w.bSendInit(pout, 2, MPI.INT, next, 302);
        Prequest pr = w.rSendInit(pout, 2, MPI.INT, next, 303);
        MPI.attachBuffer(new byte[4096]);
        IntBuffer x = MPI.newIntBuffer(2);
        IntBuffer y = MPI.newIntBuffer(2);
        IntBuffer z = MPI.newIntBuffer(2);
        Request[] rr = {w.iRecv(x, 2, MPI.INT, prev, 301), w.iRecv(y, 2, MPI.INT, prev, 302),
            w.iRecv(z, 2, MPI.INT, prev, 303)};
        w.barrier();
        Prequest.startAll(new Prequest[] {ps2, pb, pr});
        Request.waitAll(rr);
        Request.waitAll(new Request[] {ps2, pb, pr});
        MPI.detachBuffer();
        Out.p("persistent modes " + Out.str(x) + Out.str(y) + Out.str(z));
        for (Prequest p : new Prequest[] {precv, psend, ps2, pb, pr}) {
            p.free();
        }
        Out.p("freed " + precv.isNull() + " " + pr.isNull());

        Out.section("cancel and free");
        IntBuffer lost = MPI.newIntBuffer(1);
        Request cr = w.iRecv(lost, 1, MPI.INT, prev, 400);
        cr.cancel();
        Status cst = cr.waitStatus();
        Out.p("cancelled receive " + cst.isCancelled());
        Request fr = w.iSend(ints(rank), 1, MPI.INT, next, 401);
        fr.free();
        Out.p("freed send request null " + fr.isNull());
        w.recv(new int[1], 1, MPI.INT, prev, 401);
        w.barrier();
    }

    static boolean allNull(Request[] rs) {
        for (Request r : rs) {
            if (!r.isNull()) {
                return false;
            }
        }
        return true;
    }
}
