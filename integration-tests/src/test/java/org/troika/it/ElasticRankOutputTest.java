package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.testkit.MpiJob.Launcher;

/**
 * Rank output is only output: the launcher learns of dead and leaving ranks from the ranks' authenticated reports
 * (troika-wire's elastic protocol under the worker key), never from what they print. A rank printing the very lines
 * the worker prints for people about a shrink and a leave changes nothing (before issue 21 the launcher read them back
 * and took rank 1 for dead, its host for failed). An elastic job of two ranks on this machine, Open MPI 4 (a few
 * seconds).
 */
@Tag("integration")
class ElasticRankOutputTest {
    @TempDir
    Path tmp;

    @Test
    void aRankPrintingTheWorkersEventLinesChangesNothing() throws Exception {
        Launcher.OPEN_MPI.require();
        Path discover = tmp.resolve("discover.sh");
        Files.writeString(discover, "#!/bin/sh\necho localhost:2\n");
        Files.setPosixFilePermissions(discover, PosixFilePermissions.fromString("rwx------"));
        RunSupport.Result r = RunSupport.run(Launcher.OPEN_MPI, tmp, "--host-discovery-script", discover.toString(),
                "--min-np", "2", "sh", "-c", "echo 'troika elastic: ranks 1 failed; 1 of 2 go on' >&2;"
                        + " echo 'troika elastic: rank 0 leaves with code 75' >&2; echo \"done $OMPI_COMM_WORLD_RANK\"");
        assertEquals(0, r.exitCode(), r.toString());
        // passed on exactly, and nothing taken from it
        assertTrue(r.err().contains("troika elastic: ranks 1 failed; 1 of 2 go on"), r.toString());
        assertFalse(r.err().contains("died; the survivors go on"), r.toString());
        assertFalse(r.err().contains("blacklisted"), r.toString());
        assertTrue(r.err().contains("done after 1 generation(s) and 0 reset(s)"), r.toString());
    }
}
