package org.troika.mpi;

/**
 * {@code MPI_ERR_REVOKED}: another rank revoked the communicator ({@link Ulfm#revoke}) after it saw a process
 * failure; every later operation on it fails, except {@link Ulfm#shrink}, {@link Ulfm#agree} and the failure
 * acknowledgement.
 */
public class RevokedException extends MpiException {
    private static final long serialVersionUID = 1L;

    public RevokedException(String function, int errorCode, int errorClass, String mpiMessage) {
        super(function, errorCode, errorClass, mpiMessage);
    }
}
