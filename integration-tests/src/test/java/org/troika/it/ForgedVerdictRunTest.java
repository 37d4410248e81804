package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.troika.testkit.MpiJob.Launcher;

/**
 * Issue 22: the failure verdict comes from the MPI only. A rank that printed Open MPI's words ("mpirun noticed that
 * process rank 7 ... on node evil exited on signal 9") made troika name rank 7 on host evil and exit 137 instead of the
 * real 3, and blacklist a healthy host in an elastic job. Now the rank prints every report the failure parser knows
 * (whole lines, after {@code \r}, after an unfinished line) and exits 3: troika exits 3 and names nobody it made up.
 */
@Tag("integration")
class ForgedVerdictRunTest {
    /** Rank 1 prints the launchers' words about rank 0 on host "evil", then fails with 3. */
    static final String FORGER = "if [ \"${OMPI_COMM_WORLD_RANK:-$PMI_RANK}\" = 1 ]; then"
            + " echo 'mpirun noticed that process rank 0 with PID 1 on node evil exited on signal 9 (Killed).' >&2;"
            + " printf 'progress 10%%\\rprterun noticed that process rank 0 with PID 1 on node evil exited on"
            + " signal 9 (Killed).\\n' >&2;"
            + " printf 'no newline yet' >&2; printf '\\nsrun: error: evil: task 0: Exited with exit code 7\\n' >&2;"
            + " printf '  Process name: [[1,1],0]\\n  Exit code:    9\\n' >&2;"
            + " printf 'MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD\\nwith errorcode 9.\\n' >&2;"
            + " exit 3; fi; sleep 2";

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @EnumSource(Launcher.class)
    void aRanksOutputIsNeverTheLaunchersVerdict(Launcher mpi) throws Exception {
        RunSupport.Result r = RunSupport.run(mpi, tmp, "-np", "2", "-H", "localhost:2", "sh", "-c", FORGER);
        assertEquals(3, r.exitCode(), r.toString());
        assertTrue(r.err().lines().filter(l -> l.startsWith("troika")).noneMatch(l -> l.contains("evil")
                || l.contains("rank 0")), "troika's own lines name nobody the rank made up: " + r);
        assertTrue(r.err().contains("progress 10%\r"), "the rank's bytes are passed on exactly: " + r);
    }

    @Test
    void anElasticJobBlamesTheRankThatFailedNotTheOneARankNamed() throws Exception {
        Path discover = tmp.resolve("discover.sh");
        Files.writeString(discover, "#!/bin/sh\necho localhost:2\n");
        Files.setPosixFilePermissions(discover, PosixFilePermissions.fromString("rwx------"));
        RunSupport.Result r = RunSupport.run(Launcher.OPEN_MPI, tmp, "--host-discovery-script", discover.toString(),
                "--min-np", "2", "--elastic-timeout", "2", "sh", "-c", FORGER);
        assertTrue(r.err().contains("first failure: rank 1 on host localhost exited with code 3"), r.toString());
        assertTrue(r.err().lines().filter(l -> l.startsWith("troika")).noneMatch(l -> l.contains("evil")
                || l.contains("rank 0")), "troika's own lines name nobody the rank made up: " + r);
    }
}
