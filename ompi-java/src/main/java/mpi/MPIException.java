package mpi;

/**
 * An MPI call failed (only reached when the communicator's error handler is {@link MPI#ERRORS_RETURN}; the default,
 * {@link MPI#ERRORS_ARE_FATAL}, ends the job inside MPI). {@link #getErrorClass()} is Open MPI 5's number for the
 * class ({@code MPI.ERR_TRUNCATE}, ...) on every MPI; {@link #getErrorCode()} is the library's own code.
 *
 * <p>Unlike Open MPI's (a checked {@code Exception}), this one is unchecked: every method still declares it, so
 * code written for Open MPI's binding compiles and behaves the same, and code written for MVAPICH2-J, whose
 * methods throw no checked exception (the OSU Micro-Benchmarks for Java call {@code send} from methods without a
 * {@code throws} clause), compiles too.
 */
public final class MPIException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private int errorCode;
    private int errorClass;

    protected MPIException(int code, int clazz, String message) {
        super(message);
        this.errorCode = code;
        this.errorClass = clazz;
    }

    public MPIException(String message) {
        super(message);
    }

    public MPIException(Throwable cause) {
        super(cause);
    }

    /** The code the MPI function returned. */
    public int getErrorCode() {
        return errorCode;
    }

    /** The error class ({@code MPI.ERR_*}). */
    public int getErrorClass() {
        return errorClass;
    }
}
