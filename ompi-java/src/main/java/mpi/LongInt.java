package mpi;

/** The long-and-int pair of MINLOC/MAXLOC reductions ({@code MPI.LONG_INT}), laid out as C's {@code struct { long value; int index; }}. */
public final class LongInt extends Struct {
    private final int lSize;
    private final int iOff;
    private final int iSize;
    private final int vOff;

    protected LongInt(int lSize, int iOff, int iSize) {
        vOff = addLong();
        setOffset(iOff);
        addInt();
        this.lSize = lSize;
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

        public long getValue() {
            return getLong(vOff);
        }

        public int getIndex() {
            return getInt(iOff);
        }

        public void putValue(long value) {
            putLong(vOff, value);
        }

        public void putIndex(int index) {
            putInt(iOff, index);
        }
    }
}
