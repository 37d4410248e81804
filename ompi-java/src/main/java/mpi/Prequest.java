package mpi;

/** A persistent request ({@code sendInit}, {@code recvInit}, ...): started, completed, started again. */
public final class Prequest extends Request {
    protected Prequest(long handle) {
        super(handle);
    }

    @Override
    boolean isPersistent() {
        return true;
    }

    /** {@code MPI_Start}. */
    public void start() throws MPIException {
        MPI.check();
        handle = F.START.inOut(handle);
    }

    /** {@code MPI_Startall}. */
    public static void startAll(Prequest[] requests) throws MPIException {
        MPI.check();
        long[] h = getHandles(requests);
        Scratch s = Scratch.get();
        int at = s.handles(h);
        F.STARTALL.call(requests.length, s.at(at));
        for (int i = 0; i < h.length; i++) {
            h[i] = Native.readHandle(s.buf(), at + Native.handleBytes * i);
        }
        setHandles(requests, h);
    }

    private static final class F {
        private F() {}

        static final Native.Fn START = Native.fn("MPI_Start", "a");
        static final Native.Fn STARTALL = Native.fn("MPI_Startall", "ia");
    }
}
