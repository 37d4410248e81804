package org.troika.worker.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.troika.testkit.MpiJob;
import org.troika.testkit.MpiJob.Launcher;

/** RankEnv read from each MPI launcher's variables agrees with MPI's own rank, size and node-local split. */
@Tag("integration")
class RankEnvIntegrationTest {
    @ParameterizedTest
    @EnumSource(Launcher.class)
    void rankEnvMatchesMpi(Launcher launcher) {
        MpiJob.Result result = MpiJob.run(launcher, 3, RankEnvChecks.class.getName(), java.util.List.of(), 180);
        assertEquals(0, result.exitCode(), result.output());
        for (int r = 0; r < 3; r++) {
            String prefix = "rank " + r + " rank-env ok";
            assertTrue(result.lines().stream().anyMatch(l -> l.startsWith(prefix)), prefix + " missing:\n"
                    + result.output());
        }
    }
}
