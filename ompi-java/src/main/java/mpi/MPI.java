package mpi;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import org.troika.mpi.Mpi;
import org.troika.mpi.MpiException;
import org.troika.mpi.MpiLibrary;
import org.troika.mpi.ThreadLevel;
import org.troika.mpi.spi.NativeMpi;

/**
 * Open MPI 5.0's Java API to MPI, implemented on troika-mpi: {@link #Init}, the predefined communicators,
 * datatypes, operations and constants, and the buffer helpers.
 *
 * <p>The constants have the values Open MPI 5's {@code mpi.jar} gives them on every MPI library; the drop-in
 * translates those that differ in the library's ABI. The library is the job's ({@code libmpi.so.40} under Open MPI's
 * {@code mpirun}, {@code libmpich.so.12} under Hydra, {@code TROIKA_LIBMPI} to choose), reached through the Foreign
 * Function &amp; Memory API on JDK 22+ and JNA on JDK 17–21 ({@code TROIKA_MPI_BACKEND=jna|ffm} to choose).
 */
public final class MPI {
    private static boolean initialized;
    private static boolean finalized;
    private static byte[] buffer;
    private static ByteBuffer attached;
    private static final int MAX_PROCESSOR_NAME = 256;
    private static final ByteOrder nativeOrder = ByteOrder.nativeOrder();

    public static final Intracomm COMM_WORLD;
    public static final Intracomm COMM_SELF;

    public static final int THREAD_SINGLE;
    public static final int THREAD_FUNNELED;
    public static final int THREAD_SERIALIZED;
    public static final int THREAD_MULTIPLE;
    public static final int GRAPH;
    public static final int DIST_GRAPH;
    public static final int CART;
    public static final int ANY_SOURCE;
    public static final int ANY_TAG;

    public static final Op MAX;
    public static final Op MIN;
    public static final Op SUM;
    public static final Op PROD;
    public static final Op LAND;
    public static final Op BAND;
    public static final Op LOR;
    public static final Op BOR;
    public static final Op LXOR;
    public static final Op BXOR;
    public static final Op REPLACE;
    public static final Op NO_OP;
    public static final Op MINLOC;
    public static final Op MAXLOC;

    public static final Datatype DATATYPE_NULL;
    public static final Datatype BYTE;
    public static final Datatype CHAR;
    public static final Datatype SHORT;
    public static final Datatype BOOLEAN;
    public static final Datatype INT;
    public static final Datatype LONG;
    public static final Datatype FLOAT;
    public static final Datatype DOUBLE;
    public static final Datatype PACKED;
    public static final Datatype FLOAT_COMPLEX;
    public static final Datatype DOUBLE_COMPLEX;
    public static final Datatype INT2;
    public static final Datatype SHORT_INT;
    public static final Datatype LONG_INT;
    public static final Datatype FLOAT_INT;
    public static final Datatype DOUBLE_INT;

    public static final Int2 int2;
    public static final ShortInt shortInt;
    public static final LongInt longInt;
    public static final FloatInt floatInt;
    public static final DoubleInt doubleInt;

    public static final Request REQUEST_NULL;
    public static final Group GROUP_EMPTY;
    public static final Info INFO_ENV;
    public static final Info INFO_NULL;

