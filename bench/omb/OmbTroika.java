import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import org.troika.mpi.Communicator;
import org.troika.mpi.Mpi;
import org.troika.mpi.Op;
import org.troika.mpi.Request;

/** {@link OmbLoops} on troika-mpi's own API. Usage: OmbTroika latency|bw|allreduce|bcast buffer|arrays MIN:MAX. */
public final class OmbTroika extends OmbLoops {
    private final Communicator w;
    private final Request[] reqs = new Request[WINDOW];

    private OmbTroika(Communicator w, boolean buffers) {
        super(w.rank(), buffers);
        this.w = w;
    }

    public static void main(String[] args) {
        try (Mpi mpi = Mpi.init()) {
            main(new OmbTroika(Mpi.world(), args[1].equals("buffer")), args);
        }
    }

    // troika-mpi sends a buffer's remaining elements: the loops pass views limited to the message

    @Override
    void send(ByteBuffer b, int bytes, int dest, int tag) {
        w.send(b, dest, tag);
    }

    @Override
    void send(byte[] a, int dest, int tag) {
        w.send(a, dest, tag);
    }

    @Override
    void recv(ByteBuffer b, int bytes, int source, int tag) {
        w.recvIgnoreStatus(b, source, tag);
    }

    @Override
    void recv(byte[] a, int source, int tag) {
        w.recv(a, source, tag);
    }

    @Override
    void isend(int k, ByteBuffer b, int bytes, int dest, int tag) {
        reqs[k] = w.isend(b, dest, tag);
    }

    @Override
    void isend(int k, byte[] a, int dest, int tag) {
        reqs[k] = w.isend(a, dest, tag);
    }

    @Override
    void irecv(int k, ByteBuffer b, int bytes, int source, int tag) {
        reqs[k] = w.irecv(b, source, tag);
    }

    @Override
    void irecv(int k, byte[] a, int source, int tag) {
        reqs[k] = w.irecv(a, source, tag);
    }

    @Override
    void waitWindow() {
        Request.waitAll(reqs);
    }

    @Override
    void allreduce(FloatBuffer s, FloatBuffer r, int count) {
        w.allreduce(s, r, Op.SUM);
    }

    @Override
    void allreduce(float[] s, float[] r) {
        w.allreduce(s, r, Op.SUM);
    }

    @Override
    void bcast(ByteBuffer b, int bytes) {
        w.broadcast(b, 0);
    }

    @Override
    void bcast(byte[] a) {
        w.broadcast(a, 0);
    }

    @Override
    void barrier() {
        w.barrier();
    }

    @Override
    int size() {
        return w.size();
    }

    @Override
    double sum(double v) {
        double[] t = {v};
        w.allreduce(t, Op.SUM);
        return t[0];
    }
}
