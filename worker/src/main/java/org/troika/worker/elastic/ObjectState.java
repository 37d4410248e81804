package org.troika.worker.elastic;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * State made of named simple values: {@code null}, Boolean, Integer, Long, Float, Double, String and arrays of
 * byte, int, long, float and double (e.g. a step counter, an epoch, model weights as {@code double[]}). The set of
 * names is fixed at construction; values are copied in and out, so callers never share an array with the
 * committed copy. Encoded data-only (no Java serialization).
 */
public class ObjectState extends State {
    private final Map<String, Object> live = new LinkedHashMap<>();
    private Map<String, Object> committed = new LinkedHashMap<>();

    /**
     * @param initial the fields and their starting values (used by rank 0 in the first generation)
     * @throws IllegalArgumentException for an unsupported value type
     */
    public ObjectState(ElasticContext context, Map<String, ?> initial) {
        super(context);
        initial.forEach((k, v) -> live.put(Objects.requireNonNull(k, "field name"), checked(k, v)));
    }

    /** A copy of the live value of {@code name}. */
    public Object get(String name) {
        requireField(name);
        return StateCodec.copy(live.get(name));
    }

    /** A copy of the live value of {@code name} as a {@code type}. */
    public <T> T get(String name, Class<T> type) {
        return type.cast(get(name));
    }

    /** Sets the live value of an existing field (copied). */
    public void set(String name, Object value) {
        requireField(name);
        live.put(name, checked(name, value));
    }

    @Override
    protected void save() {
        committed = copyOf(live);
    }

    @Override
    public void restore() {
        live.clear();
        live.putAll(copyOf(committed));
    }

    @Override
    protected byte[] encodeCommitted() {
        return StateCodec.encode(committed);
    }

    @Override
    protected void decodeCommitted(byte[] bytes) {
        Map<String, Object> decoded = StateCodec.decode(bytes);
        if (!decoded.keySet().equals(live.keySet())) {
            throw new IllegalArgumentException("committed state has fields " + decoded.keySet() + ", this program "
                    + live.keySet());
        }
        committed = decoded;
    }

    private void requireField(String name) {
        if (!live.containsKey(name)) {
            throw new IllegalArgumentException("no state field '" + name + "'; fields are " + live.keySet());
        }
    }

    private static Object checked(String name, Object v) {
        if (!StateCodec.supported(v)) {
            throw new IllegalArgumentException("state field '" + name + "' holds a " + v.getClass().getName()
                    + "; use a boxed primitive, String or primitive array");
        }
        return StateCodec.copy(v);
    }

    private static Map<String, Object> copyOf(Map<String, Object> m) {
        Map<String, Object> c = new LinkedHashMap<>();
        m.forEach((k, v) -> c.put(k, StateCodec.copy(v)));
        return c;
    }
}