    public static final int PROC_NULL;
    public static final int UNDEFINED;
    public static final int IDENT;
    public static final int CONGRUENT;
    public static final int SIMILAR;
    public static final int UNEQUAL;
    public static final int TAG_UB;
    public static final int HOST;
    public static final int IO;
    public static final int WTIME_IS_GLOBAL;
    public static final int APPNUM;
    public static final int LASTUSEDCODE;
    public static final int UNIVERSE_SIZE;
    public static final int WIN_BASE;
    public static final int WIN_SIZE;
    public static final int WIN_DISP_UNIT;
    public static final int VERSION;
    public static final int SUBVERSION;
    public static final int ROOT;
    public static final int KEYVAL_INVALID;
    public static final int BSEND_OVERHEAD;
    public static final int MAX_OBJECT_NAME;
    public static final int MAX_PORT_NAME;
    public static final int MAX_DATAREP_STRING;
    public static final int MAX_INFO_KEY;
    public static final int MAX_INFO_VAL;
    public static final int ORDER_C;
    public static final int ORDER_FORTRAN;
    public static final int DISTRIBUTE_BLOCK;
    public static final int DISTRIBUTE_CYCLIC;
    public static final int DISTRIBUTE_NONE;
    public static final int DISTRIBUTE_DFLT_DARG;
    public static final int MODE_CREATE;
    public static final int MODE_RDONLY;
    public static final int MODE_WRONLY;
    public static final int MODE_RDWR;
    public static final int MODE_DELETE_ON_CLOSE;
    public static final int MODE_UNIQUE_OPEN;
    public static final int MODE_EXCL;
    public static final int MODE_APPEND;
    public static final int MODE_SEQUENTIAL;
    public static final int DISPLACEMENT_CURRENT;
    public static final int SEEK_SET;
    public static final int SEEK_CUR;
    public static final int SEEK_END;
    public static final int MODE_NOCHECK;
    public static final int MODE_NOPRECEDE;
    public static final int MODE_NOPUT;
    public static final int MODE_NOSTORE;
    public static final int MODE_NOSUCCEED;
    public static final int LOCK_EXCLUSIVE;
    public static final int LOCK_SHARED;

    public static final Errhandler ERRORS_ARE_FATAL;
    public static final Errhandler ERRORS_ABORT;
    public static final Errhandler ERRORS_RETURN;

    public static final int SUCCESS;
    public static final int ERR_BUFFER;
    public static final int ERR_COUNT;
    public static final int ERR_TYPE;
    public static final int ERR_TAG;
    public static final int ERR_COMM;
    public static final int ERR_RANK;
    public static final int ERR_REQUEST;
    public static final int ERR_ROOT;
    public static final int ERR_GROUP;
    public static final int ERR_OP;
    public static final int ERR_TOPOLOGY;
    public static final int ERR_DIMS;
    public static final int ERR_ARG;
    public static final int ERR_UNKNOWN;
    public static final int ERR_TRUNCATE;
    public static final int ERR_OTHER;
    public static final int ERR_INTERN;
    public static final int ERR_IN_STATUS;
    public static final int ERR_PENDING;
    public static final int ERR_ACCESS;
    public static final int ERR_AMODE;
    public static final int ERR_ASSERT;
    public static final int ERR_BAD_FILE;
    public static final int ERR_BASE;
    public static final int ERR_CONVERSION;
    public static final int ERR_DISP;
    public static final int ERR_DUP_DATAREP;
    public static final int ERR_FILE_EXISTS;
    public static final int ERR_FILE_IN_USE;
    public static final int ERR_FILE;
    public static final int ERR_INFO_KEY;
    public static final int ERR_INFO_NOKEY;
    public static final int ERR_INFO_VALUE;
    public static final int ERR_INFO;
    public static final int ERR_IO;
    public static final int ERR_KEYVAL;
    public static final int ERR_LOCKTYPE;
    public static final int ERR_NAME;
    public static final int ERR_NO_MEM;
    public static final int ERR_NOT_SAME;
    public static final int ERR_NO_SPACE;
    public static final int ERR_NO_SUCH_FILE;
    public static final int ERR_PORT;
    public static final int ERR_PROC_ABORTED;
    public static final int ERR_QUOTA;
    public static final int ERR_READ_ONLY;
    public static final int ERR_RMA_CONFLICT;
    public static final int ERR_RMA_SYNC;
    public static final int ERR_SERVICE;
    public static final int ERR_SIZE;
    public static final int ERR_SPAWN;
    public static final int ERR_UNSUPPORTED_DATAREP;
    public static final int ERR_UNSUPPORTED_OPERATION;
    public static final int ERR_WIN;
    public static final int ERR_LASTCODE;
    public static final int ERR_SYSRESOURCE;

