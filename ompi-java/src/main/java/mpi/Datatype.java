package mpi;

/**
 * An MPI datatype. The predefined ones are fields of {@link MPI}; derived ones come from the {@code create...}
 * methods. As in Open MPI's binding, sizes, bounds and extents are counted in elements of the type's base type
 * ({@code MPI.INT.getSize()} is 1), while byte displacements ({@link #createHVector}, {@link #createHIndexed},
 * {@link #createStruct}, {@link #createResized}) are in bytes; a struct's base is the byte.
 */
public final class Datatype implements Freeable, Cloneable {
    protected long handle;
    protected int baseType;
    protected int baseSize;
    private int lb;
    private int extent;
    private int trueLb;
    private int trueExtent;

    protected static final int NULL = 0;
    protected static final int BYTE = 1;
    protected static final int CHAR = 2;
    protected static final int SHORT = 3;
    protected static final int BOOLEAN = 4;
    protected static final int INT = 5;
    protected static final int LONG = 6;
    protected static final int FLOAT = 7;
    protected static final int DOUBLE = 8;
    protected static final int PACKED = 9;
    protected static final int INT2 = 10;
    protected static final int SHORT_INT = 11;
    protected static final int LONG_INT = 12;
    protected static final int FLOAT_INT = 13;
    protected static final int DOUBLE_INT = 14;
    protected static final int FLOAT_COMPLEX = 15;
    protected static final int DOUBLE_COMPLEX = 16;

    /** The C type behind each predefined Java type (what Open MPI's binding uses), by base type. */
    private static final String[] C_NAMES = {"MPI_DATATYPE_NULL", "MPI_UINT8_T", "MPI_UINT16_T", "MPI_INT16_T",
        "MPI_UINT8_T", "MPI_INT32_T", "MPI_INT64_T", "MPI_FLOAT", "MPI_DOUBLE", "MPI_PACKED", "MPI_2INT",
        "MPI_SHORT_INT", "MPI_LONG_INT", "MPI_FLOAT_INT", "MPI_DOUBLE_INT", "MPI_C_COMPLEX", "MPI_C_DOUBLE_COMPLEX"};
    /** C alignment of each predefined type, by base type (a {@link Struct} field's alignment). */
    private static final int[] ALIGNMENTS = {1, 1, 2, 2, 1, 4, 8, 4, 8, 1, 4, 4, 8, 4, 8, 4, 8};
    /** Bytes of one base element, by base type (the pairs count in bytes, as Open MPI's binding does). */
    private static final int[] BASE_SIZES = {1, 1, 2, 2, 1, 4, 8, 4, 8, 1, 1, 1, 1, 1, 1, 4, 8};

    /** The byte geometry the buffer checks use: set when the handle is bound. */
    private long xSize;
    private long xExtent;
    private long xTrueLb;
    private long xTrueExtent;
    private boolean predefined;
    private int align = 1;
    /** No holes: {@code count} elements fill {@code count * size} contiguous bytes from the start. */
    private boolean dense;

    protected Datatype() {}

    private Datatype(int baseType, int baseSize, long handle) {
        this.baseType = baseType;
        this.baseSize = baseSize;
        this.handle = handle;
    }

    static Datatype predefined(int baseType) {
        Datatype t = new Datatype(baseType, BASE_SIZES[baseType], 0);
        t.predefined = true;
        t.align = ALIGNMENTS[baseType];
        return t;
    }

    protected void setBasic(int type) {
        baseType = type;
        baseSize = BASE_SIZES[type];
    }

    protected void setBasic(int type, Datatype oldType) {
        baseType = type;
        baseSize = oldType.baseSize;
    }

    void bindPredefined() {
        handle = Native.predefined(C_NAMES[baseType]);
        if (baseType != NULL) {
            geometry();
        }
    }

    /** A derived type over {@code old}'s base (or the byte, for structs). */
    private static Datatype derived(long handle, Datatype old) throws MPIException {
        Datatype t = old == null ? new Datatype(BYTE, 1, handle) : new Datatype(old.baseType, old.baseSize, handle);
        t.align = old == null ? 1 : old.align;
        t.geometry();
        return t;
    }

