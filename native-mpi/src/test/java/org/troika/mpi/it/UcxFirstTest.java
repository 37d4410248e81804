package org.troika.mpi.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.troika.testkit.MpiJob;
import org.troika.testkit.MpiJob.Launcher;

/**
 * UCX loaded before troika-mpi loads MPI (MPICH 4.0.2's ch4:ucx): Mpi.init refuses with the reason and the fix
 * instead of going on with UCX's SIGSEGV handler over the JVM's, which crashed the JVM at an implicit null check.
 */
class UcxFirstTest {
    private static void assertRefused(MpiJob.Result result) {
        assertEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().contains("refused: libucs.so.0 (UCX) was loaded into this JVM before troika-mpi"),
                result.output());
        assertTrue(result.output().contains("UCX_ERROR_SIGNALS= (empty)"), result.output());
    }

    @Test
    void jnaRefusesWhenUcxCameFirst() {
        assertRefused(MpiJob.run(Launcher.MPICH, 1, MpiJob.defaultJava(), MpiJob.testClassPath(),
                UcxFirstMain.class.getName(), List.of(), Map.of("TROIKA_MPI_BACKEND", "jna"), 120));
    }

    @Test
    void ffmRefusesWhenUcxCameFirst() {
        assertRefused(RankJobs.run(Launcher.MPICH, 1, UcxFirstMain.class.getName(), List.of()));
    }
}