    static {
        // the values Open MPI 5.0.7's mpi.jar gives these constants (its mpi.h), on every MPI here
        THREAD_SINGLE = 0;
        THREAD_FUNNELED = 1;
        THREAD_SERIALIZED = 2;
        THREAD_MULTIPLE = 3;
        GRAPH = 2;
        DIST_GRAPH = 3;
        CART = 1;
        ANY_SOURCE = -1;
        ANY_TAG = -1;
        PROC_NULL = -2;
        UNDEFINED = -32766;
        IDENT = 0;
        CONGRUENT = 1;
        SIMILAR = 2;
        UNEQUAL = 3;
        TAG_UB = 0;
        HOST = 1;
        IO = 2;
        WTIME_IS_GLOBAL = 3;
        APPNUM = 4;
        LASTUSEDCODE = 5;
        UNIVERSE_SIZE = 6;
        WIN_BASE = 7;
        WIN_SIZE = 8;
        WIN_DISP_UNIT = 9;
        VERSION = 3;
        SUBVERSION = 1;
        ROOT = -4;
        KEYVAL_INVALID = -1;
        BSEND_OVERHEAD = 128;
        MAX_OBJECT_NAME = 64;
        MAX_PORT_NAME = 1024;
        MAX_DATAREP_STRING = 128;
        MAX_INFO_KEY = 36;
        MAX_INFO_VAL = 256;
        ORDER_C = 0;
        ORDER_FORTRAN = 1;
        DISTRIBUTE_BLOCK = 0;
        DISTRIBUTE_CYCLIC = 1;
        DISTRIBUTE_NONE = 2;
        DISTRIBUTE_DFLT_DARG = -1;
        MODE_CREATE = 1;
        MODE_RDONLY = 2;
        MODE_WRONLY = 4;
        MODE_RDWR = 8;
        MODE_DELETE_ON_CLOSE = 16;
        MODE_UNIQUE_OPEN = 32;
        MODE_EXCL = 64;
        MODE_APPEND = 128;
        MODE_SEQUENTIAL = 256;
        DISPLACEMENT_CURRENT = -54278278;
        SEEK_SET = 600;
        SEEK_CUR = 602;
        SEEK_END = 604;
        MODE_NOCHECK = 1;
        MODE_NOPRECEDE = 2;
        MODE_NOPUT = 4;
        MODE_NOSTORE = 8;
        MODE_NOSUCCEED = 16;
        LOCK_EXCLUSIVE = 1;
        LOCK_SHARED = 2;
        SUCCESS = 0;
        ERR_BUFFER = 1;
        ERR_COUNT = 2;
        ERR_TYPE = 3;
        ERR_TAG = 4;
        ERR_COMM = 5;
        ERR_RANK = 6;
        ERR_REQUEST = 7;
        ERR_ROOT = 8;
        ERR_GROUP = 9;
        ERR_OP = 10;
        ERR_TOPOLOGY = 11;
        ERR_DIMS = 12;
        ERR_ARG = 13;
        ERR_UNKNOWN = 14;
        ERR_TRUNCATE = 15;
        ERR_OTHER = 16;
        ERR_INTERN = 17;
        ERR_IN_STATUS = 18;
        ERR_PENDING = 19;
        ERR_ACCESS = 20;
        ERR_AMODE = 21;
        ERR_ASSERT = 22;
        ERR_BAD_FILE = 23;
        ERR_BASE = 24;
        ERR_CONVERSION = 25;
        ERR_DISP = 26;
        ERR_DUP_DATAREP = 27;
        ERR_FILE_EXISTS = 28;
        ERR_FILE_IN_USE = 29;
        ERR_FILE = 30;
        ERR_INFO_KEY = 31;
        ERR_INFO_NOKEY = 32;
        ERR_INFO_VALUE = 33;
        ERR_INFO = 34;
        ERR_IO = 35;
        ERR_KEYVAL = 36;
        ERR_LOCKTYPE = 37;
        ERR_NAME = 38;
        ERR_NO_MEM = 39;
        ERR_NOT_SAME = 40;
        ERR_NO_SPACE = 41;
        ERR_NO_SUCH_FILE = 42;
        ERR_PORT = 43;
        ERR_PROC_ABORTED = 74;
        ERR_QUOTA = 44;
        ERR_READ_ONLY = 45;
        ERR_RMA_CONFLICT = 46;
        ERR_RMA_SYNC = 47;
        ERR_SERVICE = 48;
        ERR_SIZE = 49;
        ERR_SPAWN = 50;
        ERR_UNSUPPORTED_DATAREP = 51;
        ERR_UNSUPPORTED_OPERATION = 52;
        ERR_WIN = 53;
        ERR_LASTCODE = 92;
        ERR_SYSRESOURCE = 0; // what Open MPI 5.0.7's mpi.jar shows

        COMM_WORLD = new Intracomm(0L); // handles bound by Init
        COMM_SELF = new Intracomm(0L);

        MAX = new Op("MPI_MAX");
        MIN = new Op("MPI_MIN");
        SUM = new Op("MPI_SUM");
        PROD = new Op("MPI_PROD");
        LAND = new Op("MPI_LAND");
        BAND = new Op("MPI_BAND");
        LOR = new Op("MPI_LOR");
        BOR = new Op("MPI_BOR");
        LXOR = new Op("MPI_LXOR");
        BXOR = new Op("MPI_BXOR");
        REPLACE = new Op("MPI_REPLACE");
        NO_OP = new Op("MPI_NO_OP");
        MINLOC = new Op("MPI_MINLOC");
        MAXLOC = new Op("MPI_MAXLOC");

        DATATYPE_NULL = Datatype.predefined(Datatype.NULL);
        BYTE = Datatype.predefined(Datatype.BYTE);
        CHAR = Datatype.predefined(Datatype.CHAR);
        SHORT = Datatype.predefined(Datatype.SHORT);
        BOOLEAN = Datatype.predefined(Datatype.BOOLEAN);
        INT = Datatype.predefined(Datatype.INT);
        LONG = Datatype.predefined(Datatype.LONG);
        FLOAT = Datatype.predefined(Datatype.FLOAT);
        DOUBLE = Datatype.predefined(Datatype.DOUBLE);
        PACKED = Datatype.predefined(Datatype.PACKED);
        INT2 = Datatype.predefined(Datatype.INT2);
        SHORT_INT = Datatype.predefined(Datatype.SHORT_INT);
        LONG_INT = Datatype.predefined(Datatype.LONG_INT);
        FLOAT_INT = Datatype.predefined(Datatype.FLOAT_INT);
        DOUBLE_INT = Datatype.predefined(Datatype.DOUBLE_INT);
        FLOAT_COMPLEX = Datatype.predefined(Datatype.FLOAT_COMPLEX);
        DOUBLE_COMPLEX = Datatype.predefined(Datatype.DOUBLE_COMPLEX);

        // C layouts of {int, int}, {short, int}, {long, int}, {float, int}, {double, int} on LP64
        int2 = new Int2(4, 4);
        shortInt = new ShortInt(2, 4, 4);
        longInt = new LongInt(8, 8, 4);
        floatInt = new FloatInt(4, 4);
        doubleInt = new DoubleInt(8, 4);

        REQUEST_NULL = new Request(0);
        GROUP_EMPTY = new Group(0);
        INFO_ENV = new Info(0);
        INFO_NULL = new Info(0);

        ERRORS_ARE_FATAL = new Errhandler(0);
        ERRORS_ABORT = new Errhandler(0);
        ERRORS_RETURN = new Errhandler(0);
    }

