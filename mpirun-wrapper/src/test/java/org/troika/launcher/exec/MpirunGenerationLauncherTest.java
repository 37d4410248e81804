package org.troika.launcher.exec;

import org.troika.launcher.mpi.FailedRank;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.troika.common.ElasticExitCodes;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.elastic.Generation;
import org.troika.launcher.elastic.GenerationResult;
import org.troika.launcher.elastic.RankExit;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;

class MpirunGenerationLauncherTest {
    static final HostPlan PLAN = HostPlan.assign("test",
            List.of(new HostSlots("a", 2, 2), new HostSlots("b", 2, 2)), 4);

    @Test
    void aHangBlamesTheStuckRankAndRetriesWhenEveryRankWasInsideTheSameCollective() {
        org.troika.common.ProgressReport in = new org.troika.common.ProgressReport(0, 1, 0, 0, 7, 6, "allreduce", "");
        var stuck = new org.troika.launcher.watchdog.HangReport.RankState(3, PLAN.slots().get(3).host(), 9000, null);
        var waiting = new org.troika.launcher.watchdog.HangReport.RankState(0, PLAN.slots().get(0).host(), 9000, in);
        GenerationResult blamed = new GenerationResult(MpirunGenerationLauncher.hangExits(PLAN,
                new org.troika.launcher.watchdog.HangReport(java.time.Duration.ofSeconds(9), true, List.of(stuck),
                        List.of(waiting), List.of())), true);
        assertEquals(List.of(new RankExit(3, PLAN.slots().get(3).host(), 124, false)), blamed.failures());
        assertEquals(PLAN.size(), blamed.exits().size());
        GenerationResult nobody = new GenerationResult(MpirunGenerationLauncher.hangExits(PLAN,
                new org.troika.launcher.watchdog.HangReport(java.time.Duration.ofSeconds(9), true, List.of(),
                        List.of(waiting), List.of())), true);
        assertTrue(nobody.failures().isEmpty(), "no host to blacklist: the next generation retries");
        assertFalse(nobody.anySuccess() || nobody.allHostsUpdated());
    }

    @Test
    void aCleanRunIsASuccessOfEveryRank() {
        List<RankExit> exits = MpirunGenerationLauncher.exits(PLAN, 0, null, Set.of());
        assertEquals(4, exits.size());
        assertTrue(new GenerationResult(exits, true).anySuccess());
        assertTrue(exits.stream().noneMatch(RankExit::collateral));
    }

    @Test
    void aCommonHostsUpdatedExitIsACleanLeaveForEveryRank() {
        GenerationResult named = new GenerationResult(MpirunGenerationLauncher.exits(PLAN, 75,
                new FailedRank(2, "node", 75), Set.of()), true);
        assertTrue(named.allHostsUpdated(), named.toString());
        GenerationResult unnamed = new GenerationResult(MpirunGenerationLauncher.exits(PLAN, 75, null, Set.of()), true);
        assertTrue(unnamed.allHostsUpdated(), unnamed.toString());
    }

    @Test
    void onlyTheFirstFailedRankBlamesItsHostAndItsHostComesFromThePlan() {
        List<RankExit> exits = MpirunGenerationLauncher.exits(PLAN, 137, new FailedRank(3, "kernel-name", 137), Set.of());
        GenerationResult r = new GenerationResult(exits, true);
        assertEquals(List.of(new RankExit(3, "b", 137, false)), r.failures());
        assertEquals(RankExit.Kind.FAILURE, exits.get(0).kind());
        assertTrue(exits.subList(1, 4).stream().allMatch(e -> e.kind() == RankExit.Kind.CASUALTY), exits.toString());
    }

    @Test
    void aFailureNoRankWasNamedForBlacklistsNothing() {
        GenerationResult r = new GenerationResult(MpirunGenerationLauncher.exits(PLAN, 1, null, Set.of()), true);
        assertEquals(List.of(), r.failures());
        assertFalse(r.anySuccess());
        assertFalse(r.allHostsUpdated());
    }

    @Test
    void aLostHostsRanksAreTheFailuresWhateverMpirunSaid() {
        List<RankExit> exits = MpirunGenerationLauncher.exits(PLAN, 1, new FailedRank(0, "a", 76), Set.of("b"));
        GenerationResult r = new GenerationResult(exits, false);
        assertEquals(List.of(new RankExit(2, "b", 255, false), new RankExit(3, "b", 255, false)), r.failures());
        assertTrue(exits.stream().filter(e -> e.host().equals("a")).allMatch(RankExit::collateral));
    }

