package org.troika.mpi.jna;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.troika.mpi.MpiErrors;
import org.troika.mpi.MpiLibrary;
import org.troika.mpi.spi.MpiAbi;
import org.troika.mpi.spi.NativeFunction;
import org.troika.mpi.spi.NativeMpi;
import org.troika.mpi.spi.Upcall;

/**
 * {@link NativeMpi} over JNA <em>direct mapping</em> ({@code Native.register}: static natives bound once), which
 * costs ~0.3 µs per call where JNA interface mapping costs ~6.6 µs (measured here with 2 ranks and 1 float).
 * Buffers and handles cross as {@code long}s, so no JNA object is built on the hot path.
 *
 * <p>Two subclasses, one per handle ABI: Open MPI passes handles as pointers to global objects
 * ({@code ompi_mpi_comm_world}, ...), MPICH (and Intel MPI) as {@code int}s with fixed values from its
 * {@code mpi.h}. {@link #load} tells them apart by the presence of the symbol {@code ompi_mpi_comm_world}.
 */
public abstract class JnaMpi implements NativeMpi {
    /** {@code RTLD_NOW | RTLD_GLOBAL}: Open MPI builds whose plugins are not linked to libmpi need the global flag. */
    static final int OPEN_FLAGS = 0x2 | 0x100;

    private static final int MAX_ERROR_STRING = 1024;
    private static final int MAX_LIBRARY_VERSION = 8192;

    private final String libraryName;
    final NativeLibrary lib;
    // the ABI's MPI_Status layout: its size and where source, tag and error are, in ints
    private final int statusInts;
    private final int sourceAt;
    private final int tagAt;
    private final int errorAt;

    JnaMpi(String libraryName, NativeLibrary lib, boolean openMpi) {
        this.libraryName = libraryName;
        this.lib = lib;
        this.statusInts = (openMpi ? MpiAbi.OpenMpi.STATUS_SIZE : MpiAbi.Mpich.STATUS_SIZE) / 4;
        this.sourceAt = (openMpi ? MpiAbi.OpenMpi.STATUS_SOURCE : MpiAbi.Mpich.STATUS_SOURCE) / 4;
        this.tagAt = (openMpi ? MpiAbi.OpenMpi.STATUS_TAG : MpiAbi.Mpich.STATUS_TAG) / 4;
        this.errorAt = (openMpi ? MpiAbi.OpenMpi.STATUS_ERROR : MpiAbi.Mpich.STATUS_ERROR) / 4;
    }

    /**
     * Loads an MPI library (path or soname) with {@code RTLD_NOW | RTLD_GLOBAL} and binds the implementation for
     * its handle ABI. A JVM can bind one library per ABI (JNA registers the natives of a class once).
     *
     * @throws UnsatisfiedLinkError when the library cannot be loaded
     */
    public static NativeMpi load(String library) {
        JnaBoot.prepare(System.getenv());
        keepJvmSignalHandlers();
        NativeLibrary lib = NativeLibrary.getInstance(library, Map.of(Library.OPTION_OPEN_FLAGS, OPEN_FLAGS));
        if (hasSymbol(lib, MpiAbi.OPEN_MPI_MARKER)) {
            return OpenMpiAbi.bind(library, lib);
        }
        return MpichAbi.bind(library, lib);
    }

    /**
     * Unless the user chose otherwise, sets {@code UCX_ERROR_SIGNALS} to empty in this process before any MPI library
     * loads: UCX (MPICH's ch4:ucx device on Debian, Open MPI's pml ucx elsewhere) reads it when libucs loads and
     * otherwise installs its own SIGSEGV handler over the JVM's; the JVM's routine SIGSEGVs (safepoint polls,
     * implicit null checks) then abort the rank ("Caught signal 11 ... invalid permissions for mapped object",
     * seen here with MPICH 4.0.2 / UCX 1.13). If libucs is loaded already with the variable unset, it is too late:
     * refused ({@link MpiLibrary#ucxLoadedFirst}).
     */
    private static void keepJvmSignalHandlers() {
        if (Libc.getenv(MpiLibrary.UCX_ERROR_SIGNALS) == null) {
            Pointer ucx = Libc.dlopen(MpiLibrary.UCX, MpiLibrary.RTLD_LAZY_NOLOAD);
            if (ucx != null) {
                Libc.dlclose(ucx);
                throw MpiLibrary.ucxLoadedFirst();
            }
        }
        Libc.setenv(MpiLibrary.UCX_ERROR_SIGNALS, "", 0);
    }

    /** The C library's {@code setenv}, direct-mapped: JNA's generic call path would load its conversion machinery. */
    private static final class Libc {
        static {
            Native.register(Libc.class, NativeLibrary.getProcess());
        }

