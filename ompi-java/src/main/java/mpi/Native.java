package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import org.troika.mpi.MpiException;
import org.troika.mpi.spi.BufferAddresses;
import org.troika.mpi.spi.MpiAbi;
import org.troika.mpi.spi.NativeFunction;
import org.troika.mpi.spi.NativeMpi;

/**
 * The drop-in's link to troika-mpi: the native layer chosen at {@link MPI#Init}, the ABI's constants, error
 * translation and per-thread native scratch memory. Package-private: the public surface of package {@code mpi} is
 * Open MPI's, nothing more.
 *
 * <p>Java-side constants are Open MPI 5's (the values its {@code mpi.jar} shows); {@link #toNative} and
 * {@link #toJava} translate those that differ in the library's ABI (MPICH's {@code MPI_ANY_SOURCE} is -2, its
 * {@code MPI_CART} 2, its error classes are numbered differently, ...), so a program sees the same values on every
 * MPI.
 */
final class Native {
    private Native() {}

    /** Set once by {@link MPI#Init} before any other use. */
    static NativeMpi mpi;
    static boolean openMpi;
    static int handleBytes;
    /** {@code MPI_STATUS_IGNORE} (also {@code MPI_STATUSES_IGNORE}: the same value in both ABIs). */
    static long statusIgnore;
    /** {@code sizeof(MPI_Status)}: the stride of status arrays (Open MPI 24, MPICH 20). */
    static int statusSize;
    /** {@code MPI_IN_PLACE}. */
    static long inPlace;
    /**
     * Java arrays go to blocking collectives as they are (FFM critical downcalls) unless
     * {@code TROIKA_MPI_HEAP=copy}: troika-mpi's rule, see its docs.
     */
    static boolean pinArrays;
    /** The base addresses of the last direct buffers seen (programs pass the same buffers every call). */
    private static BufferAddresses addresses;
    private static Map<String, Integer> nativeInts;
    /** Native error class to Open MPI 5's, for classes below {@link #CLASS_LIMIT}. */
    private static int[] errorClassToJava;
    private static final int CLASS_LIMIT = 128;

    static void bind(NativeMpi backend) {
        mpi = backend;
        addresses = new BufferAddresses(backend);
        openMpi = "open-mpi".equals(backend.abi());
        handleBytes = MpiAbi.handleBytes(backend.abi());
        statusIgnore = backend.predefined("MPI_STATUS_IGNORE");
        statusSize = openMpi ? MpiAbi.OpenMpi.STATUS_SIZE : MpiAbi.Mpich.STATUS_SIZE;
        inPlace = backend.inPlace();
        pinArrays = backend.heapAccess() && !"copy".equals(System.getenv(org.troika.mpi.MpiLibrary.HEAP));
        nativeInts = MpiAbi.ints(backend.abi());
        errorClassToJava = new int[CLASS_LIMIT];
        java.util.Arrays.fill(errorClassToJava, -1);
        Map<String, Integer> javaClasses = MpiAbi.OpenMpi.ERROR_CLASSES;
        MpiAbi.errorClasses(backend.abi()).forEach((name, value) -> {
            if (value >= 0 && value < CLASS_LIMIT) {
                errorClassToJava[value] = javaClasses.getOrDefault(name, javaClasses.get("UNKNOWN"));
            }
        });
    }

    // ---- constants ----

    /** Open MPI 5's value of an integer constant named as in {@code mpi.h}: the Java API's value. */
    static int javaInt(String name) {
        Integer v = MpiAbi.OpenMpi.INTS.get(name);
        if (v == null) {
            throw new IllegalStateException("no Open MPI constant " + name);
        }
        return v;
    }

    /** The library's value of a constant whose Java value is {@code javaValue}. */
    static int toNative(String name, int javaValue) {
        return javaValue == javaInt(name) ? nativeInts.get(name) : javaValue;
    }

    /** The Java value of a constant the library returned as {@code nativeValue}. */
    static int toJava(String name, int nativeValue) {
        return nativeValue == nativeInts.get(name) ? javaInt(name) : nativeValue;
    }

    /** A rank as the library wants it: {@code ANY_SOURCE}, {@code PROC_NULL} and {@code ROOT} translated. */
    static int rankToNative(int rank) {
        if (rank >= 0 || openMpi) {
            return rank;
        }
        if (rank == MPI.ANY_SOURCE) {
            return nativeInts.get("MPI_ANY_SOURCE");
        }
        if (rank == MPI.PROC_NULL) {
            return nativeInts.get("MPI_PROC_NULL");
        }
        if (rank == MPI.ROOT) {
            return nativeInts.get("MPI_ROOT");
        }
        return rank;
    }

    /** A rank the library returned, as the Java API shows it. */
    static int rankToJava(int rank) {
        if (rank >= 0 || openMpi) {
            return rank;
        }
        if (rank == nativeInts.get("MPI_ANY_SOURCE")) {
            return MPI.ANY_SOURCE;
        }
        if (rank == nativeInts.get("MPI_PROC_NULL")) {
            return MPI.PROC_NULL;
        }
        if (rank == nativeInts.get("MPI_ROOT")) {
            return MPI.ROOT;
        }
        return rank;
    }

    static int[] ranksToNative(int[] ranks) {
        if (openMpi) {
            return ranks;
        }
        int[] out = new int[ranks.length];
        for (int i = 0; i < ranks.length; i++) {
            out[i] = rankToNative(ranks[i]);
        }
        return out;
    }

    /** The library's own value of an integer constant ({@code MPI_MAX_OBJECT_NAME}, ...). */
    static int nativeInt(String name) {
        return nativeInts.get(name);
    }

    /** Room for an object name as the library writes it. */
    static int maxObjectName() {
        return nativeInt("MPI_MAX_OBJECT_NAME");
    }

