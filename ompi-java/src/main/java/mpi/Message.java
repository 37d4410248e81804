package mpi;

import java.nio.Buffer;
import org.troika.mpi.spi.MpiAbi;

/** A matched message ({@code MPI_Mprobe}/{@code MPI_Improbe}), received with {@link #mRecv} or {@link #imRecv}. */
public final class Message {
    protected long handle;

    /** The null message. */
    public Message() {
        handle = Native.mpi == null ? 0 : Native.predefined("MPI_MESSAGE_NULL");
    }

    public boolean isNull() {
        return handle == Native.predefined("MPI_MESSAGE_NULL");
    }

    /** The message of a probe that matched {@link MPI#PROC_NULL}. */
    public boolean isNoProc() {
        return handle == Native.predefined("MPI_MESSAGE_NO_PROC");
    }

    /** {@code MPI_Mprobe}: waits for a matching message and takes it out of the queue. */
    public Status mProbe(int source, int tag, Comm comm) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int msg = s.handleOut();
        int st = s.status();
        F.MPROBE.call(Native.rankToNative(source), tag, comm.handle, s.at(msg), s.at(st));
        handle = s.getHandle(msg);
        return Status.of(s, st);
    }

    /** {@code MPI_Improbe}: the status when a message matched (then taken), else null. */
    public Status imProbe(int source, int tag, Comm comm) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int flag = s.intOut();
        int msg = s.handleOut();
        int st = s.status();
        F.IMPROBE.call(Native.rankToNative(source), tag, comm.handle, s.at(flag), s.at(msg), s.at(st));
        if (s.getInt(flag) == 0) {
            return null;
        }
        handle = s.getHandle(msg);
        return Status.of(s, st);
    }

    /** {@code MPI_Mrecv}: receives the matched message. */
    public Status mRecv(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        Staging g = Staging.get();
        long b = g.arg(buf, count, type, Staging.INOUT);
        Scratch s = Scratch.get();
        int msg = s.handles(new long[] {handle});
        int st = s.status();
        try {
            F.MRECV.call(b, count, type.handle, s.at(msg), s.at(st));
        } catch (MPIException e) {
            g.abandon();
            throw e;
        }
        g.finish();
        handle = s.getHandle(msg);
        return Status.of(s, st);
    }

    /** {@code MPI_Imrecv} into a direct buffer. */
    public Request imRecv(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(buf);
        long b = Staging.get().arg(buf, count, type, Staging.OUT);
        Scratch s = Scratch.get();
        int msg = s.handles(new long[] {handle});
        int req = s.handleOut();
        F.IMRECV.call(b, count, type.handle, s.at(msg), s.at(req));
        handle = s.getHandle(msg);
        Request r = new Request(s.getHandle(req));
        r.addRecvBufRef(buf);
        return r;
    }

    private static final class F {
        private F() {}

        static final Native.Fn MPROBE = Native.fn("MPI_Mprobe", "iihaa");
        static final Native.Fn IMPROBE = Native.fn("MPI_Improbe", "iihaaa");
        static final Native.Fn MRECV = Native.fn("MPI_Mrecv", "aihaa");
        static final Native.Fn IMRECV = Native.fn("MPI_Imrecv", "aihaa");
    }
}