    public MPI() {}

    /**
     * Initialises MPI (thread level {@link #THREAD_SINGLE}); returns the arguments (MPI takes none of them here).
     */
    public static String[] Init(String[] args) throws MPIException {
        initCommon(THREAD_SINGLE);
        return args;
    }

    /** Initialises MPI at a thread level; returns the level MPI provides. */
    public static int InitThread(String[] args, int required) throws MPIException {
        if (required < THREAD_SINGLE || required > THREAD_MULTIPLE) {
            throw new IllegalArgumentException("thread level " + required + " is not MPI.THREAD_SINGLE..MULTIPLE");
        }
        return initCommon(required);
    }

    private static synchronized int initCommon(int required) throws MPIException {
        if (initialized) {
            throw new MPIException("MPI is initialized already: MPI.Init may be called once per process");
        }
        if (finalized) {
            throw new MPIException("MPI was finalized and cannot be initialized again");
        }
        NativeMpi backend;
        int provided;
        try {
            MpiLibrary.Backend choice = MpiLibrary.backend(System.getenv(), Runtime.version().feature(),
                    Mpi.ffmAvailable());
            Mpi mpi = Mpi.isInitialized() ? Mpi.current() : Mpi.init(Mpi.load(choice), ThreadLevel.of(required));
            backend = mpi.backend();
            provided = mpi.threadLevel().value();
        } catch (MpiException e) {
            throw new MPIException(e.errorCode(), e.errorClass(), e.getMessage());
        } catch (RuntimeException | LinkageError e) {
            throw new MPIException("MPI could not be initialized: " + e.getMessage());
        }
        Native.bind(backend);
        initialized = true;
        Comm.bindPredefined(COMM_WORLD, "MPI_COMM_WORLD");
        Comm.bindPredefined(COMM_SELF, "MPI_COMM_SELF");
        // troika-mpi sets MPI_ERRORS_RETURN on the world communicator; Open MPI's rule is errors are fatal
        ERRORS_ARE_FATAL.handle = Native.predefined("MPI_ERRORS_ARE_FATAL");
        ERRORS_RETURN.handle = Native.predefined("MPI_ERRORS_RETURN");
        ERRORS_ABORT.handle = hasErrorsAbort() ? Native.predefined("MPI_ERRORS_ABORT") : ERRORS_ARE_FATAL.handle;
        COMM_WORLD.setErrhandler(ERRORS_ARE_FATAL);
        for (Op op : new Op[] {MAX, MIN, SUM, PROD, LAND, BAND, LOR, BOR, LXOR, BXOR, REPLACE, NO_OP, MINLOC,
                MAXLOC}) {
            op.bindPredefined();
        }
        for (Datatype t : new Datatype[] {DATATYPE_NULL, BYTE, CHAR, SHORT, BOOLEAN, INT, LONG, FLOAT, DOUBLE,
                PACKED, INT2, SHORT_INT, LONG_INT, FLOAT_INT, DOUBLE_INT, FLOAT_COMPLEX, DOUBLE_COMPLEX}) {
            t.bindPredefined();
        }
        REQUEST_NULL.handle = Native.predefined("MPI_REQUEST_NULL");
        GROUP_EMPTY.handle = Native.predefined("MPI_GROUP_EMPTY");
        INFO_ENV.handle = Native.predefined("MPI_INFO_ENV");
        INFO_NULL.handle = Native.predefined("MPI_INFO_NULL");
        Info.nullHandle = INFO_NULL.handle;
        return provided;
    }