    static long predefined(String name) {
        return mpi.predefined(name);
    }

    // ---- errors ----

    /** Open MPI 5's number for a native error class. */
    static int errorClassToJava(int nativeClass) {
        if (nativeClass >= 0 && nativeClass < CLASS_LIMIT && errorClassToJava[nativeClass] >= 0) {
            return errorClassToJava[nativeClass];
        }
        return nativeClass;
    }

    static MPIException exception(MpiException e) {
        return new MPIException(e.errorCode(), errorClassToJava(e.errorClass()), mpi.errorString(e.errorCode()));
    }

    /** The exception for an MPI function that returned {@code rc}. */
    static MPIException exception(int rc) {
        return new MPIException(rc, errorClassToJava(nativeErrorClass(rc)), mpi.errorString(rc));
    }

    private static int nativeErrorClass(int code) {
        Scratch s = Scratch.get();
        int rc = F.ERROR_CLASS.f.call(code, s.at(0));
        return rc == 0 ? s.getInt(0) : code;
    }

    /**
     * A function bound by name, with its C name for messages; a record so the JIT trusts its field. Its
     * {@code ...Out} forms append the address of one out-parameter to the arguments and return what MPI wrote there
     * (in this thread's scratch memory, after whatever the caller has taken of it).
     */
    record Fn(String name, NativeFunction f) {
        /** Calls it and throws unless it returned {@code MPI_SUCCESS}. */
        void call(long... args) throws MPIException {
            if (f == null) {
                throw missing();
            }
            int rc = f.call(args);
            if (rc != 0) {
                throw exception(rc);
            }
        }

        double callDouble(long... args) throws MPIException {
            if (f == null) {
                throw missing();
            }
            return f.callDouble(args);
        }

        /** A handle out-parameter ({@code MPI_Comm *}, {@code MPI_Datatype *}, ...). */
        long handleOut(long... args) throws MPIException {
            Scratch s = Scratch.current();
            int mark = s.mark();
            try {
                int out = s.handleOut();
                call(append(args, s.at(out)));
                return s.getHandle(out);
            } finally {
                s.release(mark);
            }
        }

        /** An {@code int} out-parameter (a rank, a size, a flag). */
        int intOut(long... args) throws MPIException {
            Scratch s = Scratch.current();
            int mark = s.mark();
            try {
                int out = s.intOut();
                call(append(args, s.at(out)));
                return s.getInt(out);
            } finally {
                s.release(mark);
            }
        }

        /** A 64-bit out-parameter ({@code MPI_Aint}, {@code MPI_Offset}, {@code MPI_Count}). */
        long longOut(long... args) throws MPIException {
            Scratch s = Scratch.current();
            int mark = s.mark();
            try {
                int out = s.intOut();
                call(append(args, s.at(out)));
                return s.getLong(out);
            } finally {
                s.release(mark);
            }
        }

        /** The one argument is a handle passed by address ({@code MPI_Type_free(&type)}, ...); returns its new value. */
        long inOut(long handle) throws MPIException {
            Scratch s = Scratch.current();
            int mark = s.mark();
            try {
                int at = s.handleOut();
                writeHandle(s.buf(), at, handle);
                call(s.at(at));
                return s.getHandle(at);
            } finally {
                s.release(mark);
            }
        }

        /** {@code MPI_X_get_name(handle, name, &len)}. */
        String name(long handle) throws MPIException {
            Scratch s = Scratch.current();
            int mark = s.mark();
            try {
                int max = maxObjectName();
                int at = s.chars(max);
                int len = s.intOut();
                call(handle, s.at(at), s.at(len));
                return s.getString(at, max);
            } finally {
                s.release(mark);
            }
        }

        /** {@code MPI_X_set_name(handle, name)}, or any call of a handle and one string. */
        void withString(long handle, String text) throws MPIException {
            Scratch s = Scratch.current();
            int mark = s.mark();
            try {
                int at = s.string(text);
                call(handle, s.at(at));
            } finally {
                s.release(mark);
            }
        }

        private static long[] append(long[] args, long last) {
            long[] all = java.util.Arrays.copyOf(args, args.length + 1);
            all[args.length] = last;
            return all;
        }

        MPIException missing() {
            return new MPIException(MPI.ERR_UNSUPPORTED_OPERATION, MPI.ERR_UNSUPPORTED_OPERATION,
                    name + " is not in " + mpi.libraryName() + " (" + mpi.abi() + "): this MPI does not offer it");
        }
    }

    /** Binds a function; a library without it gives an {@link Fn} that throws {@link MPIException} when called. */
    static Fn fn(String name, String signature) {
        try {
            return new Fn(name, mpi.function(name, signature));
        } catch (UnsatisfiedLinkError | IllegalArgumentException e) {
            return new Fn(name, null);
        }
    }

    /** Functions every class needs (bound on first use, after {@link MPI#Init}). */
    static final class F {
        private F() {}

        static final Fn ERROR_CLASS = fn("MPI_Error_class", "ia");
    }

    // ---- handles in memory ----

    static long readHandle(ByteBuffer b, int at) {
        return handleBytes == 8 ? b.getLong(at) : b.getInt(at);
    }

    static void writeHandle(ByteBuffer b, int at, long handle) {
        if (handleBytes == 8) {
            b.putLong(at, handle);
        } else {
            b.putInt(at, (int) handle);
        }
    }

    /** A direct buffer in native order, and its address. */
    static ByteBuffer allocate(int bytes) {
        return ByteBuffer.allocateDirect(Math.max(bytes, 8)).order(ByteOrder.nativeOrder());
    }

    static long address(java.nio.Buffer direct) {
        return addresses.base(direct);
    }
}
