package org.troika.launcher.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.launcher.options.RunOptionTable.HOST_DISCOVERY_SCRIPT;
import static org.troika.launcher.options.RunOptionTable.LAUNCH_AGENT;
import static org.troika.launcher.options.RunOptionTable.MAX_NP;
import static org.troika.launcher.options.RunOptionTable.MIN_NP;
import static org.troika.launcher.options.RunOptionTable.RESET_LIMIT;
import static org.troika.launcher.options.RunOptionTable.SLOTS_PER_HOST;

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
import org.troika.wire.ElasticMessage;

class MpirunGenerationLauncherTest {
    static final HostPlan PLAN = HostPlan.assign("test",
            List.of(new HostSlots("a", 2, 2), new HostSlots("b", 2, 2)), 4);

    @Test
    void theLocalWorkerKeyIsInMpirunsOwnEnvironmentButNotOnItsCommandLine() {
        org.troika.launcher.spi.BackendPlan plan = new org.troika.launcher.spi.BackendPlan(
                new org.troika.common.exec.LaunchPlan(List.of("mpirun", "-x", "PATH", "java"), Map.of("PATH", "/bin")),
                Map.of(), List.of(), null);
        org.troika.launcher.spi.BackendPlan with = MpirunGenerationLauncher.withLocalWorkerKey(plan, Path.of("/k/key"));
        assertEquals(plan.launch().argv(), with.launch().argv());
        assertEquals("/k/key", with.launch().env().get("TROIKA_WORKER_SECRET_FILE"));
    }

    /** Issue 21: the key was added through BackendPlan's short constructor, which dropped the per-rank files. */
    @Test
    void theLocalWorkerKeyKeepsEveryOtherPartOfThePlan() {
        var rankOutput = new org.troika.launcher.spi.RankOutput(Path.of("/out"), 4,
                org.troika.launcher.spi.RankOutput.TagFormat.ORTE, null);
        org.troika.launcher.spi.BackendPlan plan = new org.troika.launcher.spi.BackendPlan(
                new org.troika.common.exec.LaunchPlan(List.of("mpirun", "true"), Map.of("PATH", "/bin"), Path.of("/w")),
                Map.of(Path.of("/tmp/hostfile"), "a slots=2\n"), List.of("a warning"), rankOutput);
        org.troika.launcher.spi.BackendPlan with = MpirunGenerationLauncher.withLocalWorkerKey(plan, Path.of("/k/key"));
        assertEquals(rankOutput, with.rankOutput());
        assertEquals(plan.files(), with.files());
        assertEquals(plan.warnings(), with.warnings());
        assertEquals(Path.of("/w"), with.launch().workDir());
    }

    @Test
    void anElasticGenerationOnOpenMpiRelaysItsDaemonsSoHostsGetTheKeyFromTheirTaskServices() {
        RunSettings auto = RunSettings.of(List.of("java", "Train"));
        var openMpi = org.troika.launcher.mpi.FlavorDetector.forFlavorName("openmpi");
        var mpirun = new org.troika.launcher.mpi.MpirunBackend();
        assertEquals(RunSettings.LaunchAgent.RELAY, MpirunGenerationLauncher.withRelayForKeys(auto, openMpi, mpirun)
                .remote().launchAgent());
        RunSettings ssh = auto.with(LAUNCH_AGENT, RunSettings.LaunchAgent.SSH);
        assertEquals(RunSettings.LaunchAgent.SSH, MpirunGenerationLauncher.withRelayForKeys(ssh, openMpi, mpirun)
                .remote().launchAgent());
    }

    /** Issue 21.4: a backend that starts every rank itself (srun) gets no relay: it has no daemons for one to start. */
    @Test
    void aBackendWithoutRelayedDaemonsKeepsItsSettings() {
        RunSettings auto = RunSettings.of(List.of("java", "Train"));
        org.troika.launcher.spi.LaunchBackend direct = new org.troika.launcher.spi.LaunchBackend() {
            @Override
            public String name() {
                return "direct";
            }

            @Override
            public Set<Capability> capabilities() {
                return Set.of(Capability.ELASTIC);
            }

            @Override
            public boolean isDefaultFor(org.troika.launcher.spi.LaunchContext ctx) {
                return false;
            }

            @Override
            public org.troika.launcher.spi.BackendPlan plan(org.troika.launcher.spi.LaunchContext ctx) {
                throw new AssertionError("not planned here");
            }
        };
        assertEquals(auto, MpirunGenerationLauncher.withRelayForKeys(auto,
                org.troika.launcher.mpi.FlavorDetector.forFlavorName("openmpi"), direct));
    }

