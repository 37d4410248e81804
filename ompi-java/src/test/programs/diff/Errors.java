package diff;

import java.nio.IntBuffer;
import mpi.Comm;
import mpi.Intracomm;
import mpi.MPI;

/** Error handlers: with ERRORS_RETURN, what MPI reports becomes an MPIException of the same class everywhere. */
final class Errors {
    private Errors() {}

    interface Call {
        void run() throws Exception;
    }

    static void expect(String what, Call c) {
        try {
            c.run();
            Out.p(what + " returned");
        } catch (Exception e) {
            Out.p(what + " threw " + Out.err(e));
        }
    }

    static void run() throws Exception {
        Intracomm w = MPI.COMM_WORLD;
        int rank = w.getRank();
        int n = w.getSize();
        Out.section("error handlers");
        Intracomm c = w.dup();
        Out.p("has a handler " + (c.getErrhandler() != null));
        c.setErrhandler(MPI.ERRORS_RETURN);
        expect("send to rank size", () -> c.send(new int[1], 1, MPI.INT, n, 0));
        expect("send with negative tag", () -> c.send(new int[1], 1, MPI.INT, 0, -5));
        expect("bcast from a root outside", () -> c.bcast(new int[1], 1, MPI.INT, n + 3));
        expect("bitwise and on doubles", () -> c.allReduce(new double[1], new double[1], 1, MPI.DOUBLE, MPI.BAND));
        mpi.Request pending = c.iSend(PointToPoint.ints(1, 2, 3), 3, MPI.INT, rank, 9);
        expect("truncated receive", () -> c.recv(new int[1], 1, MPI.INT, rank, 9));
        pending.waitFor();
        expect("get attribute of an unknown key", () -> c.getAttr(123_456));
        int key = Comm.createKeyval();
        Comm.freeKeyval(key);
        expect("set attribute of a freed key", () -> c.setAttr(key, "x"));
        expect("call the handler", () -> c.callErrhandler(MPI.ERR_OTHER));
        expect("non-blocking send from a heap buffer", () -> c.iSend(IntBuffer.wrap(new int[1]), 1, MPI.INT, 0, 0));
        expect("non-blocking receive into a heap buffer", () -> c.iRecv(IntBuffer.allocate(1), 1, MPI.INT, 0, 0));
        c.barrier();
        Out.p("still running after errors: sum " + sumOf(c, rank));
        c.setErrhandler(MPI.ERRORS_ABORT);
        c.setErrhandler(MPI.ERRORS_ARE_FATAL);
        c.free();
        w.barrier();
    }

    static int sumOf(Intracomm c, int rank) throws Exception {
        int[] s = new int[1];
        c.allReduce(new int[] {rank}, s, 1, MPI.INT, MPI.SUM);
        return s[0];
    }
}