    /** Reads size, extent and true extent in bytes (valid on uncommitted types too). */
    private void geometry() {
        try {
            Scratch s = Scratch.get();
            int size = s.intOut();
            int lbAt = s.handleOut();
            int extAt = s.handleOut();
            int tlbAt = s.handleOut();
            int textAt = s.handleOut();
            F.SIZE.call(handle, s.at(size));
            F.GET_EXTENT.call(handle, s.at(lbAt), s.at(extAt));
            F.GET_TRUE_EXTENT.call(handle, s.at(tlbAt), s.at(textAt));
            xSize = s.getInt(size);
            xExtent = s.getLong(extAt);
            xTrueLb = s.getLong(tlbAt);
            xTrueExtent = s.getLong(textAt);
            lb = (int) (s.getLong(lbAt) / baseSize);
            extent = (int) (xExtent / baseSize);
            trueLb = (int) (xTrueLb / baseSize);
            trueExtent = (int) (xTrueExtent / baseSize);
            dense = xSize == xExtent && xTrueExtent == xExtent && xTrueLb == 0 && s.getLong(lbAt) == 0;
        } catch (MPIException e) {
            xSize = xExtent = xTrueLb = xTrueExtent = 0;
        }
    }

    /** The lowest byte {@code count} elements reach, from the buffer's start. */
    long spanLow(int count) {
        if (count <= 0 || xSize == 0) {
            return 0;
        }
        return xTrueLb + Math.min(0, (count - 1) * xExtent);
    }

    /** One past the highest byte {@code count} elements reach. */
    long spanHigh(int count) {
        if (count <= 0 || xSize == 0) {
            return 0;
        }
        return xTrueLb + xTrueExtent + Math.max(0, (count - 1) * xExtent);
    }

    /** Bytes of one element's extent (displacements of v-collectives count in these). */
    long byteExtent() {
        return xExtent;
    }

    long byteSize() {
        return xSize;
    }

    /** The C alignment of the type's elements (what a {@link Struct} field of it is aligned to). */
    int alignment() {
        return align;
    }

    void setAlignment(int a) {
        align = a;
    }

    boolean isDense() {
        return dense;
    }

    /** For messages: the C name of a predefined type, else "a derived datatype". */
    String describe() {
        return predefined ? C_NAMES[baseType] : "a derived datatype of " + xSize + " bytes (extent " + xExtent + ")";
    }

    boolean isPredefined() {
        return predefined;
    }

    public int getLb() throws MPIException {
        MPI.check();
        geometry();
        return lb;
    }

    public int getExtent() throws MPIException {
        MPI.check();
        geometry();
        return extent;
    }

    public int getTrueLb() throws MPIException {
        MPI.check();
        geometry();
        return trueLb;
    }

    public int getTrueExtent() throws MPIException {
        MPI.check();
        geometry();
        return trueExtent;
    }

