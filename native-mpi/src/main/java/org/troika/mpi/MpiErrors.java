package org.troika.mpi;

/**
 * Turns a failed MPI call into the matching exception: {@link ProcFailedException} and {@link RevokedException} for
 * the fault-tolerance (ULFM) error classes, whose numbers differ between the two handle ABIs, else
 * {@link MpiException}. Used by every native backend.
 */
public final class MpiErrors {
    /** Open MPI 5 {@code mpi.h}: MPI_ERR_PROC_FAILED, MPI_ERR_PROC_FAILED_PENDING, MPI_ERR_REVOKED. */
    static final int OPEN_MPI_PROC_FAILED = 75;
    static final int OPEN_MPI_PROC_FAILED_PENDING = 76;
    static final int OPEN_MPI_REVOKED = 77;
    /** MPICH {@code mpi.h}: MPICH_ERR_FIRST_MPIX (100) + 1, + 2, + 3. */
    static final int MPICH_PROC_FAILED = 101;
    static final int MPICH_PROC_FAILED_PENDING = 102;
    static final int MPICH_REVOKED = 103;

    private MpiErrors() {}

    /**
     * The exception for {@code function} returning {@code code} of class {@code errorClass}.
     *
     * @param openMpi whether the library has Open MPI's ABI (else MPICH's)
     */
    public static MpiException exception(boolean openMpi, String function, int code, int errorClass, String message) {
        int failed = openMpi ? OPEN_MPI_PROC_FAILED : MPICH_PROC_FAILED;
        int pending = openMpi ? OPEN_MPI_PROC_FAILED_PENDING : MPICH_PROC_FAILED_PENDING;
        int revoked = openMpi ? OPEN_MPI_REVOKED : MPICH_REVOKED;
        if (errorClass == failed || errorClass == pending) {
            return new ProcFailedException(function, code, errorClass, message);
        }
        if (errorClass == revoked) {
            return new RevokedException(function, code, errorClass, message);
        }
        return new MpiException(function, code, errorClass, message);
    }
}
