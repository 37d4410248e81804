package mpi;

import java.nio.ByteBuffer;
import org.troika.mpi.spi.MpiAbi;

/**
 * The status of a receive or completed request: a copy of the library's {@code MPI_Status}, read through MPI's
 * own accessors. {@link #getSource()} shows ranks with the Java constants ({@link MPI#PROC_NULL},
 * {@link MPI#ANY_SOURCE}) on every MPI.
 */
public final class Status {
    /** The raw {@code MPI_Status} ({@link MpiAbi#STATUS_BYTES} = 32 bytes) as four words: no array per status. */
    private long w0;
    private long w1;
    private long w2;
    private long w3;
    private int index;

    protected Status() {}

    /** A status of the four words of a native one. */
    Status(long w0, long w1, long w2, long w3) {
        this.w0 = w0;
        this.w1 = w1;
        this.w2 = w2;
        this.w3 = w3;
    }

    /** A copy of the native status at {@code at} of {@code s}. */
    static Status of(ByteBuffer s, int at) {
        Status st = new Status();
        st.load(s, at);
        return st;
    }

    private void load(ByteBuffer s, int at) {
        w0 = s.getLong(at);
        w1 = s.getLong(at + 8);
        w2 = s.getLong(at + 16);
        w3 = s.getLong(at + 24);
    }

    /** The received byte count in a native status (Open MPI: a size_t at 16; MPICH: count_lo, count_hi << 1). */
    static long receivedBytes(ByteBuffer s, int at) {
        if (Native.openMpi) {
            return s.getLong(at + 16);
        }
        return (s.getInt(at) & 0xffffffffL) | ((long) (s.getInt(at + 4) >>> 1) << 32);
    }

    Status withIndex(int i) {
        index = i;
        return this;
    }

    /** An empty status ({@code MPI_Wait} on a null request): source ANY_SOURCE, tag ANY_TAG, count 0. */
    static Status empty(int index) {
        Status st = new Status();
        Scratch s = Scratch.get();
        int at = s.status();
        ByteBuffer b = s.buf();
        for (int i = 0; i < MpiAbi.STATUS_BYTES; i += 4) {
            b.putInt(at + i, 0);
        }
        b.putInt(at + sourceAt(), Native.rankToNative(MPI.ANY_SOURCE));
        b.putInt(at + tagAt(), MPI.ANY_TAG);
        Status out = of(b, at);
        out.index = index;
        return out;
    }

    private static int sourceAt() {
        return Native.openMpi ? MpiAbi.OpenMpi.STATUS_SOURCE : MpiAbi.Mpich.STATUS_SOURCE;
    }

    private static int tagAt() {
        return Native.openMpi ? MpiAbi.OpenMpi.STATUS_TAG : MpiAbi.Mpich.STATUS_TAG;
    }

    private static int errorAt() {
        return Native.openMpi ? MpiAbi.OpenMpi.STATUS_ERROR : MpiAbi.Mpich.STATUS_ERROR;
    }

    private int word(int byteOffset) {
        long w = switch (byteOffset / 8) {
            case 0 -> w0;
            case 1 -> w1;
            case 2 -> w2;
            default -> w3;
        };
        return (int) (byteOffset % 8 == 0 ? w : w >>> 32);
    }

    /** This status in scratch memory, for MPI's accessors; returns its offset. */
    private int toScratch(Scratch s) {
        int at = s.status();
        ByteBuffer b = s.buf();
        b.putLong(at, w0);
        b.putLong(at + 8, w1);
        b.putLong(at + 16, w2);
        b.putLong(at + 24, w3);
        return at;
    }

    private void fromScratch(Scratch s, int at) {
        load(s.buf(), at);
    }

    /** {@code MPI_Get_count}: received elements of {@code datatype}, or {@link MPI#UNDEFINED}. */
    public int getCount(Datatype datatype) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int st = toScratch(s);
        int out = s.intOut();
        F.GET_COUNT.call(s.at(st), datatype.handle, s.at(out));
        return s.getInt(out);
    }

    /** {@code MPI_Test_cancelled}. */
    public boolean isCancelled() throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int st = toScratch(s);
        int out = s.intOut();
        F.TEST_CANCELLED.call(s.at(st), s.at(out));
        return s.getInt(out) != 0;
    }

    /** {@code MPI_Get_elements}: received basic elements. */
    public int getElements(Datatype datatype) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int st = toScratch(s);
        int out = s.intOut();
        F.GET_ELEMENTS.call(s.at(st), datatype.handle, s.at(out));
        return s.getInt(out);
    }

    /** {@code MPI_Get_elements_x}. */
    public Count getElementsX(Datatype datatype) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int st = toScratch(s);
        int out = s.handleOut();
        F.GET_ELEMENTS_X.call(s.at(st), datatype.handle, s.at(out));
        return new Count(s.getLong(out));
    }

    /** {@code MPI_Status_set_elements}. */
    public void setElements(Datatype datatype, int count) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int st = toScratch(s);
        F.SET_ELEMENTS.call(s.at(st), datatype.handle, count);
        fromScratch(s, st);
    }

    /** {@code MPI_Status_set_elements_x}. */
    public void setElementsX(Datatype datatype, Count count) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int st = toScratch(s);
        F.SET_ELEMENTS_X.call(s.at(st), datatype.handle, count.getCount());
        fromScratch(s, st);
    }

    /** {@code MPI_Status_set_cancelled}. */
    public void setCancelled(boolean flag) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int st = toScratch(s);
        F.SET_CANCELLED.call(s.at(st), flag ? 1 : 0);
        fromScratch(s, st);
    }

    public int getSource() {
        return Native.rankToJava(word(sourceAt()));
    }

    public int getTag() {
        return word(tagAt());
    }

    /** The {@code MPI_ERROR} field (set by calls completing several requests), as an Open MPI error class. */
    public int getError() {
        return Native.errorClassToJava(word(errorAt()));
    }

    /** Which request of {@link Request#waitAnyStatus} and friends completed. */
    public int getIndex() {
        return index;
    }

    private static final class F {
        private F() {}

        static final Native.Fn GET_COUNT = Native.fn("MPI_Get_count", "aha");
        static final Native.Fn TEST_CANCELLED = Native.fn("MPI_Test_cancelled", "aa");
        static final Native.Fn GET_ELEMENTS = Native.fn("MPI_Get_elements", "aha");
        static final Native.Fn GET_ELEMENTS_X = Native.fn("MPI_Get_elements_x", "aha");
        static final Native.Fn SET_ELEMENTS = Native.fn("MPI_Status_set_elements", "ahi");
        static final Native.Fn SET_ELEMENTS_X = Native.fn("MPI_Status_set_elements_x", "aha");
        static final Native.Fn SET_CANCELLED = Native.fn("MPI_Status_set_cancelled", "ai");
    }
}
