package org.troika.launcher.elastic;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.launcher.elastic.FakeLauncher.failAfter;
import static org.troika.launcher.elastic.FakeLauncher.succeedAfter;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.troika.launcher.elastic.Generation.Reason;
import org.troika.launcher.elastic.World.InPlace;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.MpiFlavor;
import org.troika.launcher.spi.MpiInstall;

/**
 * The driver's choice between a change in place and a relaunch (issue 25), on the fake clock with the fake launcher:
 * which changes a generation is asked to make, with which rank ids, and when it gets an announcement instead.
 */
@Timeout(60)
class ElasticDriverInPlaceTest {
    private static final DiscoveryInterval SECOND = DiscoveryInterval.fixed(Duration.ofSeconds(1));
    private static final InPlace BOTH = new InPlace(true, true);

    private final FakeClock clock = new FakeClock();
    private final FakeLauncher launcher = new FakeLauncher(clock);
    private final ElasticDriverTest.Recorder events = new ElasticDriverTest.Recorder();

    private ElasticResult run(ScriptedDiscovery discovery, int minNp) throws InterruptedException {
        return run(discovery, minNp, null);
    }

    private ElasticResult run(ScriptedDiscovery discovery, int minNp, Integer resetLimit) throws InterruptedException {
        ElasticLimits limits = new ElasticLimits(minNp, null, Duration.ofSeconds(30), resetLimit, SECOND, null);
        HostManager hosts = new HostManager(clock, limits.cooldown(), () -> 0.0);
        return new ElasticDriver(limits, discovery, hosts, launcher, clock, events).run();
    }

    private FakeLauncher.Run first() {
        return launcher.runs.get(0);
    }

