package org.troika.mpi.spi;

import org.troika.mpi.MpiException;

/**
 * The one place where a failed MPI return code becomes a Java exception, for every backend. Error classes that
 * deserve their own exception type (for instance ULFM's {@code MPI_ERR_PROC_FAILED} and {@code MPI_ERR_REVOKED},
 * whose values are only known at run time) are mapped here.
 */
public final class MpiErrors {
    private MpiErrors() {}

    /** The exception for {@code function} returning {@code code} (of class {@code errorClass}, -1 when unknown). */
    public static MpiException exception(String function, int code, int errorClass, String mpiMessage) {
        return new MpiException(function, code, errorClass, mpiMessage);
    }
}
