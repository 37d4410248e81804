package org.troika.mpi.spi;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.troika.mpi.Datatype;
import org.troika.mpi.Op;

/**
 * The two handle ABIs of MPI libraries, for {@link NativeMpi} implementations: Open MPI's handles are addresses of
 * predefined global objects, MPICH's (and Intel MPI's) are {@code int}s with fixed values. Values are from Open MPI
 * 4.1's and MPICH 4.0's {@code mpi.h}; both are stable across Open MPI 3–5 and MPICH 3–4.
 */
public final class MpiAbi {
    private MpiAbi() {}

    /** {@code MPI_UNDEFINED} in both. */
    public static final int UNDEFINED = -32766;

    /** Bytes to reserve for one {@code MPI_Status} in either ABI (Open MPI 24, MPICH 20). */
    public static final int STATUS_BYTES = 32;

    /** A symbol only Open MPI's library exports: tells the ABIs apart. */
    public static final String OPEN_MPI_MARKER = "ompi_mpi_comm_world";

    /** Bytes of one handle in memory (out-parameters, handle arrays): Open MPI's are pointers, MPICH's {@code int}s. */
    public static int handleBytes(String abi) {
        return "open-mpi".equals(abi) ? 8 : 4;
    }

    /** {@link OpenMpi#ERROR_CLASSES} or {@link Mpich#ERROR_CLASSES} for {@link NativeMpi#abi()}. */
    public static Map<String, Integer> errorClasses(String abi) {
        return "open-mpi".equals(abi) ? OpenMpi.ERROR_CLASSES : Mpich.ERROR_CLASSES;
    }

    /** {@link OpenMpi#INTS} or {@link Mpich#INTS} for {@link NativeMpi#abi()}. */
    public static Map<String, Integer> ints(String abi) {
        return "open-mpi".equals(abi) ? OpenMpi.INTS : Mpich.INTS;
    }

    /** The integer constants both tables hold, by {@code mpi.h}/{@code mpio.h} name. */
    static final Set<String> INT_NAMES = Set.of("MPI_ANY_SOURCE", "MPI_PROC_NULL", "MPI_ROOT", "MPI_UNDEFINED",
            "MPI_ANY_TAG", "MPI_KEYVAL_INVALID", "MPI_TAG_UB", "MPI_HOST", "MPI_IO", "MPI_WTIME_IS_GLOBAL",
            "MPI_APPNUM", "MPI_LASTUSEDCODE", "MPI_UNIVERSE_SIZE", "MPI_WIN_BASE", "MPI_WIN_SIZE", "MPI_WIN_DISP_UNIT",
            "MPI_WIN_CREATE_FLAVOR", "MPI_WIN_MODEL", "MPI_GRAPH", "MPI_CART", "MPI_DIST_GRAPH", "MPI_COMM_TYPE_SHARED",
            "MPI_ORDER_C", "MPI_ORDER_FORTRAN", "MPI_DISTRIBUTE_BLOCK", "MPI_DISTRIBUTE_CYCLIC",
            "MPI_DISTRIBUTE_NONE", "MPI_DISTRIBUTE_DFLT_DARG", "MPI_MODE_NOCHECK", "MPI_MODE_NOSTORE",
            "MPI_MODE_NOPUT", "MPI_MODE_NOPRECEDE", "MPI_MODE_NOSUCCEED", "MPI_LOCK_EXCLUSIVE", "MPI_LOCK_SHARED",
            "MPI_BSEND_OVERHEAD", "MPI_MAX_OBJECT_NAME", "MPI_MAX_PORT_NAME", "MPI_MAX_INFO_KEY", "MPI_MAX_INFO_VAL",
            "MPI_MAX_PROCESSOR_NAME", "MPI_MAX_ERROR_STRING", "MPI_MAX_DATAREP_STRING", "MPI_WIN_FLAVOR_CREATE",
            "MPI_WIN_FLAVOR_ALLOCATE", "MPI_WIN_FLAVOR_DYNAMIC", "MPI_WIN_FLAVOR_SHARED", "MPI_WIN_SEPARATE",
            "MPI_WIN_UNIFIED");

