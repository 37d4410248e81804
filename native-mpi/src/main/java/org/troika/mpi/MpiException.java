package org.troika.mpi;

/**
 * An MPI call returned an error (troika sets {@code MPI_ERRORS_RETURN} on every communicator it makes, so errors
 * come back instead of aborting the job). The message carries the function and MPI's own error string.
 */
public class MpiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int errorCode;
    private final int errorClass;

    public MpiException(String function, int errorCode, int errorClass, String mpiMessage) {
        super(function + " failed: " + mpiMessage + " (MPI error code " + errorCode + ", class " + errorClass + ")");
        this.errorCode = errorCode;
        this.errorClass = errorClass;
    }

    /** The code the MPI function returned. */
    public int errorCode() {
        return errorCode;
    }

    /** {@code MPI_Error_class} of the code (e.g. MPI_ERR_ARG); comparable across MPI libraries only by name. */
    public int errorClass() {
        return errorClass;
    }
}