    /**
     * Whether the library has a working {@code MPI_ERRORS_ABORT} (an MPI-4.0 handler): Open MPI 5 has; Open MPI 4
     * has no such object, and MPICH 4.0 defines the handle but fails an internal assertion when it is set. Where it
     * is missing, {@link #ERRORS_ABORT} is {@link #ERRORS_ARE_FATAL}.
     */
    private static boolean hasErrorsAbort() {
        if (!Native.openMpi) {
            return false;
        }
        try {
            Native.predefined("MPI_ERRORS_ABORT");
            return true;
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            return false;
        }
    }

    /** {@code MPI_Query_thread}. */
    public static int queryThread() throws MPIException {
        check();
        try {
            return Native.mpi.queryThread();
        } catch (MpiException e) {
            throw Native.exception(e);
        }
    }

    /** {@code MPI_Is_thread_main}. */
    public static boolean isThreadMain() throws MPIException {
        check();
        return F.IS_THREAD_MAIN.intOut() != 0;
    }

    /** {@code MPI_Finalize} (collective). */
    public static void Finalize() throws MPIException {
        check();
        try {
            Mpi.finalizeMpi();
        } catch (MpiException e) {
            throw Native.exception(e);
        }
        synchronized (MPI.class) {
            initialized = false;
            finalized = true;
        }
    }

