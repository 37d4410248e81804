package mpi;

/** The int-and-int pair of MINLOC/MAXLOC reductions ({@code MPI.INT2}), laid out as C's {@code struct { int value; int index; }}. */
public final class Int2 extends Struct {
    private final int iOff;
    private final int iSize;
    private final int vOff;

    protected Int2(int iOff, int iSize) {
        vOff = addInt();
        setOffset(iOff);
        addInt();
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

        public int getValue() {
            return getInt(vOff);
        }

        public int getIndex() {
            return getInt(iOff);
        }

        public void putValue(int value) {
            putInt(vOff, value);
        }

        public void putIndex(int index) {
            putInt(iOff, index);
        }
    }
}