        private Libc() {}

        static native int setenv(String name, String value, int overwrite);

        static native String getenv(String name);

        static native Pointer dlopen(String file, int flags);

        static native int dlclose(Pointer handle);
    }

    static boolean hasSymbol(NativeLibrary lib, String name) {
        try {
            lib.getGlobalVariableAddress(name);
            return true;
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
    }

    @Override
    public String libraryName() {
        return libraryName;
    }

    /** Throws {@link org.troika.mpi.MpiException} when {@code rc} is not MPI_SUCCESS (0 in every MPI). */
    final void check(int rc, String function) {
        if (rc != 0) {
            throw MpiErrors.exception("open-mpi".equals(abi()), function, rc, errorClass(rc), errorString(rc));
        }
    }

    @Override
    public final String errorString(int code) {
        byte[] text = new byte[MAX_ERROR_STRING];
        if (errorString(code, text, new int[1]) != 0) {
            return "unknown MPI error " + code;
        }
        return cString(text);
    }

    @Override
    public final String libraryVersion() {
        byte[] text = new byte[MAX_LIBRARY_VERSION];
        check(libraryVersion(text, new int[1]), "MPI_Get_library_version");
        return cString(text).strip();
    }

    /** The NUL-terminated UTF-8 string at the start of {@code text}. */
    private static String cString(byte[] text) {
        int n = 0;
        while (n < text.length && text[n] != 0) {
            n++;
        }
        return new String(text, 0, n, StandardCharsets.UTF_8);
    }

    private int errorClass(int code) {
        int[] out = new int[1];
        return errorClass(code, out) == 0 ? out[0] : -1;
    }

    @Override
    public final boolean initialized() {
        int[] flag = new int[1];
        check(initialized(flag), "MPI_Initialized");
        return flag[0] != 0;
    }

    @Override
    public final boolean finalized() {
        int[] flag = new int[1];
        check(finalized(flag), "MPI_Finalized");
        return flag[0] != 0;
    }

    @Override
    public final int initThread(int required) {
        int[] provided = new int[1];
        check(initThread(required, provided), "MPI_Init_thread");
        return provided[0];
    }

    @Override
    public final long address(java.nio.Buffer direct) {
        return com.sun.jna.Pointer.nativeValue(com.sun.jna.Native.getDirectBufferPointer(direct));
    }

    @Override
    public final int queryThread() {
        int[] out = new int[1];
        check(queryThread(out), "MPI_Query_thread");
        return out[0];
    }

    /** A native {@code MPI_Status} array of {@code count} entries (at least one: MPICH has no NULL "ignore"). */
    final int[] rawStatuses(int count) {
        return new int[Math.max(1, count) * statusInts];
    }

    /**
     * Decodes the native {@code MPI_Status} number {@code from} of {@code raw} into {@code status} at
     * {@code STATUS_INTS * to} as {@code {source, tag, error, count}}, the count in units of {@code type}; does
     * nothing when {@code status} is null.
     */
    final void status(int[] raw, int from, long type, int[] status, int to) {
        if (status == null) {
            return;
        }
        int[] one = from == 0 ? raw : java.util.Arrays.copyOfRange(raw, from * statusInts, (from + 1) * statusInts);
        int at = to * STATUS_INTS;
        status[at] = one[sourceAt];
        status[at + 1] = one[tagAt];
        status[at + 2] = one[errorAt];
        int[] count = new int[1];
        check(getCount(one, type, count), "MPI_Get_count");
        status[at + 3] = count[0];
    }

    final void status(int[] raw, long type, int[] status) {
        status(raw, 0, type, status, 0);
    }

    // ---- many requests: one native call each (the natives take the ABI's handle array; see the subclasses) ----

    @Override
    public final void waitAll(int count, long[] requests, long type, int[] statuses) {
        int[] raw = rawStatuses(count);
        check(waitall(count, requests, raw), "MPI_Waitall");
        for (int i = 0; statuses != null && i < count; i++) {
            status(raw, i, type, statuses, i);
        }
    }

    @Override
    public final boolean testAll(int count, long[] requests, long type, int[] statuses) {
        int[] raw = rawStatuses(count);
        int[] flag = new int[1];
        check(testall(count, requests, flag, raw), "MPI_Testall");
        for (int i = 0; flag[0] != 0 && statuses != null && i < count; i++) {
            status(raw, i, type, statuses, i);
        }
        return flag[0] != 0;
    }

    @Override
    public final int waitAny(int count, long[] requests, long type, int[] status) {
        int[] raw = rawStatuses(1);
        int[] index = new int[1];
        check(waitany(count, requests, index, raw), "MPI_Waitany");
        if (index[0] != MpiAbi.UNDEFINED) {
            status(raw, type, status);
        }
        return index[0];
    }

    @Override
    public final int testAny(int count, long[] requests, long type, int[] status) {
        int[] raw = rawStatuses(1);
        int[] index = new int[1];
        int[] flag = new int[1];
        check(testany(count, requests, index, flag, raw), "MPI_Testany");
        if (flag[0] == 0) {
            return -1;
        }
        if (index[0] != MpiAbi.UNDEFINED) {
            status(raw, type, status);
        }
        return index[0];
    }

    @Override
    public final int waitSome(int count, long[] requests, int[] indices, long type, int[] statuses) {
        return some(true, count, requests, indices, type, statuses);
    }

    @Override
    public final int testSome(int count, long[] requests, int[] indices, long type, int[] statuses) {
        return some(false, count, requests, indices, type, statuses);
    }

    private int some(boolean wait, int count, long[] requests, int[] indices, long type, int[] statuses) {
        int[] raw = rawStatuses(count);
        int[] out = new int[1];
        check(wait ? waitsome(count, requests, out, indices, raw) : testsome(count, requests, out, indices, raw),
                wait ? "MPI_Waitsome" : "MPI_Testsome");
        for (int k = 0; out[0] != MpiAbi.UNDEFINED && statuses != null && k < out[0]; k++) {
            status(raw, k, type, statuses, k);
        }
        return out[0];
    }

    // MPI_Waitall and friends on the ABI's MPI_Request array; requests is copied in and out
    abstract int waitall(int count, long[] requests, int[] statuses);

    abstract int testall(int count, long[] requests, int[] flag, int[] statuses);

    abstract int waitany(int count, long[] requests, int[] index, int[] status);

    abstract int testany(int count, long[] requests, int[] index, int[] flag, int[] status);

    abstract int waitsome(int count, long[] requests, int[] outCount, int[] indices, int[] statuses);

    abstract int testsome(int count, long[] requests, int[] outCount, int[] indices, int[] statuses);

    abstract int getCount(int[] status, long type, int[] count);

    @Override
    public final NativeFunction function(String name, String signature) {
        return new JnaFunction(lib.getFunction(name), NativeFunction.Signature.parse(name, signature),
                !"open-mpi".equals(abi()));
    }

    @Override
    public final java.nio.ByteBuffer memory(long address, int bytes) {
        return new com.sun.jna.Pointer(address).getByteBuffer(0, bytes);
    }

    @Override
    public final Upcall reductionFunction(Upcall.Reduction body) {
        ReductionCallback callback = (in, inout, len, type) -> {
            try {
                body.reduce(in, inout, len, type);
            } catch (Throwable t) {
                body.failed(t);
            }
        };
        long address = com.sun.jna.Pointer.nativeValue(com.sun.jna.CallbackReference.getFunctionPointer(callback));
        return new Upcall() {
            private ReductionCallback keep = callback; // JNA frees a callback's stub once it is unreachable

            @Override
            public long address() {
                return address;
            }

            @Override
            public void close() {
                keep = null;
            }
        };
    }

    /** {@code MPI_User_function}'s four pointers, as {@code long}s (64-bit platforms). */
    interface ReductionCallback extends com.sun.jna.Callback {
        void invoke(long in, long inout, long len, long type);
    }

    /** A function called through JNA's generic path: arguments boxed per call (fine off the hot path). */
    private record JnaFunction(com.sun.jna.Function f, NativeFunction.Signature sig, boolean intHandles)
            implements NativeFunction {
        @Override
        public int call(long... args) {
            return f.invokeInt(box(args));
        }

        @Override
        public double callDouble(long... args) {
            return f.invokeDouble(box(args));
        }

        private Object[] box(long[] args) {
            sig.checkArity(args);
            Object[] boxed = new Object[args.length];
            char[] kinds = sig.kinds();
            for (int i = 0; i < args.length; i++) {
                boolean narrow = kinds[i] == 'i' || (kinds[i] == 'h' && intHandles);
                boxed[i] = narrow ? (Object) (int) args[i] : (Object) args[i];
            }
            return boxed;
        }
    }

    abstract int queryThread(int[] provided);

    // The few calls whose signatures hold no handle, implemented by each ABI's natives.
    abstract int errorString(int code, byte[] text, int[] len);

    abstract int errorClass(int code, int[] out);

    abstract int libraryVersion(byte[] text, int[] len);

    abstract int initialized(int[] flag);

    abstract int finalized(int[] flag);

    abstract int initThread(int required, int[] provided);
}
