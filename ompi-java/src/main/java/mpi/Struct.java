package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;

/**
 * A C-like struct laid out in a byte buffer, with its MPI datatype. Subclasses declare fields with the
 * {@code add...} methods (each returns the field's byte offset) and access them through their own {@link Data}
 * subclass. Fields are packed one after another (no padding between them, as in Open MPI's binding); the extent is
 * the end of the last field rounded up to the largest field alignment.
 */
public abstract class Struct {
    private int extent;
    private ArrayList<Field> fields = new ArrayList<>();
    private Datatype datatype;
    private Datatype[] types;
    private int[] offsets;
    private int[] lengths;
    private static final String typeMismatch = "Type mismatch";

    /** The position of the next field ({@link #setOffset}); the fields end at {@code end}. */
    private int next;
    private int end;
    private int align = 1;

    public Struct() {}

    /** One field: a datatype, its byte offset and its length in elements. */
    private static final class Field {
        private final Object type;
        private final int offset;
        private final int length;

        private Field(Object type, int offset, int length) {
            this.type = type;
            this.offset = offset;
            this.length = length;
        }
    }

    private void commit() throws MPIException {
        if (datatype == null) {
            createStruct();
        }
    }

    private void createStruct() throws MPIException {
        int n = fields.size();
        types = new Datatype[n];
        offsets = new int[n];
        lengths = new int[n];
        for (int i = 0; i < n; i++) {
            Field f = fields.get(i);
            types[i] = f.type instanceof Struct s ? s.getType() : (Datatype) f.type;
            offsets[i] = f.offset;
            lengths[i] = f.length;
        }
        Datatype t = Datatype.createStruct(lengths, offsets, types);
        Datatype resized = Datatype.createResized(t, 0, getExtent());
        t.free();
        resized.commit();
        resized.setAlignment(align);
        datatype = resized;
    }

    /** Bytes one struct spans, padding included. */
    public final int getExtent() throws MPIException {
        return (end + align - 1) / align * align;
    }

    /** The committed MPI datatype of this struct (made on first call; no field can be added after). */
    public final Datatype getType() throws MPIException {
        commit();
        return datatype;
    }

    /** Creates a data accessor; subclasses return their own {@link Data} subclass. */
    protected abstract Data newData();

    @SuppressWarnings("unchecked")
    private <T extends Data> T newData(ByteBuffer buffer, int offset) {
        Data d = newData();
        d.buffer = buffer;
        d.offset = offset;
        return (T) d;
    }

    private static ByteBuffer view(ByteBuffer buffer) {
        if (buffer == null) {
            throw new IllegalArgumentException("the buffer is null");
        }
        return buffer.duplicate().order(ByteOrder.nativeOrder());
    }

    /** Struct 0 of {@code buffer}. */
    public final <T extends Data> T getData(ByteBuffer buffer) throws MPIException {
        return newData(view(buffer), 0);
    }

    /** Struct {@code index} of {@code buffer}: its data buffer starts at that struct. */
    public final <T extends Data> T getData(ByteBuffer buffer, int index) throws MPIException {
        return newData(view(buffer).position(index * getExtent()).slice().order(ByteOrder.nativeOrder()), 0);
    }

    public final <T extends Data> T getData(byte[] buffer) throws MPIException {
        return getData(ByteBuffer.wrap(buffer), 0);
    }

    public final <T extends Data> T getData(byte[] buffer, int index) throws MPIException {
        return getData(ByteBuffer.wrap(buffer), index);
    }

    private int addField(Object type, int elementBytes, int fieldAlign, int length) {
        if (datatype != null) {
            throw new IllegalStateException("The struct data type was committed: fields are declared before "
                    + "getType() is first called");
        }
        if (length < 0) {
            throw new IllegalArgumentException("negative field length " + length);
        }
        int offset = next;
        fields.add(new Field(type, offset, length));
        next = offset + elementBytes * length;
        end = Math.max(end, next);
        align = Math.max(align, fieldAlign);
        return offset;
    }