    /** A name-to-value table from alternating {@code String, Integer} pairs. */
    static Map<String, Integer> table(Object... pairs) {
        Map<String, Integer> m = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put((String) pairs[i], (Integer) pairs[i + 1]);
        }
        return Map.copyOf(m);
    }

    /** Open MPI: symbol names of the predefined handles; in-place and split-type values. */
    public static final class OpenMpi {
        private OpenMpi() {}

        public static final long IN_PLACE = 1L;
        public static final int COMM_TYPE_SHARED = 0;
        public static final int ANY_SOURCE = -1;
        public static final int PROC_NULL = -2;
        /** The {@code MPI_TAG_UB} attribute key (first of an enum). */
        public static final int TAG_UB_KEY = 0;
        public static final long STATUS_IGNORE = 0L;
        /** {@code MPI_Status}: {@code int MPI_SOURCE, MPI_TAG, MPI_ERROR, _cancelled; size_t _ucount} (24 bytes). */
        public static final int STATUS_SOURCE = 0;
        public static final int STATUS_TAG = 4;
        public static final int STATUS_ERROR = 8;
        public static final int STATUS_SIZE = 24;
        /** Bytes of an {@code MPI_Request} (a pointer). */
        public static final int REQUEST_SIZE = 8;
        public static final String REQUEST_NULL = "ompi_request_null";
        public static final String COMM_WORLD = "ompi_mpi_comm_world";
        public static final String COMM_NULL = "ompi_mpi_comm_null";
        public static final String INFO_NULL = "ompi_mpi_info_null";
        public static final String ERRORS_RETURN = "ompi_mpi_errors_return";

        public static String datatypeSymbol(Datatype type) {
            return switch (type) {
                case BYTE -> "ompi_mpi_byte";
                case INT -> "ompi_mpi_int";
                case LONG -> "ompi_mpi_int64_t";
                case FLOAT -> "ompi_mpi_float";
                case DOUBLE -> "ompi_mpi_double";
            };
        }

        /**
         * Error classes by name without {@code MPI_ERR_} ({@code SUCCESS} for 0), from Open MPI 5's {@code mpi.h};
         * Open MPI 4 has the same values and lacks {@code PROC_ABORTED} to {@code VALUE_TOO_LARGE}.
         */
        public static final Map<String, Integer> ERROR_CLASSES = table("SUCCESS", 0, "BUFFER", 1, "COUNT", 2,
                "TYPE", 3, "TAG", 4, "COMM", 5, "RANK", 6, "REQUEST", 7, "ROOT", 8, "GROUP", 9, "OP", 10,
                "TOPOLOGY", 11, "DIMS", 12, "ARG", 13, "UNKNOWN", 14, "TRUNCATE", 15, "OTHER", 16, "INTERN", 17,
                "IN_STATUS", 18, "PENDING", 19, "ACCESS", 20, "AMODE", 21, "ASSERT", 22, "BAD_FILE", 23, "BASE", 24,
                "CONVERSION", 25, "DISP", 26, "DUP_DATAREP", 27, "FILE_EXISTS", 28, "FILE_IN_USE", 29, "FILE", 30,
                "INFO_KEY", 31, "INFO_NOKEY", 32, "INFO_VALUE", 33, "INFO", 34, "IO", 35, "KEYVAL", 36,
                "LOCKTYPE", 37, "NAME", 38, "NO_MEM", 39, "NOT_SAME", 40, "NO_SPACE", 41, "NO_SUCH_FILE", 42,
                "PORT", 43, "QUOTA", 44, "READ_ONLY", 45, "RMA_CONFLICT", 46, "RMA_SYNC", 47, "SERVICE", 48,
                "SIZE", 49, "SPAWN", 50, "UNSUPPORTED_DATAREP", 51, "UNSUPPORTED_OPERATION", 52, "WIN", 53,
                "RMA_RANGE", 68, "RMA_ATTACH", 69, "RMA_FLAVOR", 70, "RMA_SHARED", 71, "PROC_ABORTED", 74,
                "PROC_FAILED", 75, "PROC_FAILED_PENDING", 76, "REVOKED", 77, "SESSION", 78, "VALUE_TOO_LARGE", 79);

        /** The integer constants of {@link MpiAbi#INT_NAMES} (Open MPI 4.1 and 5.0 {@code mpi.h} agree). */
        public static final Map<String, Integer> INTS = table("MPI_ANY_SOURCE", -1, "MPI_PROC_NULL", -2,
                "MPI_ROOT", -4, "MPI_UNDEFINED", UNDEFINED, "MPI_ANY_TAG", -1, "MPI_KEYVAL_INVALID", -1,
                "MPI_TAG_UB", 0, "MPI_HOST", 1, "MPI_IO", 2, "MPI_WTIME_IS_GLOBAL", 3, "MPI_APPNUM", 4,
                "MPI_LASTUSEDCODE", 5, "MPI_UNIVERSE_SIZE", 6, "MPI_WIN_BASE", 7, "MPI_WIN_SIZE", 8,
                "MPI_WIN_DISP_UNIT", 9, "MPI_WIN_CREATE_FLAVOR", 10, "MPI_WIN_MODEL", 11, "MPI_GRAPH", 2,
                "MPI_CART", 1, "MPI_DIST_GRAPH", 3, "MPI_COMM_TYPE_SHARED", 0, "MPI_ORDER_C", 0,
                "MPI_ORDER_FORTRAN", 1, "MPI_DISTRIBUTE_BLOCK", 0, "MPI_DISTRIBUTE_CYCLIC", 1,
                "MPI_DISTRIBUTE_NONE", 2, "MPI_DISTRIBUTE_DFLT_DARG", -1, "MPI_MODE_NOCHECK", 1,
                "MPI_MODE_NOSTORE", 8, "MPI_MODE_NOPUT", 4, "MPI_MODE_NOPRECEDE", 2, "MPI_MODE_NOSUCCEED", 16,
                "MPI_LOCK_EXCLUSIVE", 1, "MPI_LOCK_SHARED", 2, "MPI_BSEND_OVERHEAD", 128, "MPI_MAX_OBJECT_NAME", 64,
                "MPI_MAX_PORT_NAME", 1024, "MPI_MAX_INFO_KEY", 36, "MPI_MAX_INFO_VAL", 256,
                "MPI_MAX_PROCESSOR_NAME", 256, "MPI_MAX_ERROR_STRING", 256, "MPI_MAX_DATAREP_STRING", 128,
                "MPI_WIN_FLAVOR_CREATE", 1, "MPI_WIN_FLAVOR_ALLOCATE", 2, "MPI_WIN_FLAVOR_DYNAMIC", 3,
                "MPI_WIN_FLAVOR_SHARED", 4, "MPI_WIN_SEPARATE", 1, "MPI_WIN_UNIFIED", 0);

        /** Pointer constants that are plain numbers in Open MPI's {@code mpi.h}. */
        public static final Map<String, Integer> POINTERS = table("MPI_BOTTOM", 0, "MPI_IN_PLACE", 1,
                "MPI_STATUS_IGNORE", 0, "MPI_STATUSES_IGNORE", 0, "MPI_ERRCODES_IGNORE", 0, "MPI_ARGV_NULL", 0,
                "MPI_ARGVS_NULL", 0, "MPI_UNWEIGHTED", 2, "MPI_WEIGHTS_EMPTY", 3);

        /**
         * A predefined handle or pointer constant by {@code mpi.h} name: a fixed pointer value, else the address
         * {@code symbolAddress} gives for its global object.
         */
        public static long predefined(String name, java.util.function.ToLongFunction<String> symbolAddress) {
            Integer pointer = POINTERS.get(name);
            return pointer != null ? pointer : symbolAddress.applyAsLong(symbol(name));
        }

        private static final Set<String> OPS = Set.of("MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND",
                "MPI_BAND", "MPI_LOR", "MPI_BOR", "MPI_LXOR", "MPI_BXOR", "MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE",
                "MPI_NO_OP", "MPI_OP_NULL");

        /**
         * The global object behind a predefined handle named as in {@code mpi.h}: {@code MPI_COMM_SELF} is
         * {@code ompi_mpi_comm_self}, {@code MPI_SUM} is {@code ompi_mpi_op_sum}, {@code MPI_REQUEST_NULL} is
         * {@code ompi_request_null}.
         */
        public static String symbol(String name) {
            if (!name.startsWith("MPI_")) {
                throw new IllegalArgumentException("not an mpi.h name: " + name);
            }
            String rest = name.substring(4).toLowerCase(java.util.Locale.ROOT);
            return switch (name) {
                case "MPI_REQUEST_NULL", "MPI_MESSAGE_NULL", "MPI_MESSAGE_NO_PROC" -> "ompi_" + rest;
                case "MPI_C_COMPLEX" -> "ompi_mpi_c_float_complex";
                case "MPI_OP_NULL" -> "ompi_mpi_op_null";
                default -> OPS.contains(name) ? "ompi_mpi_op_" + rest : "ompi_mpi_" + rest;
            };
        }

        public static String opSymbol(Op op) {
            return switch (op) {
                case SUM -> "ompi_mpi_op_sum";
                case MIN -> "ompi_mpi_op_min";
                case MAX -> "ompi_mpi_op_max";
                case PROD -> "ompi_mpi_op_prod";
            };
        }
    }

    /** MPICH: the handles' fixed {@code int} values; in-place and split-type values. */
    public static final class Mpich {
        private Mpich() {}

        public static final long IN_PLACE = -1L;
        public static final int COMM_TYPE_SHARED = 1;
        public static final int ANY_SOURCE = -2;
        public static final int PROC_NULL = -1;
        public static final int TAG_UB_KEY = 0x64400001;
        public static final long STATUS_IGNORE = 1L;
        /** {@code MPI_Status}: {@code int count_lo, count_hi_and_cancelled, MPI_SOURCE, MPI_TAG, MPI_ERROR} (20 bytes). */
        public static final int STATUS_SOURCE = 8;
        public static final int STATUS_TAG = 12;
        public static final int STATUS_ERROR = 16;
        public static final int STATUS_SIZE = 20;
        /** Bytes of an {@code MPI_Request} (an {@code int}). */
        public static final int REQUEST_SIZE = 4;
        public static final int REQUEST_NULL = 0x2c000000;
        public static final int COMM_WORLD = 0x44000000;
        public static final int COMM_NULL = 0x04000000;
        public static final int INFO_NULL = 0x1c000000;
        public static final int ERRORS_RETURN = 0x54000001;

        public static int datatype(Datatype type) {
            return switch (type) {
                case BYTE -> 0x4c00010d;
                case INT -> 0x4c000405;
                case LONG -> 0x4c00083a; // MPI_INT64_T
                case FLOAT -> 0x4c00040a;
                case DOUBLE -> 0x4c00080b;
            };
        }

        /** Error classes by name, as {@link OpenMpi#ERROR_CLASSES}; from MPICH 4.0's {@code mpi.h} (ULFM: MPIX). */
        public static final Map<String, Integer> ERROR_CLASSES = table("SUCCESS", 0, "BUFFER", 1, "COUNT", 2,
                "TYPE", 3, "TAG", 4, "COMM", 5, "RANK", 6, "ROOT", 7, "GROUP", 8, "OP", 9, "TOPOLOGY", 10,
                "DIMS", 11, "ARG", 12, "UNKNOWN", 13, "TRUNCATE", 14, "OTHER", 15, "INTERN", 16, "IN_STATUS", 17,
                "PENDING", 18, "REQUEST", 19, "ACCESS", 20, "AMODE", 21, "BAD_FILE", 22, "CONVERSION", 23,
                "DUP_DATAREP", 24, "FILE_EXISTS", 25, "FILE_IN_USE", 26, "FILE", 27, "INFO", 28, "INFO_KEY", 29,
                "INFO_VALUE", 30, "INFO_NOKEY", 31, "IO", 32, "NAME", 33, "NO_MEM", 34, "NOT_SAME", 35,
                "NO_SPACE", 36, "NO_SUCH_FILE", 37, "PORT", 38, "QUOTA", 39, "READ_ONLY", 40, "SERVICE", 41,
                "SPAWN", 42, "UNSUPPORTED_DATAREP", 43, "UNSUPPORTED_OPERATION", 44, "WIN", 45, "BASE", 46,
                "LOCKTYPE", 47, "KEYVAL", 48, "RMA_CONFLICT", 49, "RMA_SYNC", 50, "SIZE", 51, "DISP", 52,
                "ASSERT", 53, "RMA_RANGE", 55, "RMA_ATTACH", 56, "RMA_SHARED", 57, "RMA_FLAVOR", 58, "SESSION", 75,
                "PROC_ABORTED", 76, "VALUE_TOO_LARGE", 77, "PROC_FAILED", 101, "PROC_FAILED_PENDING", 102,
                "REVOKED", 103);

        /** The integer constants of {@link MpiAbi#INT_NAMES}, from MPICH 4.0's {@code mpi.h} and {@code mpio.h}. */
        public static final Map<String, Integer> INTS = table("MPI_ANY_SOURCE", -2, "MPI_PROC_NULL", -1,
                "MPI_ROOT", -3, "MPI_UNDEFINED", UNDEFINED, "MPI_ANY_TAG", -1, "MPI_KEYVAL_INVALID", 0x24000000,
                "MPI_TAG_UB", 0x64400001, "MPI_HOST", 0x64400003, "MPI_IO", 0x64400005,
                "MPI_WTIME_IS_GLOBAL", 0x64400007, "MPI_APPNUM", 0x6440000d, "MPI_LASTUSEDCODE", 0x6440000b,
                "MPI_UNIVERSE_SIZE", 0x64400009, "MPI_WIN_BASE", 0x66000001, "MPI_WIN_SIZE", 0x66000003,
                "MPI_WIN_DISP_UNIT", 0x66000005, "MPI_WIN_CREATE_FLAVOR", 0x66000007, "MPI_WIN_MODEL", 0x66000009,
                "MPI_GRAPH", 1, "MPI_CART", 2, "MPI_DIST_GRAPH", 3, "MPI_COMM_TYPE_SHARED", 1, "MPI_ORDER_C", 56,
                "MPI_ORDER_FORTRAN", 57, "MPI_DISTRIBUTE_BLOCK", 121, "MPI_DISTRIBUTE_CYCLIC", 122,
                "MPI_DISTRIBUTE_NONE", 123, "MPI_DISTRIBUTE_DFLT_DARG", -49767, "MPI_MODE_NOCHECK", 1024,
                "MPI_MODE_NOSTORE", 2048, "MPI_MODE_NOPUT", 4096, "MPI_MODE_NOPRECEDE", 8192,
                "MPI_MODE_NOSUCCEED", 16384, "MPI_LOCK_EXCLUSIVE", 234, "MPI_LOCK_SHARED", 235,
                "MPI_BSEND_OVERHEAD", 96, "MPI_MAX_OBJECT_NAME", 128, "MPI_MAX_PORT_NAME", 256,
                "MPI_MAX_INFO_KEY", 255, "MPI_MAX_INFO_VAL", 1024, "MPI_MAX_PROCESSOR_NAME", 128,
                "MPI_MAX_ERROR_STRING", 512, "MPI_MAX_DATAREP_STRING", 128, "MPI_WIN_FLAVOR_CREATE", 1,
                "MPI_WIN_FLAVOR_ALLOCATE", 2, "MPI_WIN_FLAVOR_DYNAMIC", 3, "MPI_WIN_FLAVOR_SHARED", 4,
                "MPI_WIN_SEPARATE", 1, "MPI_WIN_UNIFIED", 2);

        /** Pointer constants with fixed values; {@code MPI_UNWEIGHTED} and {@code MPI_WEIGHTS_EMPTY} are variables. */
        public static final Map<String, Integer> POINTERS = table("MPI_BOTTOM", 0, "MPI_IN_PLACE", -1,
                "MPI_STATUS_IGNORE", 1, "MPI_STATUSES_IGNORE", 1, "MPI_ERRCODES_IGNORE", 0, "MPI_ARGV_NULL", 0,
                "MPI_ARGVS_NULL", 0);

        /** Pointer constants MPICH exports as {@code int * const} variables: their value is read from the symbol. */
        public static final Set<String> POINTER_VARIABLES = Set.of("MPI_UNWEIGHTED", "MPI_WEIGHTS_EMPTY");

        /**
         * A predefined handle or pointer constant by {@code mpi.h} name: a fixed value, else (the pointer variables)
         * what {@code variable} reads from the library's symbol of that name.
         *
         * @throws IllegalArgumentException when the ABI has no such name
         */
        public static long predefined(String name, java.util.function.ToLongFunction<String> variable) {
            Integer value = HANDLES.get(name);
            if (value == null) {
                value = POINTERS.get(name);
            }
            if (value != null) {
                return value;
            }
            if (POINTER_VARIABLES.contains(name)) {
                return variable.applyAsLong(name);
            }
            throw new IllegalArgumentException("MPICH's ABI has no predefined " + name);
        }

        /** The predefined handles' fixed values, by {@code mpi.h} name. */
        public static final Map<String, Integer> HANDLES = table("MPI_COMM_WORLD", COMM_WORLD,
                "MPI_COMM_SELF", 0x44000001, "MPI_COMM_NULL", COMM_NULL, "MPI_GROUP_EMPTY", 0x48000000,
                "MPI_GROUP_NULL", 0x08000000, "MPI_INFO_NULL", INFO_NULL, "MPI_INFO_ENV", 0x5c000001,
                "MPI_ERRORS_ARE_FATAL", 0x54000000, "MPI_ERRORS_RETURN", ERRORS_RETURN, "MPI_ERRORS_ABORT",
                0x54000003, "MPI_ERRHANDLER_NULL", 0x14000000, "MPI_REQUEST_NULL", REQUEST_NULL,
                "MPI_MESSAGE_NULL", 0x2c000000, "MPI_MESSAGE_NO_PROC", 0x6c000000, "MPI_WIN_NULL", 0x20000000,
                "MPI_FILE_NULL", 0, "MPI_OP_NULL", 0x18000000, "MPI_DATATYPE_NULL", 0x0c000000,
                "MPI_MAX", 0x58000001, "MPI_MIN", 0x58000002, "MPI_SUM", 0x58000003, "MPI_PROD", 0x58000004,
                "MPI_LAND", 0x58000005, "MPI_BAND", 0x58000006, "MPI_LOR", 0x58000007, "MPI_BOR", 0x58000008,
                "MPI_LXOR", 0x58000009, "MPI_BXOR", 0x5800000a, "MPI_MINLOC", 0x5800000b, "MPI_MAXLOC", 0x5800000c,
                "MPI_REPLACE", 0x5800000d, "MPI_NO_OP", 0x5800000e, "MPI_CHAR", 0x4c000101, "MPI_BYTE", 0x4c00010d,
                "MPI_SHORT", 0x4c000203, "MPI_UNSIGNED_SHORT", 0x4c000204, "MPI_INT", 0x4c000405,
                "MPI_LONG", 0x4c000807, "MPI_FLOAT", 0x4c00040a, "MPI_DOUBLE", 0x4c00080b,
                "MPI_PACKED", 0x4c00010f, "MPI_FLOAT_INT", 0x8c000000, "MPI_DOUBLE_INT", 0x8c000001,
                "MPI_LONG_INT", 0x8c000002, "MPI_SHORT_INT", 0x8c000003, "MPI_2INT", 0x4c000816,
                "MPI_INT16_T", 0x4c000238, "MPI_INT32_T", 0x4c000439, "MPI_INT64_T", 0x4c00083a,
                "MPI_UINT8_T", 0x4c00013b, "MPI_UINT16_T", 0x4c00023c, "MPI_C_BOOL", 0x4c00013f,
                "MPI_C_COMPLEX", 0x4c000840, "MPI_C_FLOAT_COMPLEX", 0x4c000840, "MPI_C_DOUBLE_COMPLEX", 0x4c001041,
                "MPI_AINT", 0x4c000843, "MPI_OFFSET", 0x4c000844, "MPI_COUNT", 0x4c000845);

        public static int op(Op op) {
            return switch (op) {
                case MAX -> 0x58000001;
                case MIN -> 0x58000002;
                case SUM -> 0x58000003;
                case PROD -> 0x58000004;
            };
        }
    }
}