    @Test
    void theLocalWorkerKeyIsInMpirunsOwnEnvironmentButNotOnItsCommandLine() {
        org.troika.launcher.spi.BackendPlan plan = new org.troika.launcher.spi.BackendPlan(
                new org.troika.common.exec.LaunchPlan(List.of("mpirun", "-x", "PATH", "java"), Map.of("PATH", "/bin")),
                Map.of(), List.of());
        org.troika.launcher.spi.BackendPlan with = MpirunGenerationLauncher.withLocalWorkerKey(plan, Path.of("/k/key"));
        assertEquals(plan.launch().argv(), with.launch().argv());
        assertEquals("/k/key", with.launch().env().get("TROIKA_WORKER_SECRET_FILE"));
    }

    @Test
    void anElasticGenerationOnOpenMpiRelaysItsDaemonsSoHostsGetTheKeyFromTheirTaskServices() {
        RunSettings auto = RunSettings.builder().command(List.of("java", "Train")).build();
        assertEquals(RunSettings.LaunchAgent.RELAY, MpirunGenerationLauncher.withRelayForKeys(auto,
                org.troika.launcher.mpi.FlavorDetector.forFlavorName("openmpi")).launchAgent());
        RunSettings ssh = auto.toBuilder().launchAgent(RunSettings.LaunchAgent.SSH).build();
        assertEquals(RunSettings.LaunchAgent.SSH, MpirunGenerationLauncher.withRelayForKeys(ssh,
                org.troika.launcher.mpi.FlavorDetector.forFlavorName("openmpi")).launchAgent());
    }

    @Test
    void aGenerationIsAStaticLaunchOverItsHosts() {
        RunSettings base = RunSettings.builder().minNp(2).maxNp(8).slotsPerHost(2).resetLimit(3)
                .hostDiscoveryScript(Path.of("/bin/discover")).command(List.of("java", "Train")).build();
        RunSettings g = MpirunGenerationLauncher.generationSettings(base, new Generation(2, Generation.Reason.FAILURE, PLAN));
        assertFalse(g.elastic());
        assertEquals(4, g.np());
        assertEquals(PLAN.hosts(), g.hosts());
        assertNull(g.resetLimit());
        assertEquals(List.of("java", "Train"), g.command());
    }

    @Test
    void ranksGetTheGenerationAndTheJobButNoLauncherPathForTheWorkerKey() {
        Map<String, String> e = MpirunGenerationLauncher.rankEnv(Map.of("PATH", "/bin",
                "TROIKA_WORKER_SECRET_FILE", "/tmp/outer-job/key"), "e1-ab", 3, "127.0.0.1:4000");
        assertEquals("1", e.get("TROIKA_ELASTIC"));
        assertEquals("e1-ab", e.get("TROIKA_JOB_ID"));
        assertEquals("3", e.get("TROIKA_ELASTIC_GENERATION"));
        assertEquals("127.0.0.1:4000", e.get("TROIKA_WORKER_ADDR"));
        // the exported environment never names a file on the launcher's machine: remote hosts get their own copy
        assertNull(e.get("TROIKA_WORKER_SECRET_FILE"));
        assertEquals("0", e.get("OMPI_MCA_odls_base_sigkill_timeout"));
        assertEquals("3", MpirunGenerationLauncher.rankEnv(Map.of("OMPI_MCA_odls_base_sigkill_timeout", "3"), "j", 1,
                "127.0.0.1:1").get("OMPI_MCA_odls_base_sigkill_timeout"), "the user's setting wins");
        assertEquals(ElasticExitCodes.HOSTS_UPDATED, 75);
    }

    @Test
    void javaRanksOfElasticJobsGetClassDataSharingUnlessTheUserTurnedItOff() {
        assertEquals("1", MpirunGenerationLauncher.rankEnv(Map.of(), "j", 1, "127.0.0.1:1").get("TROIKA_JAVA_CDS"));
        assertEquals("0", MpirunGenerationLauncher.rankEnv(Map.of("TROIKA_JAVA_CDS", "0"), "j", 1, "127.0.0.1:1")
                .get("TROIKA_JAVA_CDS"), "the user's setting wins");
    }
}