    public static double wtime() throws MPIException {
        check();
        return Native.mpi.wtime();
    }

    public static double wtick() throws MPIException {
        check();
        return F.WTICK.callDouble();
    }

    /** {@code MPI_Get_version}: the MPI standard the library implements. */
    public static Version getVersion() {
        if (Native.mpi == null) {
            return new Version(VERSION, SUBVERSION);
        }
        try {
            Scratch s = Scratch.get();
            int v = s.intOut();
            int sub = s.intOut();
            F.GET_VERSION.call(s.at(v), s.at(sub));
            return new Version(s.getInt(v), s.getInt(sub));
        } catch (RuntimeException e) {
            return new Version(VERSION, SUBVERSION);
        }
    }

    /** {@code MPI_Get_library_version}. */
    public static String getLibVersion() {
        return Native.mpi == null ? "" : Native.mpi.libraryVersion();
    }

    /** {@code MPI_Get_processor_name}. */
    public static String getProcessorName() throws MPIException {
        check();
        Scratch s = Scratch.get();
        int name = s.chars(MAX_PROCESSOR_NAME);
        int len = s.intOut();
        F.GET_PROCESSOR_NAME.call(s.at(name), s.at(len));
        return s.getString(name, MAX_PROCESSOR_NAME);
    }

    public static boolean isInitialized() throws MPIException {
        return initialized;
    }

    public static boolean isFinalized() throws MPIException {
        return finalized;
    }

    /** {@code MPI_Buffer_attach}: a native buffer of {@code buffer.length} bytes for buffered sends. */
    public static void attachBuffer(byte[] buffer) throws MPIException {
        check();
        if (buffer == null) {
            throw new IllegalArgumentException("attachBuffer(null): pass the byte[] whose size the buffer takes");
        }
        synchronized (MPI.class) {
            if (attached != null) {
                throw new MPIException(ERR_BUFFER, ERR_BUFFER, "a buffer is attached already: detachBuffer first");
            }
            ByteBuffer b = Native.allocate(buffer.length);
            F.BUFFER_ATTACH.call(Native.address(b), buffer.length);
            attached = b;
            MPI.buffer = buffer;
        }
    }

    /** {@code MPI_Buffer_detach} (waits for pending buffered sends); returns the array given to attach. */
    public static byte[] detachBuffer() throws MPIException {
        check();
        synchronized (MPI.class) {
            Scratch s = Scratch.get();
            int addr = s.handleOut();
            int size = s.intOut();
            F.BUFFER_DETACH.call(s.at(addr), s.at(size));
            byte[] out = buffer;
            buffer = null;
            attached = null;
            return out;
        }
    }

    /** {@code MPI_Pcontrol(level)}; the object is not passed on. */
    public static void pControl(int level, Object obj) {
        if (initialized) {
            try {
                F.PCONTROL.call(level);
            } catch (MPIException e) {
                // MPI_Pcontrol is a profiling hint with no defined failure
            }
        }
    }

