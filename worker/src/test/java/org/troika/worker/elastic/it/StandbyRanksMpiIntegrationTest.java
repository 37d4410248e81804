package org.troika.worker.elastic.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.common.TroikaEnv;
import org.troika.testkit.MpiJob;
import org.troika.testkit.MpiJob.Launcher;
import org.troika.worker.elastic.StandbyRankMain;

/**
 * Standby ranks on Open MPI 5.0.7 under ULFM (issue 25, {@code troika run --standby-ranks}): a launch of 4 whose ranks
 * 2 and 3 wait outside the world of 0 and 1 ({@link StandbyRankMain}). An activation merges a waiting rank into the
 * world without starting a process; the world's leader dismisses the ones never activated when it ends, and the job
 * ends by itself (a standby rank that waited forever would keep mpirun up until the test's timeout).
 */
@Tag("integration")
class StandbyRanksMpiIntegrationTest {
    @TempDir
    Path nodes;

    private MpiJob.Result run(String activate) {
        return MpiJob.run(Launcher.OPEN_MPI_5, List.of("--with-ft", "ulfm"), 4, MpiJob.defaultJava(Launcher.OPEN_MPI_5),
                MpiJob.testClassPath(), StandbyRankMain.class.getName(), List.of(nodes.toString(), activate),
                Map.of(TroikaEnv.ELASTIC_STANDBY_FROM, "2", TroikaEnv.FAULT_TOLERANCE, "shrink"), 180);
    }

    @Test
    void anActivatedStandbyRankJoinsTheWorldAndTheOtherIsDismissedAtItsEnd() {
        MpiJob.Result r = run("3");
        assertEquals(0, r.exitCode(), r.output());
        assertLines(r, "id 0 rank 0 size 2 sum 2", "id 1 rank 1 size 2 sum 2", "id 3 joined rank 2 size 3",
                "id 0 rank 0 size 3 sum 3", "id 1 rank 1 size 3 sum 3", "id 3 rank 2 size 3 sum 3",
                "troika elastic: standby rank 2 ends: dismissed: the training ended");
        assertTrue(r.lines().stream().noneMatch(l -> l.startsWith("id 2 ")), "rank 2 never joined:\n" + r.output());
    }

    @Test
    void twoStandbyRanksActivatedInOneChangeJoinInItsOrder() {
        MpiJob.Result r = run("3,2");
        assertEquals(0, r.exitCode(), r.output());
        assertLines(r, "id 3 joined rank 2 size 4", "id 2 joined rank 3 size 4", "id 0 rank 0 size 4 sum 4",
                "id 1 rank 1 size 4 sum 4", "id 3 rank 2 size 4 sum 4", "id 2 rank 3 size 4 sum 4");
        assertTrue(r.lines().stream().noneMatch(l -> l.contains("standby rank")), "nobody dismissed:\n" + r.output());
    }

    @Test
    void whenTheLeaderDiesTheNextOneStillDismissesTheStandbyRanks() {
        MpiJob.Result r = run("kill0");
        assertLines(r, "id 1 shrunk true", "id 1 rank 0 size 1 sum 1",
                "troika elastic: standby rank 2 ends: dismissed: the training ended",
                "troika elastic: standby rank 3 ends: dismissed: the training ended");
    }

    @Test
    void afterTheLeaderDiedTheNextOneActivatesAStandbyRank() {
        // rank 3 waits for rank 0 first; once that rank is dead its receive fails and it takes rank 1's activation
        MpiJob.Result r = run("kill0,3");
        assertEquals(0, r.exitCode(), r.output());
        assertLines(r, "id 1 shrunk true", "id 3 joined rank 1 size 2", "id 1 rank 0 size 2 sum 2",
                "id 3 rank 1 size 2 sum 2", "troika elastic: standby rank 2 ends: dismissed: the training ended");
    }

    @Test
    void whenTheLeaderLeavesTheWorldTheNextOneActivatesAStandbyRankInTheSameChange() {
        // rank 0 leaves by the split and ends its process (no MPI_Finalize): the waiting rank passes it under ULFM
        MpiJob.Result r = run("leave0,3");
        assertEquals(0, r.exitCode(), r.output());
        assertLines(r, "troika elastic: rank 0 leaves: its host left the job", "id 3 joined rank 1 size 2",
                "id 1 rank 0 size 2 sum 2", "id 3 rank 1 size 2 sum 2",
                "troika elastic: standby rank 2 ends: dismissed: the training ended");
        assertTrue(r.lines().stream().noneMatch(l -> l.contains("change refused")), r.output());
    }

    private static void assertLines(MpiJob.Result r, String... lines) {
        for (String line : lines) {
            assertTrue(r.lines().stream().anyMatch(l -> l.endsWith(line)), "no '" + line + "':\n" + r.output());
        }
    }
}