    @Test
    void onlyTheStandbyHostsThatRunNoRankAreSparesNotTheUsablePoolBeyondTheGeneration() {
        // 10,000 usable hosts discovered, a generation on the first 64 (--max-np), two listed as standby (host:0)
        List<String> served = new java.util.ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            served.add("n" + i);
        }
        served.addAll(List.of("s1", "s2"));
        List<String> ranked = served.subList(0, 64);
        assertEquals(List.of("s1", "s2"), MpirunGenerationLauncher.spareHosts(served, java.util.Set.of("s2", "s1",
                "gone"), ranked), "in served order; a standby host no longer served is none");
        assertEquals(List.of(), MpirunGenerationLauncher.spareHosts(served, java.util.Set.of("n3"), ranked),
                "a standby host that runs ranks now is no spare");
    }

    /**
     * A spawn tells PRRTE a host's whole slot count (PMIX_ADD_HOST replaces it): the launch's ranks there, standby
     * ranks included, plus every rank spawned there since, ranks that left still counted; hosts with a daemon of the
     * launch (ranks staying or activated, ranks waiting) need no new one.
     */
    @Test
    void aSpawnCountsWhatTheLaunchAndEarlierSpawnsPlacedOnItsHost() {
        HostPlan launched = HostPlan.assign("test", List.of(new HostSlots("a", 2), new HostSlots("b", 1)), 3)
                .withSpares(List.of("s", "t")).withStandbyRanks(List.of("s"), 2);
        Map<String, Integer> placed = MpirunGenerationLauncher.placedPerHost(launched);
        assertEquals(Map.of("a", 2, "b", 1, "s", 2), placed, "t has a daemon and no process");
        // b leaves, a gets a third slot (beside its ranks), s activates one waiting rank and spawns one, c is new
        org.troika.launcher.elastic.World world = org.troika.launcher.elastic.World.of(HostPlan.assign("test",
                List.of(new HostSlots("a", 2), new HostSlots("b", 1)), 3));
        org.troika.launcher.elastic.WorldChange change = world.toward(List.of(new HostSlots("a", 3),
                new HostSlots("s", 3), new HostSlots("c", 1)), new org.troika.launcher.elastic.World.InPlace(true,
                true), Map.of("s", List.of(3, 4))).orElseThrow();
        assertEquals("[Join[host=a, count=1], Join[host=s, count=1], Join[host=c, count=1]]",
                change.join().toString());
        assertEquals(Set.of("a", "s"), MpirunGenerationLauncher.runningHosts(change, Map.of("s", List.of(3, 4))),
                "b's rank left: no process of the launch stays there; c has none yet");
        assertEquals(Set.of("a", "s", "t"), MpirunGenerationLauncher.runningHosts(change, Map.of("s", List.of(3, 4),
                "t", List.of(5))), "a host with a rank still waiting");
        assertEquals(Map.of("a", 3, "b", 1, "s", 3, "c", 1), MpirunGenerationLauncher.placedAfter(placed, change),
                "b's slot stays counted");
    }

    /**
     * Ranks spawned next to running ones take the smallest local ranks those leave free on the host (the launch's, the
     * activated standby ranks', earlier spawns'), and the host's local size; spawned ranks alone on a host send none.
     */
    @Test
    void aSpawnBesideRunningRanksTakesTheLocalRanksTheyLeaveFree() {
        HostPlan launched = HostPlan.assign("test", List.of(new HostSlots("a", 2), new HostSlots("b", 1)), 3)
                .withSpares(List.of("s")).withStandbyRanks(List.of("s"), 2);
        Map<Integer, Integer> locals = MpirunGenerationLauncher.launchLocals(launched);
        assertEquals(Map.of(0, 0, 1, 1, 2, 0, 3, 0, 4, 1), locals);
        org.troika.launcher.elastic.World world = org.troika.launcher.elastic.World.of(HostPlan.assign("test",
                List.of(new HostSlots("a", 2), new HostSlots("b", 1)), 3));
        org.troika.launcher.elastic.WorldChange change = world.toward(List.of(new HostSlots("a", 3),
                new HostSlots("s", 3), new HostSlots("c", 1)), new org.troika.launcher.elastic.World.InPlace(true,
                true), Map.of("s", List.of(3, 4))).orElseThrow();
        List<ElasticMessage.ChangeWorld.Spawn> sent = MpirunGenerationLauncher.spawns(change,
                MpirunGenerationLauncher.placedPerHost(launched), locals, change.waitingAfter(Map.of("s",
                        List.of(3, 4))));
        assertEquals(List.of(new ElasticMessage.ChangeWorld.Spawn("a", 1, 3, List.of(2), 3),
                new ElasticMessage.ChangeWorld.Spawn("s", 1, 3, List.of(2), 3),
                new ElasticMessage.ChangeWorld.Spawn("c", 1, 1)), sent);
        Map<Integer, Integer> after = MpirunGenerationLauncher.localsAfter(locals, sent, change.firstJoinId());
        assertEquals(2, after.get(change.firstJoinId()));
        assertEquals(0, after.get(change.firstJoinId() + 2), "alone on c");
        // a's rank with local 0 left since: two more on a take 0 and the first above the others
        org.troika.launcher.elastic.World grown = new org.troika.launcher.elastic.World(List.of(
                new org.troika.launcher.elastic.World.Member(1, "a"), new org.troika.launcher.elastic.World.Member(5,
                        "a"), new org.troika.launcher.elastic.World.Member(8, "a"),
                new org.troika.launcher.elastic.World.Member(9, "a")), 10, 8);
        org.troika.launcher.elastic.WorldChange more = new org.troika.launcher.elastic.WorldChange(List.of(),
                List.of(new org.troika.launcher.elastic.WorldChange.Join("a", 2)), 8, grown);
        assertEquals(List.of(new ElasticMessage.ChangeWorld.Spawn("a", 2, 6, List.of(0, 3), 4)),
                MpirunGenerationLauncher.spawns(more, Map.of("a", 4), Map.of(1, 1, 5, 2), Map.of()));
    }

    @Test
    void aGenerationIsAStaticLaunchOverItsHosts() {
        RunSettings base = RunSettings.of(List.of("java", "Train")).with(MIN_NP, 2).with(MAX_NP, 8)
                .with(SLOTS_PER_HOST, 2).with(RESET_LIMIT, 3).with(HOST_DISCOVERY_SCRIPT, Path.of("/bin/discover"));
        RunSettings g = MpirunGenerationLauncher.generationSettings(base, new Generation(2, Generation.Reason.FAILURE, PLAN));
        assertFalse(g.elastic().enabled());
        assertEquals(4, g.hosts().np());
        assertEquals(PLAN.hosts(), g.hosts().list());
        assertNull(g.elastic().resetLimit());
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
