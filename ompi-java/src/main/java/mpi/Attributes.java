package mpi;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * User attributes of communicators, datatypes and windows ({@code createKeyval}, {@code setAttr}, ...), kept in
 * Java. As with Open MPI's binding, a value is stored as a serialized copy: {@code getAttr} returns a new equal
 * object, and duplicating the object ({@code dup}) copies its attributes. The serialized bytes never leave this
 * process. Predefined attributes ({@code MPI.TAG_UB}, ...) are the library's, read by the classes themselves.
 */
final class Attributes {
    /** Keyvals made here start above every predefined keyval of Open MPI and MPICH's Java-visible range. */
    private static final AtomicInteger NEXT = new AtomicInteger(1000);
    private static final Set<Integer> LIVE = ConcurrentHashMap.newKeySet();

    private final Map<Long, Map<Integer, byte[]>> values = new ConcurrentHashMap<>();

    static final Attributes COMM = new Attributes();
    static final Attributes TYPE = new Attributes();
    static final Attributes WIN = new Attributes();

    static int createKeyval() {
        int k = NEXT.getAndIncrement();
        LIVE.add(k);
        return k;
    }

    static void freeKeyval(int keyval) throws MPIException {
        if (!LIVE.remove(keyval)) {
            throw keyvalError(keyval);
        }
    }

    static boolean isUserKeyval(int keyval) {
        return keyval >= 1000;
    }

    /** What Open MPI's binding reports for an unknown or freed keyval: class {@code MPI.ERR_OTHER}. */
    private static MPIException keyvalError(int keyval) {
        return new MPIException(MPI.ERR_OTHER, MPI.ERR_OTHER, "MPI_ERR_OTHER: invalid attribute key " + keyval);
    }

    void set(long handle, int keyval, Object value) throws MPIException {
        if (!LIVE.contains(keyval)) {
            throw keyvalError(keyval);
        }
        values.computeIfAbsent(handle, h -> new ConcurrentHashMap<>()).put(keyval, serialize(value));
    }

    Object get(long handle, int keyval) throws MPIException {
        if (!LIVE.contains(keyval)) {
            throw keyvalError(keyval);
        }
        Map<Integer, byte[]> m = values.get(handle);
        byte[] b = m == null ? null : m.get(keyval);
        return b == null ? null : deserialize(b);
    }

    void delete(long handle, int keyval) throws MPIException {
        Map<Integer, byte[]> m = values.get(handle);
        if (!isUserKeyval(keyval) || m == null || m.remove(keyval) == null) {
            if (!LIVE.contains(keyval)) {
                throw keyvalError(keyval);
            }
        }
    }

    /** What {@code dup} does: the new object gets copies of the old one's attributes. */
    void copy(long from, long to) {
        Map<Integer, byte[]> m = values.get(from);
        if (m != null && !m.isEmpty()) {
            values.put(to, new ConcurrentHashMap<>(m));
        } else {
            values.remove(to);
        }
    }

    /** The object was freed (its handle may be reused). */
    void drop(long handle) {
        values.remove(handle);
    }

    private static byte[] serialize(Object value) throws MPIException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ObjectOutputStream o = new ObjectOutputStream(out)) {
            o.writeObject(value);
        } catch (IOException e) {
            throw new MPIException(e);
        }
        return out.toByteArray();
    }

    private static Object deserialize(byte[] b) throws MPIException {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(b))) {
            return in.readObject();
        } catch (IOException | ClassNotFoundException e) {
            throw new MPIException(e);
        }
    }
}
