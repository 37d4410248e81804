package org.troika.mpi.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.troika.testkit.MpiJob;
import org.troika.testkit.MpiJob.Launcher;

/**
 * {@link org.troika.mpi.Communicator#spawn}, {@link org.troika.mpi.Mpi#parent()} and
 * {@link org.troika.mpi.Intercommunicator#merge} on each MPI under test, on one machine: 2 ranks spawn 2 more of
 * themselves and all 4 allreduce over the merged world. Open MPI 4.1.4 and 5.0.7 can (JNA; 5.0.7 with FFM too);
 * Debian's MPICH 4.0.2 (ch4:ucx) cannot: its spawn fails, which the binding reports as an {@code MpiException}
 * instead of aborting (docs/elastic.md, what each MPI supports).
 */
@Tag("integration")
class SpawnIntegrationTest {
    private static final Pattern MERGED = Pattern.compile("merged rank (\\d+) of (\\d+) sum (\\d+) parent (\\w+)");

    @Test
    void openMpi4SpawnsAndMerges() {
        assertGrew(MpiJob.run(Launcher.OPEN_MPI, 2, SpawnRankMain.class.getName(), List.of("2"), 120));
    }

    @Test
    void openMpi5SpawnsAndMerges() {
        assertGrew(MpiJob.run(Launcher.OPEN_MPI_5, 2, MpiJob.defaultJava(Launcher.OPEN_MPI_5), MpiJob.testClassPath(),
                SpawnRankMain.class.getName(), List.of("2"), MpiJob.LOOPBACK_TCP, 120));
    }

    @Test
    void openMpi5SpawnsAndMergesWithFfm() {
        assertGrew(RankJobs.run(Launcher.OPEN_MPI_5, 2, SpawnRankMain.class.getName(), List.of("2"), MpiJob.LOOPBACK_TCP));
    }

    @Test
    void mpichCannotSpawn() {
        MpiJob.Result r = MpiJob.run(Launcher.MPICH, 2, SpawnRankMain.class.getName(), List.of("1"), 120);
        assertTrue(r.output().contains("spawn failed: MpiException") && r.output().contains("MPI_Comm_spawn"),
                r.output());
        assertTrue(r.exitCode() != 0, r.output());
    }

    private static void assertGrew(MpiJob.Result r) {
        assertEquals(0, r.exitCode(), r.output());
        boolean[] seen = new boolean[4];
        for (String line : r.lines()) {
            Matcher m = MERGED.matcher(line);
            if (m.find()) {
                int rank = Integer.parseInt(m.group(1));
                seen[rank] = true;
                assertEquals("4", m.group(2), line);
                assertEquals("4", m.group(3), line);
                // the parents keep ranks 0 and 1, the children come last
                assertEquals(rank >= 2, Boolean.parseBoolean(m.group(4)), line);
            }
        }
        for (int r2 = 0; r2 < 4; r2++) {
            assertTrue(seen[r2], "no line from merged rank " + r2 + ":\n" + r.output());
        }
    }
}
