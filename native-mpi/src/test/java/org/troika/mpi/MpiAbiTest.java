package org.troika.mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.troika.mpi.spi.MpiAbi;
import org.troika.mpi.spi.NativeFunction;

/** The ABI tables the drop-in {@code mpi} package translates constants with, and function signatures. */
class MpiAbiTest {
    @Test
    void bothAbisDefineTheSameIntegerConstants() {
        assertEquals(MpiAbi.OpenMpi.INTS.keySet(), MpiAbi.Mpich.INTS.keySet());
        assertEquals(MpiAbi.OpenMpi.INTS.keySet(), MpiAbi.ints("mpich").keySet());
    }

    @Test
    void errorClassTablesNameTheSameClassesAndNumberThemUniquely() {
        assertEquals(MpiAbi.OpenMpi.ERROR_CLASSES.keySet(), MpiAbi.Mpich.ERROR_CLASSES.keySet());
        for (String abi : new String[] {"open-mpi", "mpich"}) {
            Set<Integer> values = new HashSet<>(MpiAbi.errorClasses(abi).values());
            assertEquals(MpiAbi.errorClasses(abi).size(), values.size(), abi + " numbers two classes alike");
        }
        // the numbers that differ, from the two mpi.h files
        assertEquals(15, MpiAbi.OpenMpi.ERROR_CLASSES.get("TRUNCATE"));
        assertEquals(14, MpiAbi.Mpich.ERROR_CLASSES.get("TRUNCATE"));
        assertEquals(7, MpiAbi.OpenMpi.ERROR_CLASSES.get("REQUEST"));
        assertEquals(19, MpiAbi.Mpich.ERROR_CLASSES.get("REQUEST"));
    }

    @Test
    void constantsThatDifferBetweenTheAbis() {
        assertEquals(-1, MpiAbi.OpenMpi.INTS.get("MPI_ANY_SOURCE"));
        assertEquals(-2, MpiAbi.Mpich.INTS.get("MPI_ANY_SOURCE"));
        assertEquals(1, MpiAbi.OpenMpi.INTS.get("MPI_CART"));
        assertEquals(2, MpiAbi.Mpich.INTS.get("MPI_CART"));
        assertEquals(0, MpiAbi.OpenMpi.INTS.get("MPI_COMM_TYPE_SHARED"));
        assertEquals(1, MpiAbi.Mpich.INTS.get("MPI_COMM_TYPE_SHARED"));
        assertEquals(8, MpiAbi.handleBytes("open-mpi"));
        assertEquals(4, MpiAbi.handleBytes("mpich"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "MPI_COMM_SELF, ompi_mpi_comm_self",
        "MPI_SUM, ompi_mpi_op_sum",
        "MPI_NO_OP, ompi_mpi_op_no_op",
        "MPI_OP_NULL, ompi_mpi_op_null",
        "MPI_REQUEST_NULL, ompi_request_null",
        "MPI_MESSAGE_NO_PROC, ompi_message_no_proc",
        "MPI_C_COMPLEX, ompi_mpi_c_float_complex",
        "MPI_2INT, ompi_mpi_2int",
        "MPI_ERRORS_ARE_FATAL, ompi_mpi_errors_are_fatal"})
    void openMpiPredefinedHandlesAreGlobalObjects(String name, String symbol) {
        assertEquals(symbol, MpiAbi.OpenMpi.symbol(name));
    }

    @Test
    void mpichPredefinedHandlesAreFixedIntegers() {
        assertEquals(0x44000001, MpiAbi.Mpich.HANDLES.get("MPI_COMM_SELF"));
        assertEquals(0x5800000c, MpiAbi.Mpich.HANDLES.get("MPI_MAXLOC"));
        assertTrue(MpiAbi.Mpich.POINTER_VARIABLES.contains("MPI_UNWEIGHTED"));
        assertFalse(MpiAbi.Mpich.HANDLES.containsKey("MPI_UNWEIGHTED"));
    }

    @Test
    void signaturesNameEachArgumentKind() {
        NativeFunction.Signature s = NativeFunction.Signature.parse("MPI_Type_vector", "iiiha");
        assertArrayEquals(new char[] {'i', 'i', 'i', 'h', 'a'}, s.kinds());
        assertFalse(s.returnsDouble());
        assertTrue(NativeFunction.Signature.parse("MPI_Wtick", "d:").returnsDouble());
        assertThrows(IllegalArgumentException.class, () -> NativeFunction.Signature.parse("MPI_X", "ix"));
        assertThrows(IllegalArgumentException.class, () -> s.checkArity(new long[] {1, 2}));
    }
}
