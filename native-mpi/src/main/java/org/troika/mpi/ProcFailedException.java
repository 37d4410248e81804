package org.troika.mpi;

/**
 * {@code MPI_ERR_PROC_FAILED} (or {@code _PENDING}): a process of the communicator died. Only a fault-tolerant MPI
 * (ULFM: Open MPI 5 run with {@code mpirun --with-ft ulfm}) returns it instead of ending the job; the survivors can
 * then {@link Ulfm#revoke} the communicator and {@link Ulfm#shrink} it.
 */
public class ProcFailedException extends MpiException {
    private static final long serialVersionUID = 1L;

    public ProcFailedException(String function, int errorCode, int errorClass, String mpiMessage) {
        super(function, errorCode, errorClass, mpiMessage);
    }
}
