package org.troika.mpi.spi;

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
