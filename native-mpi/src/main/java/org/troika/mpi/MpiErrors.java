package org.troika.mpi;

import java.util.Map;
import org.troika.mpi.spi.MpiAbi;

/**
 * Turns a failed MPI call into the matching exception: {@link ProcFailedException} and {@link RevokedException} for
 * the fault-tolerance (ULFM) error classes, whose numbers differ between the two handle ABIs, else
 * {@link MpiException}. Used by every native backend.
 */
public final class MpiErrors {
    private MpiErrors() {}

    /**
     * The exception for {@code function} returning {@code code} of class {@code errorClass}.
     *
     * @param openMpi whether the library has Open MPI's ABI (else MPICH's)
     */
    public static MpiException exception(boolean openMpi, String function, int code, int errorClass, String message) {
        // MPI_ERR_PROC_FAILED, _PENDING and MPI_ERR_REVOKED (MPICH: MPIX_ERR_..., from 101) in the ABI's table
        Map<String, Integer> classes = MpiAbi.errorClasses(openMpi ? "open-mpi" : "mpich");
        int failed = classes.get("PROC_FAILED");
        int pending = classes.get("PROC_FAILED_PENDING");
        int revoked = classes.get("REVOKED");
        if (errorClass == failed || errorClass == pending) {
            return new ProcFailedException(function, code, errorClass, message);
        }
        if (errorClass == revoked) {
            return new RevokedException(function, code, errorClass, message);
        }
        return new MpiException(function, code, errorClass, message);
    }
}
