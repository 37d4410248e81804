package mpi;

import java.nio.ByteBuffer;
import org.troika.mpi.spi.MpiAbi;

/**
 * The status of a receive or completed request: a copy of the library's {@code MPI_Status}, read through MPI's
 * own accessors. {@link #getSource()} shows ranks with the Java constants ({@link MPI#PROC_NULL},
 * {@link MPI#ANY_SOURCE}) on every MPI.
 */
public final class Status {
    /**
     * The raw {@code MPI_Status} ({@link MpiAbi#STATUS_BYTES} = 32 bytes) as four words, and the index: immutable and
     * shared by statuses that are equal (a receive in a loop returns the same words each time: {@link Scratch#words}),
     * so a status is a 16-byte object. A status per receive touches fresh heap until the first young collection, and
     * a first touch of a page costs ~20 µs here; the words of a 48-byte status cost small messages ~0.2 µs each
     * (docs/ompi-java.md). Setters replace the words, never change them.
     */
    static final class Words {
        static final Words ZERO = new Words(0, 0, 0, 0, 0);

        final long w0;
        final long w1;
        final long w2;
        final long w3;
        final int index;

        Words(long w0, long w1, long w2, long w3, int index) {
            this.w0 = w0;
            this.w1 = w1;
            this.w2 = w2;
            this.w3 = w3;
            this.index = index;
        }

        static Words read(ByteBuffer s, int at, int index) {
            return new Words(s.getLong(at), s.getLong(at + 8), s.getLong(at + 16), s.getLong(at + 24), index);
        }

        boolean sameAs(long v0, long v1, long v2, long v3) {
            return w0 == v0 && w1 == v1 && w2 == v2 && w3 == v3 && index == 0;
        }
    }

    private Words w;

    protected Status() {
        w = Words.ZERO;
    }

    Status(Words w) {
        this.w = w;
    }

    /** A copy of the native status at {@code at} of this thread's scratch {@code s}. */
    static Status of(Scratch s, int at) {
        return new Status(s.words(at));
    }

    /** The received byte count in a native status (Open MPI: a size_t at 16; MPICH: count_lo, count_hi << 1). */
    static long receivedBytes(ByteBuffer s, int at) {
        if (Native.openMpi) {
            return s.getLong(at + 16);
        }
        return (s.getInt(at) & 0xffffffffL) | ((long) (s.getInt(at + 4) >>> 1) << 32);
    }

    Status withIndex(int i) {
        w = new Words(w.w0, w.w1, w.w2, w.w3, i);
        return this;
    }

    /** An empty status ({@code MPI_Wait} on a null request): source ANY_SOURCE, tag ANY_TAG, count 0. */
    static Status empty(int index) {
        Scratch s = Scratch.get();
        int at = s.status();
        ByteBuffer b = s.buf();
        for (int i = 0; i < MpiAbi.STATUS_BYTES; i += 4) {
            b.putInt(at + i, 0);
        }
        b.putInt(at + sourceAt(), Native.rankToNative(MPI.ANY_SOURCE));
        b.putInt(at + tagAt(), MPI.ANY_TAG);
        return of(s, at).withIndex(index);
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
        long v = switch (byteOffset / 8) {
            case 0 -> w.w0;
            case 1 -> w.w1;
            case 2 -> w.w2;
            default -> w.w3;
        };
        return (int) (byteOffset % 8 == 0 ? v : v >>> 32);
    }

    /** This status in scratch memory, for MPI's accessors; returns its offset. */
    private int toScratch(Scratch s) {
        int at = s.status();
        ByteBuffer b = s.buf();
        b.putLong(at, w.w0);
        b.putLong(at + 8, w.w1);
        b.putLong(at + 16, w.w2);
        b.putLong(at + 24, w.w3);
        return at;
    }

    /** After a setter: new words (shared ones never change), the index kept. */
    private void fromScratch(Scratch s, int at) {
        w = Words.read(s.buf(), at, w.index);
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
        return w.index;
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
