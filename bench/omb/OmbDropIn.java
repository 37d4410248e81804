import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Request;

/**
 * {@link OmbLoops} on troika's {@code mpi} drop-in (Open MPI's Java API): the api column's very loops, so that the
 * two differ only in the binding's calls. Usage: OmbDropIn latency|bw|allreduce|bcast buffer|arrays MIN:MAX.
 */
public final class OmbDropIn extends OmbLoops {
    private final Intracomm w;
    private final Request[] reqs = new Request[WINDOW];

    private OmbDropIn(Intracomm w, boolean buffers) {
        super(w.getRank(), buffers);
        this.w = w;
    }

    public static void main(String[] args) {
        MPI.Init(args);
        main(new OmbDropIn(MPI.COMM_WORLD, args[1].equals("buffer")), args);
        MPI.Finalize();
    }

    @Override
    void send(ByteBuffer b, int bytes, int dest, int tag) {
        w.send(b, bytes, MPI.BYTE, dest, tag);
    }

    @Override
    void send(byte[] a, int dest, int tag) {
        w.send(a, a.length, MPI.BYTE, dest, tag);
    }

    @Override
    void recv(ByteBuffer b, int bytes, int source, int tag) {
        w.recv(b, bytes, MPI.BYTE, source, tag);
    }

    @Override
    void recv(byte[] a, int source, int tag) {
        w.recv(a, a.length, MPI.BYTE, source, tag);
    }

    @Override
    void isend(int k, ByteBuffer b, int bytes, int dest, int tag) {
        reqs[k] = w.iSend(b, bytes, MPI.BYTE, dest, tag);
    }

    @Override
    void isend(int k, byte[] a, int dest, int tag) {
        reqs[k] = w.iSend(a, a.length, MPI.BYTE, dest, tag);
    }

    @Override
    void irecv(int k, ByteBuffer b, int bytes, int source, int tag) {
        reqs[k] = w.iRecv(b, bytes, MPI.BYTE, source, tag);
    }

    @Override
    void irecv(int k, byte[] a, int source, int tag) {
        reqs[k] = w.iRecv(a, a.length, MPI.BYTE, source, tag);
    }

    @Override
    void waitWindow() {
        Request.waitAll(reqs);
    }

    @Override
    void allreduce(FloatBuffer s, FloatBuffer r, int count) {
        w.allReduce(s, r, count, MPI.FLOAT, MPI.SUM);
    }

    @Override
    void allreduce(float[] s, float[] r) {
        w.allReduce(s, r, s.length, MPI.FLOAT, MPI.SUM);
    }

    @Override
    void bcast(ByteBuffer b, int bytes) {
        w.bcast(b, bytes, MPI.BYTE, 0);
    }

    @Override
    void bcast(byte[] a) {
        w.bcast(a, a.length, MPI.BYTE, 0);
    }

    @Override
    void barrier() {
        w.barrier();
    }

    @Override
    int size() {
        return w.getSize();
    }

    @Override
    double sum(double v) {
        double[] t = {v};
        w.allReduce(t, 1, MPI.DOUBLE, MPI.SUM);
        return t[0];
    }
}
