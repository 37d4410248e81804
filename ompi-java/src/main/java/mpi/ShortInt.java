package mpi;

/** The short-and-int pair of MINLOC/MAXLOC reductions ({@code MPI.SHORT_INT}), laid out as C's {@code struct { short value; int index; }}. */
public final class ShortInt extends Struct {
    private final int sSize;
    private final int iOff;
    private final int iSize;
    private final int vOff;

    protected ShortInt(int sSize, int iOff, int iSize) {
        vOff = addShort();
        setOffset(iOff);
        addInt();
        this.sSize = sSize;
        this.iOff = iOff;
        this.iSize = iSize;
    }

    @Override
    protected Data newData() {
        return new Data();
    }

    /** One pair in a buffer. */
    public final class Data extends Struct.Data {
        public Data() {}

        public short getValue() {
            return getShort(vOff);
        }

        public int getIndex() {
            return getInt(iOff);
        }

        public void putValue(short value) {
            putShort(vOff, value);
        }

        public void putIndex(int index) {
            putInt(iOff, index);
        }
    }
}
