package org.troika.worker.elastic.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.troika.common.ElasticExitCodes;
import org.troika.testkit.MpiJob;
import org.troika.testkit.MpiJob.Launcher;

/**
 * Two generations of a real MPI job (one {@code mpirun} each) through the worker API: a host update ends the
 * first at the same commit on every rank; the second, one rank larger, starts every rank (the new fake host's
 * included) from that commit via the MPI broadcast, runs the reset callbacks, and finishes with no step lost or
 * repeated.
 */
@Tag("integration")
class ElasticMpiIntegrationTest {
    @TempDir
    Path nodes;

    @ParameterizedTest
    @EnumSource(Launcher.class)
    void hostUpdateThenLargerGenerationCarriesTheCommittedState(Launcher launcher) {
        String job = "it-" + launcher.name().toLowerCase();
        MpiJob.Result g1 = MpiJob.run(launcher, 2, ElasticRankMain.class.getName(),
                List.of(nodes.toString(), job, "1", "a,b", "10", "3"), 300);
        assertNotEquals(0, g1.exitCode(), g1.output());
        for (int r = 0; r < 2; r++) {
            assertTrue(g1.lines().contains("rank " + r + " first=0 step=3 sum=6 w=0.0 code="
                    + ElasticExitCodes.HOSTS_UPDATED), g1.output());
        }

        MpiJob.Result g2 = MpiJob.run(launcher, 3, ElasticRankMain.class.getName(),
                List.of(nodes.toString(), job, "2", "a,b,c", "6", "0"), 300);
        assertEquals(0, g2.exitCode(), g2.output());
        for (int r = 0; r < 3; r++) {
            assertTrue(g2.lines().contains("rank " + r + " reset size=3"), g2.output());
            assertTrue(g2.lines().contains("rank " + r + " first=3 step=6 sum=21 w=0.0 code=0"), g2.output());
        }
    }
}
