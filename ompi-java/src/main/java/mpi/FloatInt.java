package mpi;

/** The float-and-int pair of MINLOC/MAXLOC reductions ({@code MPI.FLOAT_INT}), laid out as C's {@code struct { float value; int index; }}. */
public final class FloatInt extends Struct {
    private final int iOff;
    private final int iSize;
    private final int vOff;

    protected FloatInt(int iOff, int iSize) {
        vOff = addFloat();
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

        public float getValue() {
            return getFloat(vOff);
        }

        public int getIndex() {
            return getInt(iOff);
        }

        public void putValue(float value) {
            putFloat(vOff, value);
        }

        public void putIndex(int index) {
            putInt(iOff, index);
        }
    }
}
