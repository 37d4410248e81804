package mpi;

/** The double-and-int pair of MINLOC/MAXLOC reductions ({@code MPI.DOUBLE_INT}), laid out as C's {@code struct { double value; int index; }}. */
public final class DoubleInt extends Struct {
    private final int iOff;
    private final int iSize;
    private final int vOff;

    protected DoubleInt(int iOff, int iSize) {
        vOff = addDouble();
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

        public double getValue() {
            return getDouble(vOff);
        }

        public int getIndex() {
            return getInt(iOff);
        }

        public void putValue(double value) {
            putDouble(vOff, value);
        }

        public void putIndex(int index) {
            putInt(iOff, index);
        }
    }
}