    /** {@code MPI_Type_size} in base elements. */
    public int getSize() throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int size = s.intOut();
        F.SIZE.call(handle, s.at(size));
        return s.getInt(size) / baseSize;
    }

    public void commit() throws MPIException {
        MPI.check();
        handle = F.COMMIT.inOut(handle);
        geometry();
    }

    public void free() throws MPIException {
        MPI.check();
        long old = handle;
        handle = F.FREE.inOut(handle);
        Attributes.TYPE.drop(old);
    }

    public boolean isNull() {
        return handle == MPI.DATATYPE_NULL.handle;
    }

    @Override
    public Datatype clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new RuntimeException(e.getMessage(), e);
        }
    }

    /** {@code MPI_Type_dup}; attributes are copied. */
    public Datatype dup() throws MPIException {
        MPI.check();
        Datatype t = new Datatype(baseType, baseSize, F.DUP.handleOut(handle));
        t.align = align;
        t.geometry();
        Attributes.TYPE.copy(handle, t.handle);
        return t;
    }

    private static void checkCount(String what, int n) {
        if (n < 0) {
            throw new IllegalArgumentException(what + " is negative: " + n);
        }
    }

    private static void checkOld(Datatype oldType) {
        if (oldType == null) {
            throw new IllegalArgumentException("oldType is null");
        }
    }

    public static Datatype createContiguous(int count, Datatype oldType) throws MPIException {
        MPI.check();
        checkCount("count", count);
        checkOld(oldType);
        return derived(F.CONTIGUOUS.handleOut(count, oldType.handle), oldType);
    }

    /** {@code MPI_Type_vector}: the stride counts elements of {@code oldType}. */
    public static Datatype createVector(int count, int blockLength, int stride, Datatype oldType)
            throws MPIException {
        MPI.check();
        checkCount("count", count);
        checkCount("blockLength", blockLength);
        checkOld(oldType);
        return derived(F.VECTOR.handleOut(count, blockLength, stride, oldType.handle), oldType);
    }

    /** {@code MPI_Type_create_hvector}: the stride counts bytes. */
    public static Datatype createHVector(int count, int blockLength, int stride, Datatype oldType)
            throws MPIException {
        MPI.check();
        checkCount("count", count);
        checkCount("blockLength", blockLength);
        checkOld(oldType);
        return derived(F.HVECTOR.handleOut(count, blockLength, stride, oldType.handle), oldType);
    }

    private static void checkLengths(int[] blockLengths, int[] displacements) {
        if (blockLengths == null || displacements == null) {
            throw new IllegalArgumentException("blockLengths and displacements must not be null");
        }
        if (blockLengths.length != displacements.length) {
            throw new IllegalArgumentException("blockLengths has " + blockLengths.length
                    + " entries but displacements has " + displacements.length + ": give one per block");
        }
    }

    /** {@code MPI_Type_indexed}: displacements count elements of {@code oldType}. */
    public static Datatype createIndexed(int[] blockLengths, int[] displacements, Datatype oldType)
            throws MPIException {
        MPI.check();
        checkLengths(blockLengths, displacements);
        checkOld(oldType);
        Scratch s = Scratch.get();
        int bl = s.ints(blockLengths);
        int ds = s.ints(displacements);
        int out = s.handleOut();
        F.INDEXED.call(blockLengths.length, s.at(bl), s.at(ds), oldType.handle, s.at(out));
        return derived(s.getHandle(out), oldType);
    }

    /** {@code MPI_Type_create_hindexed}: displacements count bytes. */
    public static Datatype createHIndexed(int[] blockLengths, int[] displacements, Datatype oldType)
            throws MPIException {
        MPI.check();
        checkLengths(blockLengths, displacements);
        checkOld(oldType);
        Scratch s = Scratch.get();
        int bl = s.ints(blockLengths);
        int ds = s.aints(displacements);
        int out = s.handleOut();
        F.HINDEXED.call(blockLengths.length, s.at(bl), s.at(ds), oldType.handle, s.at(out));
        return derived(s.getHandle(out), oldType);
    }

    /**
     * {@code MPI_Type_create_indexed_block}: blocks of one length at element displacements. Not in Open MPI's
     * {@code mpi.jar}; an addition of this binding.
     */
    public static Datatype createIndexedBlock(int blockLength, int[] displacements, Datatype oldType)
            throws MPIException {
        MPI.check();
        checkCount("blockLength", blockLength);
        if (displacements == null) {
            throw new IllegalArgumentException("displacements must not be null");
        }
        checkOld(oldType);
        Scratch s = Scratch.get();
        int ds = s.ints(displacements);
        int out = s.handleOut();
        F.INDEXED_BLOCK.call(displacements.length, blockLength, s.at(ds), oldType.handle, s.at(out));
        return derived(s.getHandle(out), oldType);
    }

    /** {@code MPI_Type_create_struct}: displacements count bytes; the new type's base is the byte. */
    public static Datatype createStruct(int[] blockLengths, int[] displacements, Datatype[] types)
            throws MPIException {
        MPI.check();
        checkLengths(blockLengths, displacements);
        if (types == null || types.length != blockLengths.length) {
            throw new IllegalArgumentException("types must have one entry per block (" + blockLengths.length + ")");
        }
        long[] handles = new long[types.length];
        for (int i = 0; i < types.length; i++) {
            checkOld(types[i]);
            handles[i] = types[i].handle;
        }
        Scratch s = Scratch.get();
        int bl = s.ints(blockLengths);
        int ds = s.aints(displacements);
        int ts = s.handles(handles);
        int out = s.handleOut();
        F.STRUCT.call(blockLengths.length, s.at(bl), s.at(ds), s.at(ts), s.at(out));
        Datatype t = derived(s.getHandle(out), null);
        for (Datatype member : types) {
            t.align = Math.max(t.align, member.align);
        }
        return t;
    }

    /** {@code MPI_Type_create_resized}: lower bound and extent in bytes. */
    public static Datatype createResized(Datatype oldType, int lb, int extent) throws MPIException {
        MPI.check();
        checkOld(oldType);
        return derived(F.RESIZED.handleOut(oldType.handle, lb, extent), oldType);
    }

    public void setName(String name) throws MPIException {
        MPI.check();
        F.SET_NAME.withString(handle, name);
    }

    public String getName() throws MPIException {
        MPI.check();
        return F.GET_NAME.name(handle);
    }

    public static int createKeyval() throws MPIException {
        MPI.check();
        return Attributes.createKeyval();
    }

    public static void freeKeyval(int keyval) throws MPIException {
        MPI.check();
        Attributes.freeKeyval(keyval);
    }

    public void setAttr(int keyval, Object value) throws MPIException {
        MPI.check();
        Attributes.TYPE.set(handle, keyval, value);
    }

    public Object getAttr(int keyval) throws MPIException {
        MPI.check();
        return Attributes.TYPE.get(handle, keyval);
    }

    public void deleteAttr(int keyval) throws MPIException {
        MPI.check();
        Attributes.TYPE.delete(handle, keyval);
    }

    /** The offset of a heap buffer in its array, in elements (Open MPI's rule: the array offset). */
    protected int getOffset(Object buf) {
        return buf instanceof java.nio.Buffer b && !b.isDirect() && b.hasArray() ? b.arrayOffset() : 0;
    }

    private static final class F {
        private F() {}

        static final Native.Fn SIZE = Native.fn("MPI_Type_size", "ha");
        static final Native.Fn GET_EXTENT = Native.fn("MPI_Type_get_extent", "haa");
        static final Native.Fn GET_TRUE_EXTENT = Native.fn("MPI_Type_get_true_extent", "haa");
        static final Native.Fn COMMIT = Native.fn("MPI_Type_commit", "a");
        static final Native.Fn FREE = Native.fn("MPI_Type_free", "a");
        static final Native.Fn DUP = Native.fn("MPI_Type_dup", "ha");
        static final Native.Fn CONTIGUOUS = Native.fn("MPI_Type_contiguous", "iha");
        static final Native.Fn VECTOR = Native.fn("MPI_Type_vector", "iiiha");
        static final Native.Fn HVECTOR = Native.fn("MPI_Type_create_hvector", "iiaha");
        static final Native.Fn INDEXED = Native.fn("MPI_Type_indexed", "iaaha");
        static final Native.Fn HINDEXED = Native.fn("MPI_Type_create_hindexed", "iaaha");
        static final Native.Fn INDEXED_BLOCK = Native.fn("MPI_Type_create_indexed_block", "iiaha");
        static final Native.Fn STRUCT = Native.fn("MPI_Type_create_struct", "iaaaa");
        static final Native.Fn RESIZED = Native.fn("MPI_Type_create_resized", "haaa");
        static final Native.Fn SET_NAME = Native.fn("MPI_Type_set_name", "ha");
        static final Native.Fn GET_NAME = Native.fn("MPI_Type_get_name", "haa");
    }
}
