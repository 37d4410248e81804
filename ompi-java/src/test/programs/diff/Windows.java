package diff;

import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import mpi.Group;
import mpi.Info;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Request;
import mpi.Win;

/** One-sided communication: the three window constructors, every synchronisation and every access call. */
final class Windows {
    private Windows() {}

    static void run() throws Exception {
        Intracomm w = MPI.COMM_WORLD;
        int rank = w.getRank();
        int n = w.getSize();
        int next = (rank + 1) % n;
        int prev = (rank + n - 1) % n;

        Out.section("windows: fence");
        IntBuffer base = MPI.newIntBuffer(8);
        for (int i = 0; i < 8; i++) {
            base.put(i, rank * 100 + i);
        }
        Win win = new Win(base, 8, 1, MPI.INFO_NULL, w);
        Out.p("size " + win.getAttr(MPI.WIN_SIZE) + " disp unit " + win.getAttr(MPI.WIN_DISP_UNIT) + " base set "
                + ((Long) win.getAttr(MPI.WIN_BASE) != 0) + " group " + win.getGroup().getSize());
        win.setName("ring window");
        Out.p("name " + win.getName());
        win.fence(MPI.MODE_NOPRECEDE);
        IntBuffer got = MPI.newIntBuffer(2);
        win.get(got, 2, MPI.INT, next, 3, 2, MPI.INT);
        win.fence(0);
        win.put(PointToPoint.ints(-rank, -rank - 1), 2, MPI.INT, next, 0, 2, MPI.INT);
        win.fence(0);
        win.accumulate(PointToPoint.ints(1000, 1000), 2, MPI.INT, next, 6, 2, MPI.INT, MPI.SUM);
        win.fence(MPI.MODE_NOSUCCEED);
        Out.p("get " + Out.str(got) + " window " + Out.str(base));

        Out.section("windows: post start complete wait");
        Group all = w.getGroup();
        Group neighbours = all.incl(n == 1 ? new int[] {0} : new int[] {Math.min(prev, next), Math.max(prev, next)});
        if (prev == next) {
            neighbours = all.incl(new int[] {prev});
        }
        win.post(neighbours, 0);
        win.start(neighbours, 0);
        win.put(PointToPoint.ints(rank * 7), 1, MPI.INT, next, 2, 1, MPI.INT);
        win.complete();
        win.waitFor();
        Out.p("after PSCW " + base.get(2));
        win.post(neighbours, MPI.MODE_NOPUT);
        win.start(neighbours, 0);
        win.get(got, 1, MPI.INT, prev, 2, 1, MPI.INT);
        win.complete();
        while (!win.test()) {
            Thread.onSpinWait();
        }
        Out.p("get with PSCW " + got.get(0));

        Out.section("windows: passive target");
        w.barrier();
        win.lock(MPI.LOCK_EXCLUSIVE, next, 0);
        win.accumulate(PointToPoint.ints(1), 1, MPI.INT, next, 7, 1, MPI.INT, MPI.SUM);
        win.unlock(next);
        w.barrier();
        win.lock(MPI.LOCK_SHARED, rank, MPI.MODE_NOCHECK);
        win.sync();
        int seven = base.get(7);
        win.unlock(rank);
        Out.p("after locked accumulates " + seven);
        w.barrier();
        win.lockAll(0);
        IntBuffer fetched = MPI.newIntBuffer(1);
        win.fetchAndOp(PointToPoint.ints(5), fetched, MPI.INT, next, 5, MPI.SUM);
        win.flush(next);
        IntBuffer swapped = MPI.newIntBuffer(1);
        win.compareAndSwap(PointToPoint.ints(-1), PointToPoint.ints(prev * 100 + 4), swapped, MPI.INT, prev, 4);
        win.flushAll();
        IntBuffer r1 = MPI.newIntBuffer(1);
        Request rg = win.rGet(r1, 1, MPI.INT, next, 1, 1, MPI.INT);
        rg.waitFor();
        win.flushLocal(next);
        Request rp = win.rPut(PointToPoint.ints(rank + 50), 1, MPI.INT, next, 1, 1, MPI.INT);
        rp.waitFor();
        win.flushLocalAll();
        win.flushAll();
        Request ra = win.rAccumulate(PointToPoint.ints(2), 1, MPI.INT, next, 1, 1, MPI.INT, MPI.PROD);
        ra.waitFor();
        win.flushAll();
        IntBuffer ga = MPI.newIntBuffer(1);
        win.getAccumulate(PointToPoint.ints(3), 1, MPI.INT, ga, 1, MPI.INT, next, 1, 1, MPI.INT, MPI.SUM);
        win.flushAll();
        IntBuffer rga = MPI.newIntBuffer(1);
        Request rgar = win.rGetAccumulate(PointToPoint.ints(0), 1, MPI.INT, rga, 1, MPI.INT, next, 1, 1, MPI.INT,
                MPI.NO_OP);
        rgar.waitFor();
        win.unlockAll();
        w.barrier();
        Out.p("fetchAndOp " + fetched.get(0) + " compareAndSwap " + swapped.get(0) + " rGet " + r1.get(0)
                + " getAccumulate " + ga.get(0) + " rGetAccumulate " + rga.get(0));
        Out.p("window after all " + Out.str(base));
        win.setErrhandler(MPI.ERRORS_RETURN);
        Out.p("handler " + (win.getErrhandler() != null));
        int key = Win.createKeyval();
        win.setAttr(key, "w");
        Out.p("attr " + win.getAttr(key));
        win.deleteAttr(key);
        Win.freeKeyval(key);
        Info info = win.getInfo();
        info.free();
        win.free();

        Out.section("windows: allocate and dynamic");
        LongBuffer where = MPI.newLongBuffer(1);
        Win alloc = new Win(4, 1, MPI.INFO_NULL, w, where, Win.FLAVOR_PRIVATE);
        Out.p("allocated address written " + (where.get(0) != 0) + " size " + alloc.getAttr(MPI.WIN_SIZE)
                + " unit " + alloc.getAttr(MPI.WIN_DISP_UNIT));
        alloc.fence(0);
        alloc.put(MPI.newLongBuffer(1).put(0, rank * 11L), 1, MPI.LONG, next, 2, 1, MPI.LONG);
        alloc.fence(0);
        LongBuffer back = MPI.newLongBuffer(1);
        alloc.get(back, 1, MPI.LONG, rank, 2, 1, MPI.LONG);
        alloc.fence(0);
        Out.p("allocated window round trip " + back.get(0));
        alloc.free();
        Intracomm node = w.splitType(mpi.Comm.TYPE_SHARED, 0, MPI.INFO_NULL);
        ByteBuffer shWhere = MPI.newByteBuffer(8);
        Win shared = new Win(16, 1, MPI.INFO_NULL, node, shWhere, Win.FLAVOR_SHARED);
        shared.fence(0);
        shared.put(PointToPoint.ints(rank), 1, MPI.INT, 0, 4 * node.getRank(), 1, MPI.INT);
        shared.fence(0);
        IntBuffer fromShared = MPI.newIntBuffer(1);
        shared.get(fromShared, 1, MPI.INT, 0, 4 * node.getRank(), 1, MPI.INT);
        shared.fence(0);
        Out.p("shared window " + fromShared.get(0));
        shared.free();
        node.free();
        Win dyn = new Win(MPI.INFO_NULL, w);
        IntBuffer mem = MPI.newIntBuffer(4);
        dyn.attach(mem, 4);
        dyn.detach(mem);
        dyn.free();
        Out.p("dynamic window attached and detached");
        w.barrier();
    }
}