    /** Throws unless MPI is initialized and not finalized. */
    protected static void check() throws MPIException {
        if (!initialized) {
            throw new MPIException(finalized ? "MPI is finalized" : "MPI is not initialized: call MPI.Init first");
        }
    }

    public static ByteBuffer newByteBuffer(int capacity) {
        return ByteBuffer.allocateDirect(capacity).order(nativeOrder);
    }

    public static CharBuffer newCharBuffer(int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 2)).asCharBuffer();
    }

    public static ShortBuffer newShortBuffer(int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 2)).asShortBuffer();
    }

    public static IntBuffer newIntBuffer(int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 4)).asIntBuffer();
    }

    public static LongBuffer newLongBuffer(int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 8)).asLongBuffer();
    }

    public static FloatBuffer newFloatBuffer(int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 4)).asFloatBuffer();
    }

    public static DoubleBuffer newDoubleBuffer(int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 8)).asDoubleBuffer();
    }

    /** Throws {@link IllegalArgumentException} unless {@code buffer} is direct: non-blocking calls need native memory. */
    protected static void assertDirectBuffer(Buffer buffer) {
        if (buffer == null || !buffer.isDirect()) {
            throw new IllegalArgumentException("The buffer must be direct.");
        }
    }

    protected static void assertDirectBuffer(Buffer a, Buffer b) {
        assertDirectBuffer(a);
        assertDirectBuffer(b);
    }

    protected static boolean isDirectBuffer(Object obj) {
        return obj instanceof Buffer b && b.isDirect();
    }

    protected static boolean isHeapBuffer(Object obj) {
        return obj instanceof Buffer b && !b.isDirect();
    }

    public static ByteBuffer slice(ByteBuffer buf, int offset) {
        return buf.duplicate().position(offset).slice().order(buf.order());
    }

    public static CharBuffer slice(CharBuffer buf, int offset) {
        return buf.duplicate().position(offset).slice();
    }

    public static ShortBuffer slice(ShortBuffer buf, int offset) {
        return buf.duplicate().position(offset).slice();
    }

    public static IntBuffer slice(IntBuffer buf, int offset) {
        return buf.duplicate().position(offset).slice();
    }

    public static LongBuffer slice(LongBuffer buf, int offset) {
        return buf.duplicate().position(offset).slice();
    }

    public static FloatBuffer slice(FloatBuffer buf, int offset) {
        return buf.duplicate().position(offset).slice();
    }

    public static DoubleBuffer slice(DoubleBuffer buf, int offset) {
        return buf.duplicate().position(offset).slice();
    }

    public static ByteBuffer slice(byte[] buf, int offset) {
        return ByteBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static CharBuffer slice(char[] buf, int offset) {
        return CharBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static ShortBuffer slice(short[] buf, int offset) {
        return ShortBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static IntBuffer slice(int[] buf, int offset) {
        return IntBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static LongBuffer slice(long[] buf, int offset) {
        return LongBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static FloatBuffer slice(float[] buf, int offset) {
        return FloatBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static DoubleBuffer slice(double[] buf, int offset) {
        return DoubleBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    /** The library functions this class calls. */
    private static final class F {
        private F() {}

        static final Native.Fn IS_THREAD_MAIN = Native.fn("MPI_Is_thread_main", "a");
        static final Native.Fn WTICK = Native.fn("MPI_Wtick", "d:");
        static final Native.Fn GET_VERSION = Native.fn("MPI_Get_version", "aa");
        static final Native.Fn GET_PROCESSOR_NAME = Native.fn("MPI_Get_processor_name", "aa");
        static final Native.Fn BUFFER_ATTACH = Native.fn("MPI_Buffer_attach", "ai");
        static final Native.Fn BUFFER_DETACH = Native.fn("MPI_Buffer_detach", "aa");
        static final Native.Fn PCONTROL = Native.fn("MPI_Pcontrol", "i");
    }
}
