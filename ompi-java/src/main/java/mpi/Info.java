package mpi;

/** An info object: string keys and values passed as hints to MPI. */
public final class Info implements Freeable, Cloneable {
    protected long handle;
    static long nullHandle;

    /** {@code MPI_Info_create}. */
    public Info() throws MPIException {
        MPI.check();
        handle = F.CREATE.handleOut();
    }

    protected Info(long handle) {
        this.handle = handle;
    }

    protected static Info newEnv() {
        return MPI.INFO_ENV;
    }

    public void set(String key, String value) throws MPIException {
        MPI.check();
        if (key == null || value == null) {
            throw new IllegalArgumentException("info keys and values must not be null");
        }
        Scratch s = Scratch.get();
        int k = s.string(key);
        int v = s.string(value);
        F.SET.call(handle, s.at(k), s.at(v));
    }

    /** The value of {@code key}, or null. */
    public String get(String key) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int k = s.string(key);
        int len = s.intOut();
        int flag = s.intOut();
        F.GET_VALUELEN.call(handle, s.at(k), s.at(len), s.at(flag));
        if (s.getInt(flag) == 0) {
            return null;
        }
        int n = s.getInt(len);
        int v = s.chars(n + 1);
        F.GET.call(handle, s.at(k), n + 1, s.at(v), s.at(flag));
        return s.getInt(flag) == 0 ? null : s.getString(v, n + 1);
    }

    public void delete(String key) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int k = s.string(key);
        F.DELETE.call(handle, s.at(k));
    }

    public int size() throws MPIException {
        MPI.check();
        return F.NKEYS.intOut(handle);
    }

    public String getKey(int i) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int max = Native.nativeInt("MPI_MAX_INFO_KEY");
        int k = s.chars(max + 1);
        F.NTHKEY.call(handle, i, s.at(k));
        return s.getString(k, max + 1);
    }

    @Override
    public Info clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new RuntimeException(e.getMessage(), e);
        }
    }

    public Info dup() throws MPIException {
        MPI.check();
        return new Info(F.DUP.handleOut(handle));
    }

    public void free() throws MPIException {
        MPI.check();
        handle = F.FREE.inOut(handle);
    }

    public boolean isNull() {
        return handle == nullHandle;
    }

    private static final class F {
        private F() {}

        static final Native.Fn CREATE = Native.fn("MPI_Info_create", "a");
        static final Native.Fn SET = Native.fn("MPI_Info_set", "haa");
        static final Native.Fn GET_VALUELEN = Native.fn("MPI_Info_get_valuelen", "haaa");
        static final Native.Fn GET = Native.fn("MPI_Info_get", "haiaa");
        static final Native.Fn DELETE = Native.fn("MPI_Info_delete", "ha");
        static final Native.Fn NKEYS = Native.fn("MPI_Info_get_nkeys", "ha");
        static final Native.Fn NTHKEY = Native.fn("MPI_Info_get_nthkey", "hia");
        static final Native.Fn DUP = Native.fn("MPI_Info_dup", "ha");
        static final Native.Fn FREE = Native.fn("MPI_Info_free", "a");
    }
}