    /** Places the next field at byte {@code offset}. */
    public final Struct setOffset(int offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset);
        }
        next = offset;
        return this;
    }

    public final int addByte() {
        return addByte(1);
    }

    public final int addByte(int length) {
        return addField(MPI.BYTE, 1, 1, length);
    }

    public final int addChar() {
        return addChar(1);
    }

    public final int addChar(int length) {
        return addField(MPI.CHAR, 2, 2, length);
    }

    public final int addShort() {
        return addShort(1);
    }

    public final int addShort(int length) {
        return addField(MPI.SHORT, 2, 2, length);
    }

    public final int addInt() {
        return addInt(1);
    }

    public final int addInt(int length) {
        return addField(MPI.INT, 4, 4, length);
    }

    public final int addLong() {
        return addLong(1);
    }

    public final int addLong(int length) {
        return addField(MPI.LONG, 8, 8, length);
    }

    public final int addFloat() {
        return addFloat(1);
    }

    public final int addFloat(int length) {
        return addField(MPI.FLOAT, 4, 4, length);
    }

    public final int addDouble() {
        return addDouble(1);
    }

    public final int addDouble(int length) {
        return addField(MPI.DOUBLE, 8, 8, length);
    }

    /** A nested struct field ({@code length} structs). */
    public final int addStruct(Struct struct) throws MPIException {
        return addStruct(struct, 1);
    }

    public final int addStruct(Struct struct, int length) throws MPIException {
        if (struct == null) {
            throw new IllegalArgumentException("the struct is null");
        }
        return addField(struct, struct.getExtent(), struct.align, length);
    }

    /** A field of {@code length} elements of an MPI datatype. */
    public final int addData(Datatype type) throws MPIException {
        return addData(type, 1);
    }

    public final int addData(Datatype type, int length) throws MPIException {
        if (type == null) {
            throw new IllegalArgumentException("the datatype is null");
        }
        return addField(type, (int) type.byteExtent(), type.alignment(), length);
    }

    /**
     * Access to one struct in a buffer. Field accessors take the offset {@code add...} returned, and an element
     * index for fields of several elements.
     */
    public abstract class Data {
        private ByteBuffer buffer;
        private int offset;

        public Data() {}

        /** The buffer this struct lives in. */
        public final ByteBuffer getBuffer() {
            return buffer;
        }

        protected final byte getByte(int field) {
            return buffer.get(offset + field);
        }

        protected final byte getByte(int field, int index) {
            return buffer.get(offset + field + index);
        }

        protected final void putByte(int field, byte value) {
            buffer.put(offset + field, value);
        }

        protected final void putByte(int field, int index, byte value) {
            buffer.put(offset + field + index, value);
        }

        protected final char getChar(int field) {
            return buffer.getChar(offset + field);
        }

        protected final char getChar(int field, int index) {
            return buffer.getChar(offset + field + 2 * index);
        }

        protected final void putChar(int field, char value) {
            buffer.putChar(offset + field, value);
        }

        protected final void putChar(int field, int index, char value) {
            buffer.putChar(offset + field + 2 * index, value);
        }

        protected final short getShort(int field) {
            return buffer.getShort(offset + field);
        }

        protected final short getShort(int field, int index) {
            return buffer.getShort(offset + field + 2 * index);
        }

        protected final void putShort(int field, short value) {
            buffer.putShort(offset + field, value);
        }

        protected final void putShort(int field, int index, short value) {
            buffer.putShort(offset + field + 2 * index, value);
        }

        protected final int getInt(int field) {
            return buffer.getInt(offset + field);
        }

        protected final int getInt(int field, int index) {
            return buffer.getInt(offset + field + 4 * index);
        }

        protected final void putInt(int field, int value) {
            buffer.putInt(offset + field, value);
        }

        protected final void putInt(int field, int index, int value) {
            buffer.putInt(offset + field + 4 * index, value);
        }

        protected final long getLong(int field) {
            return buffer.getLong(offset + field);
        }

        protected final long getLong(int field, int index) {
            return buffer.getLong(offset + field + 8 * index);
        }

        protected final void putLong(int field, long value) {
            buffer.putLong(offset + field, value);
        }

        protected final void putLong(int field, int index, long value) {
            buffer.putLong(offset + field + 8 * index, value);
        }

        protected final float getFloat(int field) {
            return buffer.getFloat(offset + field);
        }

        protected final float getFloat(int field, int index) {
            return buffer.getFloat(offset + field + 4 * index);
        }

        protected final void putFloat(int field, float value) {
            buffer.putFloat(offset + field, value);
        }

        protected final void putFloat(int field, int index, float value) {
            buffer.putFloat(offset + field + 4 * index, value);
        }

        protected final double getDouble(int field) {
            return buffer.getDouble(offset + field);
        }

        protected final double getDouble(int field, int index) {
            return buffer.getDouble(offset + field + 8 * index);
        }

        protected final void putDouble(int field, double value) {
            buffer.putDouble(offset + field, value);
        }

        protected final void putDouble(int field, int index, double value) {
            buffer.putDouble(offset + field + 8 * index, value);
        }

        /** The nested struct at {@code field} (declared with {@link Struct#addStruct}). */
        protected final <S extends Struct, D extends Data> D getData(S struct, int field) {
            return ((Struct) struct).newData(slice(offset + field), 0);
        }

        /** Nested struct {@code index} of the field. */
        protected final <S extends Struct, D extends Data> D getData(S struct, int field, int index) {
            try {
                return ((Struct) struct).newData(slice(offset + field), index * struct.getExtent());
            } catch (MPIException e) {
                throw new IllegalStateException(e);
            }
        }

        /** The bytes of a field declared with {@link Struct#addData}, from its start. */
        protected final ByteBuffer getBuffer(Datatype type, int field) {
            return slice(offset + field);
        }

        /** The bytes of element {@code index} of such a field. */
        protected final ByteBuffer getBuffer(Datatype type, int field, int index) throws MPIException {
            return slice(offset + field + index * (int) type.byteExtent());
        }

        private ByteBuffer slice(int at) {
            return buffer.duplicate().position(at).slice().order(ByteOrder.nativeOrder());
        }
    }
}
