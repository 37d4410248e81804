package org.troika.worker.elastic;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Data-only encoding of {@link ObjectState} fields: a count, then per field its name, a type tag and the value.
 * Supported values: {@code null}, Boolean, Integer, Long, Float, Double, String, and arrays of byte, int, long,
 * float and double. No Java serialization, so decoding a damaged or forged buffer can only fail, never run code.
 * Lengths are checked against the bytes left before anything is allocated.
 */
final class StateCodec {
    private static final byte NULL = 0;
    private static final byte BOOLEAN = 1;
    private static final byte INT = 2;
    private static final byte LONG = 3;
    private static final byte FLOAT = 4;
    private static final byte DOUBLE = 5;
    private static final byte STRING = 6;
    private static final byte BYTES = 7;
    private static final byte INTS = 8;
    private static final byte LONGS = 9;
    private static final byte FLOATS = 10;
    private static final byte DOUBLES = 11;

    private StateCodec() {}

    /** Whether {@code v} can be stored. */
    static boolean supported(Object v) {
        return v == null || v instanceof Boolean || v instanceof Integer || v instanceof Long || v instanceof Float
                || v instanceof Double || v instanceof String || v instanceof byte[] || v instanceof int[]
                || v instanceof long[] || v instanceof float[] || v instanceof double[];
    }

    /** A copy that shares nothing mutable with {@code v}. */
    static Object copy(Object v) {
        if (v instanceof byte[] a) {
            return a.clone();
        } else if (v instanceof int[] a) {
            return a.clone();
        } else if (v instanceof long[] a) {
            return a.clone();
        } else if (v instanceof float[] a) {
            return a.clone();
        } else if (v instanceof double[] a) {
            return a.clone();
        }
        return v;
    }

    static byte[] encode(Map<String, Object> fields) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(fields.size());
            for (Map.Entry<String, Object> e : fields.entrySet()) {
                writeString(out, e.getKey());
                writeValue(out, e.getValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static void writeValue(DataOutputStream out, Object v) throws IOException {
        if (v == null) {
            out.writeByte(NULL);
        } else if (v instanceof Boolean b) {
            out.writeByte(BOOLEAN);
            out.writeBoolean(b);
        } else if (v instanceof Integer i) {
            out.writeByte(INT);
            out.writeInt(i);
        } else if (v instanceof Long l) {
            out.writeByte(LONG);
            out.writeLong(l);
        } else if (v instanceof Float f) {
            out.writeByte(FLOAT);
            out.writeFloat(f);
        } else if (v instanceof Double d) {
            out.writeByte(DOUBLE);
            out.writeDouble(d);
        } else if (v instanceof String s) {
            out.writeByte(STRING);
            writeString(out, s);
        } else if (v instanceof byte[] a) {
            out.writeByte(BYTES);
            out.writeInt(a.length);
            out.write(a);
        } else if (v instanceof int[] a) {
            out.writeByte(INTS);
            out.writeInt(a.length);
            for (int x : a) {
                out.writeInt(x);
            }
        } else if (v instanceof long[] a) {
            out.writeByte(LONGS);
            out.writeInt(a.length);
            for (long x : a) {
                out.writeLong(x);
            }
        } else if (v instanceof float[] a) {
            out.writeByte(FLOATS);
            out.writeInt(a.length);
            for (float x : a) {
                out.writeFloat(x);
            }
        } else if (v instanceof double[] a) {
            out.writeByte(DOUBLES);
            out.writeInt(a.length);
            for (double x : a) {
                out.writeDouble(x);
            }
        } else {
            throw new IllegalArgumentException("cannot store a " + v.getClass().getName());
        }
    }

    /**
     * @throws IllegalArgumentException if {@code bytes} is not a complete encoding
     */
    static Map<String, Object> decode(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        try {
            int n = count(in, 1 + 4);
            Map<String, Object> fields = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String name = readString(in);
                if (fields.containsKey(name)) {
                    throw new IllegalArgumentException("field '" + name + "' appears twice");
                }
                fields.put(name, readValue(in));
            }
            if (in.hasRemaining()) {
                throw new IllegalArgumentException(in.remaining() + " stray bytes after the state");
            }
            return fields;
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("state bytes end early", e);
        }
    }

    /** A count of elements of at least {@code minBytes} each, checked against the bytes left. */
    private static int count(ByteBuffer in, int minBytes) {
        int n = in.getInt();
        if (n < 0 || (long) n * minBytes > in.remaining()) {
            throw new IllegalArgumentException("bad length " + n + " with " + in.remaining() + " bytes left");
        }
        return n;
    }

    private static String readString(ByteBuffer in) {
        byte[] b = new byte[count(in, 1)];
        in.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    private static Object readValue(ByteBuffer in) {
        byte tag = in.get();
        switch (tag) {
            case NULL: return null;
            case BOOLEAN: return in.get() != 0;
            case INT: return in.getInt();
            case LONG: return in.getLong();
            case FLOAT: return in.getFloat();
            case DOUBLE: return in.getDouble();
            case STRING: return readString(in);
            case BYTES: {
                byte[] a = new byte[count(in, 1)];
                in.get(a);
                return a;
            }
            case INTS: {
                int[] a = new int[count(in, 4)];
                in.asIntBuffer().get(a);
                in.position(in.position() + 4 * a.length);
                return a;
            }
            case LONGS: {
                long[] a = new long[count(in, 8)];
                in.asLongBuffer().get(a);
                in.position(in.position() + 8 * a.length);
                return a;
            }
            case FLOATS: {
                float[] a = new float[count(in, 4)];
                in.asFloatBuffer().get(a);
                in.position(in.position() + 4 * a.length);
                return a;
            }
            case DOUBLES: {
                double[] a = new double[count(in, 8)];
                in.asDoubleBuffer().get(a);
                in.position(in.position() + 8 * a.length);
                return a;
            }
            default:
                throw new IllegalArgumentException("unknown value tag " + tag);
        }
    }
}