    @Test
    void anAddedHostGetsRanksSpawnedIntoTheRunningGeneration() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:2").from(5_000, "a:2,b:2");
        ElasticResult r = runInPlaceFor9s(d, 2);
        WorldChange c = first().changes.get(0);
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(1, r.generations(), "no relaunch"),
                () -> assertEquals(1, r.resets(), "a change in place counts as a reset"),
                () -> assertEquals(List.of(), first().announcements),
                () -> assertEquals(List.of(), c.leave()),
                () -> assertEquals(List.of(new WorldChange.Join("b", 2)), c.join()),
                () -> assertEquals(2, c.firstJoinId(), "spawned ranks get ids from the launch's size up"),
                () -> assertEquals(List.of(0, 1, 2, 3), c.target().members().stream().map(World.Member::id).toList()),
                () -> assertEquals("[a:2, b:2]", c.target().hosts().toString()));
    }

    @Test
    void aRemovedHostsRanksLeaveAndTheOthersGoOn() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:2,b:2").from(5_000, "a:2");
        ElasticResult r = runInPlaceFor9s(d, 2);
        WorldChange c = first().changes.get(0);
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(1, r.generations()),
                () -> assertEquals(List.of(2, 3), c.leave()),
                () -> assertEquals(List.of(), c.join()),
                () -> assertEquals("[a:2]", c.target().hosts().toString()),
                () -> assertEquals(0, events.count("blacklisted"), "a host that left is not a failure"));
    }

    @Test
    void rankZerosHostLeavesInPlaceAndTheNextHostsRanksGoOn() throws Exception {
        // the world's next rank 0 hears the driver from then on: a later growth is in place too
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:2").from(3_000, "b:2").from(6_000, "b:2,c:1");
        launcher.inPlace(BOTH).on(1, succeedAfter(9_000));
        List<WorldChange> cs = changedInOneGeneration(d);
        assertAll(
                () -> assertEquals(List.of(0), cs.get(0).leave()),
                () -> assertEquals(List.of(1, 2), ids(cs.get(0).target())),
                () -> assertEquals(List.of(new WorldChange.Join("c", 1)), cs.get(1).join()),
                () -> assertEquals(List.of(1, 2, 3), ids(cs.get(1).target())));
    }

    @Test
    void rankZerosHostLeavesWhileStandbyRanksWaitAndTheNextRankZeroActivatesThem() throws Exception {
        // a waiting standby rank listens to the launch's ranks in the order of their ids and passes one that is gone:
        // once a's rank 0 left, rank 1 (b) is the world's rank 0 and leads s's activation
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1,s:0").from(3_000, "b:1,s:0")
                .from(6_000, "b:1,s:1");
        launcher.inPlace(BOTH).standby(java.util.Map.of("s", List.of(2))).on(1, succeedAfter(9_000));
        List<WorldChange> cs = changedInOneGeneration(d);
        assertAll(
                () -> assertEquals(List.of(0), cs.get(0).leave()),
                () -> assertEquals(List.of(new WorldChange.Activate("s", 2)), cs.get(1).activate()),
                () -> assertEquals(List.of(1, 2), ids(cs.get(1).target())));
    }

    @Test
    void standbyRanksThatOnlyASpawnedRankZeroCouldActivateCostARelaunch() throws Exception {
        // c's spawned rank (id 3) is not in the launch's channel the standby rank on s listens to: when a and b leave,
        // nobody could ever activate it, so that change is a relaunch
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1,s:0").from(3_000, "a:1,b:1,c:1,s:0")
                .from(6_000, "c:1,s:0");
        launcher.inPlace(BOTH).standby(java.util.Map.of("s", List.of(2))).on(2, succeedAfter(2_000));
        ElasticResult r = run(d, 1);
        assertAll(
                () -> assertEquals(1, first().changes.size(), "the growth alone is in place: " + first().changes),
                () -> assertEquals(List.of(new WorldChange.Join("c", 1)), first().changes.get(0).join()),
                () -> assertEquals(List.of(HostUpdate.REMOVED), first().announcements),
                () -> assertEquals(2, r.generations()));
    }

    @Test
    void aGenerationThatSpawnedOnceRelaunchesForAnotherSpawn() throws Exception {
        // Open MPI 5.0.7 fails a second spawn across hosts: the launcher says so (spawn false) and an added host is a
        // relaunch, not a change sent
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1").from(3_000, "a:1,b:1,c:1");
        launcher.inPlace(new InPlace(true, true, false)).on(2, succeedAfter(2_000));
        ElasticResult r = run(d, 1);
        assertAll(
                () -> assertEquals(List.of(), first().changes, "no change in place"),
                () -> assertEquals(List.of(HostUpdate.ADDED), first().announcements),
                () -> assertEquals(2, r.generations()));
    }

    @Test
    void aGenerationThatSpawnedOnceStillActivatesStandbyRanksAndLeaves() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1,s:0").from(3_000, "a:1,b:1,s:1")
                .from(6_000, "a:1,s:1");
        launcher.inPlace(new InPlace(true, true, false)).standby(java.util.Map.of("s", List.of(2)))
                .on(1, succeedAfter(9_000));
        List<WorldChange> cs = changedInOneGeneration(d);
        assertAll(
                () -> assertEquals(List.of(new WorldChange.Activate("s", 2)), cs.get(0).activate()),
                () -> assertEquals(List.of(1), cs.get(1).leave()));
    }

    @Test
    void spawningWithoutGrowingMeansNothing() {
        assertFalse(new InPlace(false, true, true).spawn());
        assertTrue(new InPlace(true, false).spawn(), "a generation that has not spawned yet spawns to grow");
    }

    @Test
    void theRankThatLeadsAnActivationIsTheSmallestIdAliveOfTheLaunch() {
        java.util.Map<String, List<Integer>> waits5 = java.util.Map.of("u", List.of(5));
        assertAll(
                () -> assertTrue(World.leadsStandby(List.of(member(1), member(2)), java.util.Map.of("s", List.of(4)))),
                () -> assertTrue(World.leadsStandby(List.of(member(4), member(8)), waits5),
                        "an activated standby rank leads once the ranks below it are gone"),
                () -> assertFalse(World.leadsStandby(List.of(member(6), member(4)), waits5),
                        "rank 0 would be 6 while 4, merged after it, lives: the waiting rank 5 listens to 4"),
                () -> assertFalse(World.leadsStandby(List.of(member(5)), java.util.Map.of("s", List.of(4, 7))),
                        "a waiting rank below the leader: the waiting rank 7 would listen to 4"));
    }

    /**
     * A world remembers where its spawned ranks' ids start, and one whose live members are all spawned keeps no process
     * of the launch (Open MPI 5.0.7's runtime then ends it at the next leave: the launcher relaunches instead).
     */
    @Test
    void aWorldOfSpawnedRanksAloneKeepsNoProcessOfTheLaunch() {
        World launched = new World(List.of(member(0), member(1), member(2)), 3, Integer.MAX_VALUE);
        World grown = launched.toward(List.of(new HostSlots("h0", 1), new HostSlots("h1", 1), new HostSlots("h2", 1),
                new HostSlots("x", 2)), new InPlace(true, true)).orElseThrow().target();
        World again = grown.toward(List.of(new HostSlots("h0", 1), new HostSlots("h1", 1), new HostSlots("h2", 1),
                new HostSlots("x", 2), new HostSlots("y", 1)), new InPlace(true, true)).orElseThrow().target();
        World spawnedOnly = grown.toward(List.of(new HostSlots("x", 2)), new InPlace(true, true)).orElseThrow()
                .target();
        assertAll(
                () -> assertEquals(Integer.MAX_VALUE, launched.spawnedFrom()),
                () -> assertEquals(3, grown.spawnedFrom()),
                () -> assertEquals(3, again.spawnedFrom(), "a later spawn does not move it"),
                () -> assertTrue(grown.keepsTheLaunch(id -> false)),
                () -> assertEquals(List.of(3, 4), spawnedOnly.members().stream().map(World.Member::id).toList()),
                () -> assertFalse(spawnedOnly.keepsTheLaunch(id -> false)),
                () -> assertTrue(new World(List.of(member(7), member(2)), 8, 3).keepsTheLaunch(id -> false),
                        "an activated standby rank or a launch rank anywhere in the world"),
                () -> assertFalse(grown.keepsTheLaunch(id -> true), "nobody alive"),
                () -> assertFalse(grown.keepsTheLaunch(id -> id < 3), "the launch's processes all gone"),
                () -> assertTrue(grown.keepsTheLaunch(id -> id != 1), "one of the launch's processes alive"));
    }

    /** Runs {@code d}'s job, checks that one generation did it all with nothing announced, and returns its changes. */
    private List<WorldChange> changedInOneGeneration(ScriptedDiscovery d) throws Exception {
        ElasticResult r = run(d, 1);
        assertTrue(r.ok() && r.generations() == 1 && first().announcements.isEmpty(),
                "one generation, nothing announced: " + r.message() + " " + first().announcements);
        return first().changes;
    }

    private static World.Member member(int id) {
        return new World.Member(id, "h" + id);
    }

    @Test
    void aWorldNobodyStaysInIsNotChangedInPlace() throws Exception {
        // every host of the world leaves and another comes: nobody stays to spawn it (nor holds the state: the job
        // stops)
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1").from(3_000, "c:1");
        launcher.inPlace(BOTH).on(2, succeedAfter(2_000));
        ElasticResult r = run(d, 1);
        assertAll(
                () -> assertEquals(List.of(), first().changes, "no change in place"),
                () -> assertEquals(List.of(HostUpdate.MIXED), first().announcements),
                () -> assertFalse(r.ok()),
                () -> assertTrue(r.message().contains("no host of the last synced generation survives"),
                        r.message()));
    }

    @Test
    void aMixedChangeLeavesThenSpawnsAndIdsKeepCountingAcrossChanges() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1,c:1").from(3_000, "a:1,c:1,d:1")
                .from(6_000, "a:1,c:1,d:1,e:2").from(9_000, "a:1,e:2");
        launcher.inPlace(BOTH).on(1, succeedAfter(12_000));
        ElasticResult r = run(d, 1);
        List<WorldChange> cs = first().changes;
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(1, r.generations()),
                () -> assertEquals(3, cs.size()),
                () -> assertEquals(List.of(1), cs.get(0).leave()),
                () -> assertEquals(List.of(new WorldChange.Join("d", 1)), cs.get(0).join()),
                () -> assertEquals(3, cs.get(0).firstJoinId()),
                () -> assertEquals(List.of(new WorldChange.Join("e", 2)), cs.get(1).join()),
                () -> assertEquals(4, cs.get(1).firstJoinId(), "id 3 went to d"),
                () -> assertEquals(List.of(2, 3), cs.get(2).leave(), "c's rank 2 and d's rank 3 leave"),
                () -> assertEquals(List.of(0, 4, 5), ids(cs.get(2).target())));
    }

    @Test
    void aStandbyHostGivenOneSlotActivatesItsWaitingRankAndSpawnedIdsStartAboveTheLaunch() throws Exception {
        // --standby-ranks 1: the launch started ranks 2 (on s) and 3 (on t) outside the world of a and b
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1,s:0,t:0").from(3_000, "a:1,b:1,s:1,t:0")
                .from(6_000, "a:1,b:1,s:1,t:2").from(9_000, "a:1,s:1,t:2");
        launcher.inPlace(BOTH).standby(java.util.Map.of("s", List.of(2), "t", List.of(3))).on(1, succeedAfter(12_000));
        ElasticResult r = run(d, 1);
        List<WorldChange> cs = first().changes;
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(1, r.generations()),
                () -> assertEquals(3, cs.size()),
                () -> assertEquals(List.of(new WorldChange.Activate("s", 2)), cs.get(0).activate()),
                () -> assertEquals(List.of(), cs.get(0).join(), "no spawn onto a host with a waiting rank"),
                () -> assertEquals(List.of(0, 1, 2), ids(cs.get(0).target())),
                () -> assertEquals("1 standby rank joins on s", cs.get(0).describe(World.of(first().generation
                        .plan()))),
                () -> assertEquals(List.of(new WorldChange.Activate("t", 3)), cs.get(1).activate(),
                        "t joins with 2 ranks: its waiting one, and one spawned"),
                () -> assertEquals(List.of(new WorldChange.Join("t", 1)), cs.get(1).join()),
                () -> assertEquals(4, cs.get(1).firstJoinId(), "above the launch's ids, 3 being t's waiting rank"),
                () -> assertEquals(List.of(0, 1, 2, 3, 4), ids(cs.get(1).target())),
                () -> assertEquals(List.of(1), cs.get(2).leave()),
                () -> assertEquals(List.of(0, 2, 3, 4), ids(cs.get(2).target())));
    }

    @Test
    void aStandbyHostJoiningWithUpToItsWaitingRanksActivatesThatManyInOrder() throws Exception {
        // --standby-ranks 2: ranks 2, 3 wait on s and 4, 5 on t; s joins with 2 slots, t with 1, later t gets a second
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1,s:0,t:0").from(3_000, "a:1,b:1,s:2,t:1")
                .from(6_000, "a:1,b:1,s:2,t:2");
        launcher.inPlace(BOTH).standby(java.util.Map.of("s", List.of(2, 3), "t", List.of(4, 5)))
                .on(1, succeedAfter(9_000));
        ElasticResult r = run(d, 1);
        List<WorldChange> cs = first().changes;
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(List.of(new WorldChange.Activate("s", 2), new WorldChange.Activate("s", 3),
                        new WorldChange.Activate("t", 4)), cs.get(0).activate()),
                () -> assertEquals(List.of(0, 1, 2, 3, 4), ids(cs.get(0).target())),
                () -> assertEquals(6, cs.get(0).firstJoinId(), "above every waiting rank, 5 still waits"),
                () -> assertEquals(java.util.Map.of("t", List.of(5)), cs.get(0).waitingAfter(java.util.Map.of("s",
                        List.of(2, 3), "t", List.of(4, 5))), "the activated ranks wait no more"),
                () -> assertEquals(List.of(new WorldChange.Activate("t", 5)), cs.get(1).activate(),
                        "t's second slot is its other waiting rank, next to its running one"),
                () -> assertEquals(List.of(), cs.get(1).join()),
                () -> assertEquals(List.of(0, 1, 2, 3, 4, 5), ids(cs.get(1).target())),
                () -> assertEquals(List.of(), first().announcements, "no relaunch"));
    }

    @Test
    void aStandbyHostJoiningWithMoreSlotsThanWaitingRanksActivatesThemAndSpawnsTheRest() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1,s:0").from(3_000, "a:1,b:1,s:3");
        launcher.inPlace(BOTH).standby(java.util.Map.of("s", List.of(2))).on(1, succeedAfter(6_000));
        ElasticResult r = run(d, 1);
        WorldChange c = first().changes.get(0);
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(List.of(new WorldChange.Activate("s", 2)), c.activate()),
                () -> assertEquals(List.of(new WorldChange.Join("s", 2)), c.join(), "the two beyond it spawn there"),
                () -> assertEquals(3, c.firstJoinId()),
                () -> assertEquals(List.of(0, 1, 2, 3, 4), ids(c.target())),
                () -> assertEquals("[a:1, b:1, s:3]", c.target().hosts().toString()),
                () -> assertEquals(List.of(), first().announcements));
    }

    private static List<Integer> ids(World w) {
        return w.members().stream().map(World.Member::id).toList();
    }

    @Test
    void withoutTheCapabilityTheGenerationIsRelaunchedAsBefore() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1").from(3_000, "a:1,b:1,c:1");
        launcher.on(2, succeedAfter(3_000)); // InPlace.NONE: Open MPI 4, MPICH
        ElasticResult r = run(d, 1);
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(2, r.generations()),
                () -> assertEquals(List.of(HostUpdate.ADDED), first().announcements),
                () -> assertEquals(List.of(), first().changes),
                () -> assertEquals(List.of(Reason.START, Reason.HOSTS_UPDATED),
                        launcher.runs.stream().map(x -> x.generation.reason()).toList()));
    }

    @Test
    void aGenerationThatCanOnlyGrowRelaunchesWhenAHostLeaves() throws Exception {
        // Open MPI 5 without fault tolerance: a spawn works, a leave would hang MPI_Finalize
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1").from(3_000, "a:1,b:1,c:1").from(6_000, "a:1,c:1")
                .from(9_000, "a:1,c:1,d:1");
        launcher.inPlace(new InPlace(true, false)).on(2, succeedAfter(3_000));
        ElasticResult r = run(d, 1);
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(1, first().changes.size(), "c joined in place"),
                () -> assertEquals(List.of(HostUpdate.REMOVED), first().announcements, "b's leave relaunches"),
                () -> assertEquals("a:1,c:1", launcher.generation(2).plan().hostList()));
    }

    @Test
    void afterAnAnnouncementNothingMoreChangesInPlace() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1").from(3_000, "b:1").from(4_000, "b:1,c:1");
        // the ranks take their time to leave: the addition comes while the generation is ending (a generation that
        // can grow but not leave in place: a's leave is announced)
        launcher.inPlace(new InPlace(true, false)).on(1, run -> run.elapsedMillis() >= 6_000
                && !run.announcements.isEmpty() ? Optional.of(run.allExit(75, true)) : Optional.empty())
                .on(2, succeedAfter(2_000));
        ElasticResult r = run(d, 1);
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(List.of(), first().changes, "a left, no leave in place: relaunch, c too"),
                () -> assertEquals(List.of(HostUpdate.REMOVED, HostUpdate.ADDED), first().announcements),
                () -> assertEquals("b:1,c:1", launcher.generation(2).plan().hostList()));
    }

    @Test
    void belowMinNpTheRanksLeaveAndTheDriverWaits() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1").from(3_000, "a:1").from(8_000, "a:1,b:1");
        launcher.inPlace(BOTH).on(2, succeedAfter(2_000));
        ElasticResult r = run(d, 2);
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(List.of(), first().changes),
                () -> assertEquals(List.of(HostUpdate.REMOVED), first().announcements),
                () -> assertTrue(events.count("waiting") > 0),
                () -> assertEquals(2, launcher.generation(2).size()));
    }

    @Test
    void moreSlotsOnAHostWithRanksSpawnTheNewOnesNextToThem() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1,c:1").from(3_000, "a:2,b:1,c:3")
                .from(6_000, "a:2,c:3");
        launcher.inPlace(BOTH).on(1, succeedAfter(9_000));
        ElasticResult r = run(d, 1);
        List<WorldChange> cs = first().changes;
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(1, r.generations(), "no relaunch"),
                () -> assertEquals(List.of(), first().announcements),
                () -> assertEquals(List.of(new WorldChange.Join("a", 1), new WorldChange.Join("c", 2)),
                        cs.get(0).join(), "in discovery's order"),
                () -> assertEquals(List.of(0, 1, 2, 3, 4, 5), ids(cs.get(0).target())),
                () -> assertEquals("[a:2, b:1, c:3]", cs.get(0).target().hosts().toString()),
                () -> assertEquals(List.of(1), cs.get(1).leave(), "the grown world leaves in place too"),
                () -> assertEquals("[a:2, c:3]", cs.get(1).target().hosts().toString()));
    }

    @Test
    void fewerSlotsOnAHostMakeItsLastRanksLeave() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:2,b:3").from(3_000, "a:2,b:1");
        launcher.inPlace(BOTH).on(1, succeedAfter(6_000));
        ElasticResult r = run(d, 1);
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(List.of(3, 4), first().changes.get(0).leave()),
                () -> assertEquals("[a:2, b:1]", first().changes.get(0).target().hosts().toString()));
    }

    @Test
    void aGenerationThatRefusesTheChangeGetsTheAnnouncement() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1").from(3_000, "a:1,b:1");
        launcher.inPlace(BOTH).refusing().on(2, succeedAfter(2_000));
        ElasticResult r = run(d, 1);
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(List.of(HostUpdate.ADDED), first().announcements),
                () -> assertEquals(2, r.generations()));
    }

    @Test
    void hostsWhoseRanksAllLeftDoNotHoldTheStateForTheNextGeneration() throws Exception {
        // b's ranks left in place at 3 s (its node keeps an older commit); b comes back at 5 s (no growth: announced);
        // a fails at 6 s and is blacklisted: a was the whole world, so the job stops rather than restore b's older
        // commit (counting the plan's hosts, it relaunched on b)
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1").from(3_000, "a:1").from(5_000, "a:1,b:1");
        launcher.inPlace(new InPlace(false, true)).on(1, run -> run.elapsedMillis() >= 6_000
                ? Optional.of(run.worldFails(0, 9)) : Optional.empty());
        ElasticResult r = run(d, 1);
        assertAll(
                () -> assertFalse(r.ok(), r.message()),
                () -> assertEquals(List.of(1), first().changes.get(0).leave()),
                () -> assertTrue(r.message().contains("every host of generation 1 failed (a)"), r.message()),
                () -> assertEquals(1, r.generations()));
    }

    @Test
    void hostsThatJoinedInPlaceHoldTheStateForTheNextGeneration() throws Exception {
        // b joined in place and synced; a is removed (a generation that can grow but not leave in place: a relaunch)
        // and the next generation runs on b
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1").from(3_000, "a:1,b:1").from(6_000, "b:1");
        launcher.inPlace(new InPlace(true, false)).on(1, run -> run.announcements.isEmpty() ? Optional.empty()
                : Optional.of(run.worldExits(75))).on(2, succeedAfter(2_000));
        ElasticResult r = run(d, 1);
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(1, first().changes.size()),
                () -> assertEquals(List.of(HostUpdate.REMOVED), first().announcements),
                () -> assertEquals("b:1", launcher.generation(2).plan().hostList()),
                () -> assertEquals(Reason.HOSTS_UPDATED, launcher.generation(2).reason()));
    }

    @Test
    void atTheResetLimitAChangeEndsTheGenerationAndTheJobStops() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1,c:1").from(3_000, "a:1,b:1")
                .from(6_000, "a:1");
        launcher.inPlace(BOTH);
        ElasticResult r = run(d, 1, 1);
        assertAll(
                () -> assertFalse(r.ok(), r.message()),
                () -> assertEquals(1, first().changes.size(), "c left in place (reset 1 of 1)"),
                () -> assertEquals(List.of(HostUpdate.REMOVED), first().announcements, "b's leave is not made"),
                () -> assertTrue(r.message().contains("reset limit of 1 reached after generation 1"), r.message()),
                () -> assertEquals(1, r.generations()));
    }

    @Test
    void whatEachMpiCanChangeInPlace() {
        MpiInstall ompi5 = new MpiInstall(MpiFlavor.OPEN_MPI, 5, "5.0.7");
        assertAll(
                () -> assertEquals(new InPlace(true, true), InPlace.of(ompi5, true, true),
                        "ULFM, daemons through the relay: ranks may leave and spawn onto added hosts"),
                () -> assertEquals(new InPlace(false, true), InPlace.of(ompi5, true, false),
                        "ULFM without the relay's agent: no daemon can be started on an added host"),
                () -> assertEquals(InPlace.NONE, InPlace.of(ompi5, false, true), "no ULFM: a leave would end the job"),
                () -> assertEquals(InPlace.NONE, InPlace.of(new MpiInstall(MpiFlavor.OPEN_MPI, 4, "4.1.4"), true,
                        true)),
                () -> assertEquals(InPlace.NONE, InPlace.of(new MpiInstall(MpiFlavor.MPICH, 4, "4.0.2"), true, true)),
                () -> assertEquals(InPlace.NONE, InPlace.of(new MpiInstall(MpiFlavor.INTEL_MPI, 2021, "2021"),
                        true, true)));
    }

    // ---- standby hosts (discovery's host:0): services kept ready from the discovery that lists them, no ranks;
    // slots given later make them join like any added host; a host whose slots go to 0 leaves and stays ready

    /** The first generation can change in place and succeeds after 9 s. */
    private ElasticResult runInPlaceFor9s(ScriptedDiscovery d, int minNp) throws InterruptedException {
        launcher.inPlace(BOTH).on(1, succeedAfter(9_000));
        return run(d, minNp);
    }

    @Test
    void aStandbyHostIsKeptReadyWithoutRanksAndJoinsInPlaceWhenItGetsSlots() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:2,s:0").from(5_000, "a:2,s:1");
        ElasticResult r = runInPlaceFor9s(d, 2);
        FakeLauncher.Run first = first();
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(1, r.generations(), "no relaunch"),
                () -> assertEquals("a:2", first.generation.plan().hostList(), "a standby host runs no rank"),
                () -> assertEquals(List.of("a", "s"), launcher.served.get(0),
                        "its service is asked for at the first discovery, before any generation"),
                () -> assertEquals(List.of(new WorldChange.Join("s", 1)), first.changes.get(0).join()),
                () -> assertEquals(List.of(), first.announcements),
                () -> assertTrue(launcher.served.stream().allMatch(l -> l.contains("s"))),
                () -> assertEquals(List.of("standby [s]", "standby []"),
                        events.lines.stream().filter(l -> l.startsWith("standby")).toList()));
    }

    @Test
    void aHostWhoseSlotsGoToZeroLeavesTheWorldAndStaysReady() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1").from(5_000, "a:1,b:0");
        ElasticResult r = runInPlaceFor9s(d, 1);
        FakeLauncher.Run first = first();
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(1, r.generations()),
                () -> assertEquals(List.of(1), first.changes.get(0).leave(), "b's rank leaves"),
                () -> assertEquals("[a:1]", first.changes.get(0).target().hosts().toString()),
                () -> assertEquals(List.of("a", "b"), launcher.served.get(launcher.served.size() - 1),
                        "b's service is kept"),
                () -> assertEquals(0, events.count("blacklisted")));
    }

    @Test
    void aChangeOfTheStandbyHostsAloneChangesNoWorld() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1").from(3_000, "a:1,b:1,s:0,t:0")
                .from(6_000, "a:1,b:1,t:0");
        ElasticResult r = runInPlaceFor9s(d, 1);
        FakeLauncher.Run first = first();
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(1, r.generations()),
                () -> assertEquals(0, r.resets()),
                () -> assertEquals(List.of(), first.changes),
                () -> assertEquals(List.of(), first.announcements),
                () -> assertTrue(launcher.served.contains(List.of("a", "b", "s", "t")), launcher.served.toString()),
                () -> assertEquals(List.of("a", "b", "t"), launcher.served.get(launcher.served.size() - 1)),
                () -> assertEquals(List.of("standby [s, t]", "standby [t]"),
                        events.lines.stream().filter(l -> l.startsWith("standby")).toList()));
    }

    @Test
    void aBlacklistedHostListedAsStandbyIsNotKeptReady() throws Exception {
        // b fails in generation 1 and is blacklisted for good; discovery then lists it with 0 slots
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1").from(3_000, "a:1,b:0");
        launcher.on(1, failAfter(4_000, 1, 1, true)).on(2, succeedAfter(2_000));
        ElasticResult r = run(d, 1);
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(1, events.count("blacklisted b")),
                () -> assertEquals(List.of("a"), launcher.served.get(launcher.served.size() - 1)));
    }
}
