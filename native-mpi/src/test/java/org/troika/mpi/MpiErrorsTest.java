package org.troika.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MpiErrorsTest {
    /** ABI | error class | exception (the numbers of Open MPI 5's and MPICH's mpi.h). */
    @ParameterizedTest(name = "{0} class {1} -> {2}")
    @CsvSource({
        "open-mpi, 75, ProcFailedException",
        "open-mpi, 76, ProcFailedException",
        "open-mpi, 77, RevokedException",
        "open-mpi, 13, MpiException",
        "open-mpi, 101, MpiException",
        "mpich, 101, ProcFailedException",
        "mpich, 102, ProcFailedException",
        "mpich, 103, RevokedException",
        "mpich, 75, MpiException",
        "mpich, -1, MpiException"})
    void ulfmErrorClassesBecomeTypedExceptions(String abi, int errorClass, String type) {
        MpiException e = MpiErrors.exception(abi.equals("open-mpi"), "MPI_Allreduce", 1234, errorClass, "boom");
        assertEquals(type, e.getClass().getSimpleName());
        assertInstanceOf(MpiException.class, e);
        assertEquals(1234, e.errorCode());
        assertEquals(errorClass, e.errorClass());
        assertTrue(e.getMessage().startsWith("MPI_Allreduce failed: boom"), e.getMessage());
    }
}
