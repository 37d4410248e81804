package org.troika.mpi;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;

class MpiLibraryTest {
    @Test
    void choosesTheLibraryOfTheLauncher() {
        assertAll(
                () -> assertEquals(List.of("/opt/x/libmpi.so"),
                        MpiLibrary.candidates(Map.of("TROIKA_LIBMPI", "/opt/x/libmpi.so", "PMI_RANK", "0"))),
                () -> assertEquals(List.of(MpiLibrary.OPEN_MPI),
                        MpiLibrary.candidates(Map.of("OMPI_COMM_WORLD_SIZE", "2", "PMI_RANK", "0"))),
                () -> assertEquals(List.of(MpiLibrary.MPICH), MpiLibrary.candidates(Map.of("PMI_RANK", "1"))),
                () -> assertEquals(List.of(MpiLibrary.MPICH), MpiLibrary.candidates(Map.of("MPI_LOCALRANKID", "0"))),
                () -> assertEquals(List.of(MpiLibrary.OPEN_MPI, MpiLibrary.MPICH), MpiLibrary.candidates(Map.of())));
    }

    @Test
    void choosesTheBackend() {
        assertAll(
                () -> assertEquals(MpiLibrary.Backend.JNA, MpiLibrary.backend(Map.of(), 17, false)),
                () -> assertEquals(MpiLibrary.Backend.JNA, MpiLibrary.backend(Map.of(), 25, false)),
                () -> assertEquals(MpiLibrary.Backend.FFM, MpiLibrary.backend(Map.of(), 25, true)),
                () -> assertEquals(MpiLibrary.Backend.JNA,
                        MpiLibrary.backend(Map.of("TROIKA_MPI_BACKEND", "jna"), 25, true)),
                () -> assertEquals(MpiLibrary.Backend.FFM,
                        MpiLibrary.backend(Map.of("TROIKA_MPI_BACKEND", "ffm"), 17, false)),
                () -> assertThrows(UsageException.class,
                        () -> MpiLibrary.backend(Map.of("TROIKA_MPI_BACKEND", "jni"), 25, true)));
    }

    @Test
    void emptyOverrideIsAUsageError() {
        UsageException e = assertThrows(UsageException.class, () -> MpiLibrary.candidates(Map.of("TROIKA_LIBMPI", " ")));
        assertEquals(true, e.getMessage().contains("TROIKA_LIBMPI"));
    }
}
