package org.troika.launcher.elastic;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.launcher.elastic.FakeLauncher.failAfter;
import static org.troika.launcher.elastic.FakeLauncher.leaveOnAnnouncement;
import static org.troika.launcher.elastic.FakeLauncher.succeedAfter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.elastic.Generation.Reason;
import org.troika.launcher.spi.HostSlots;

/** Scenario tests of the elastic driver: fake discovery, fake launcher, fake clock; no processes. */
class ElasticDriverTest {
    private static final DiscoveryInterval SECOND = DiscoveryInterval.fixed(Duration.ofSeconds(1));

    private final FakeClock clock = new FakeClock();
    private final FakeLauncher launcher = new FakeLauncher(clock);
    private final Recorder events = new Recorder();

    /** Records listener events as short strings. */
    static final class Recorder implements ElasticListener {
        final List<String> lines = new ArrayList<>();

        @Override
        public void waitingForSlots(int available, int required, int hosts, Duration waited, Duration timeout) {
            lines.add("waiting " + available + "/" + required);
        }

        @Override
        public void discoveryFailed(String message) {
            lines.add("discovery failed: " + message);
        }

        @Override
        public void hostsChanged(HostUpdate update, List<HostSlots> hosts) {
            lines.add(update + " " + hosts);
        }

        @Override
        public void standbyChanged(List<String> standby) {
            lines.add("standby " + standby);
        }

        @Override
        public void hostBlacklisted(HostManager.Blacklisting b, Duration cooldown) {
            lines.add("blacklisted " + b.host());
        }

        long count(String prefix) {
            return lines.stream().filter(l -> l.startsWith(prefix)).count();
        }
    }

    private ElasticResult run(ScriptedDiscovery discovery, ElasticLimits limits) throws InterruptedException {
        HostManager hosts = new HostManager(clock, limits.cooldown(), () -> 0.0);
        return new ElasticDriver(limits, discovery, hosts, launcher, clock, events).run();
    }

    private static ElasticLimits limits(int minNp) {
        return new ElasticLimits(minNp, null, Duration.ofSeconds(30), null, SECOND, null);
    }

    private List<String> hostLists() {
        return launcher.runs.stream().map(r -> r.generation.plan().hostList()).toList();
    }

    private List<Reason> reasons() {
        return launcher.runs.stream().map(r -> r.generation.reason()).toList();
    }

    @Test
    void addedHostJoinsTheNextGenerationAfterAnAnnouncement() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:2").from(5_000, "a:2,b:2");
        launcher.on(2, succeedAfter(3_000));
        ElasticResult r = run(d, limits(2));
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(List.of("a:2", "a:2,b:2"), hostLists()),
                () -> assertEquals(List.of(Reason.START, Reason.HOSTS_UPDATED), reasons()),
                () -> assertEquals(List.of(HostUpdate.ADDED), launcher.runs.get(0).announcements),
                () -> assertEquals(4, launcher.generation(2).size()),
                () -> assertEquals(1, r.resets()),
                () -> assertEquals(2, r.generations()));
    }

    @Test
    void removedHostLeavesWithoutFailure() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:2,b:2").from(5_000, "a:2");
        launcher.on(2, succeedAfter(3_000));
        ElasticResult r = run(d, limits(2));
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(List.of("a:2,b:2", "a:2"), hostLists()),
                () -> assertEquals(List.of(HostUpdate.REMOVED), launcher.runs.get(0).announcements),
                () -> assertEquals(0, events.count("blacklisted")));
    }

    @Test
    void mixedUpdateKeepsSurvivorsFirstAndAppendsNewHostsInDiscoveryOrder() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1,c:1").from(5_000, "e:1,c:1,d:1,a:1");
        launcher.on(2, succeedAfter(3_000));
        ElasticResult r = run(d, limits(1));
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(List.of("a:1,b:1,c:1", "a:1,c:1,e:1,d:1"), hostLists()),
                () -> assertEquals(List.of(HostUpdate.MIXED), launcher.runs.get(0).announcements));
    }

    @Test
    void maxNpCapsTheWorldAndSparesExtraHostsFromAnnouncements() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:2,b:2").from(2_000, "a:2,b:2,c:2");
        launcher.on(1, succeedAfter(6_000));
        ElasticResult r = run(d, new ElasticLimits(2, 4, Duration.ofSeconds(30), null, SECOND, null));
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(List.of("a:2,b:2"), hostLists()),
                () -> assertEquals(List.of(), launcher.runs.get(0).announcements, "c:2 does not change a capped plan"));
    }

    @Test
    void rankFailingAfterRendezvousBlacklistsItsHostAndRestartsOnTheOthers() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1,c:1");
        launcher.on(1, failAfter(3_000, 1, 3, true)).on(2, succeedAfter(2_000));
        ElasticResult r = run(d, limits(2));
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(List.of("a:1,b:1,c:1", "a:1,c:1"), hostLists()),
                () -> assertEquals(List.of(Reason.START, Reason.FAILURE), reasons()),
                () -> assertEquals(List.of("blacklisted b"), events.lines.stream()
                        .filter(l -> l.startsWith("blacklisted")).toList()));
    }

    @Test
    void hostsOfAGenerationThatFailedBeforeRendezvousDoNotHoldTheState() throws Exception {
        // generation 2 runs on b (old) and c (new) but fails before its sync; b is blacklisted and c never got
        // the state, so nothing can be broadcast
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1").from(4_000, "b:1,c:1");
        launcher.on(2, failAfter(1_000, 0, 9, false));
        ElasticResult r = run(d, limits(1));
        assertAll(
                () -> assertEquals(List.of("a:1,b:1", "b:1,c:1"), hostLists()),
                () -> assertEquals(ElasticDriver.EXIT_DRIVER_FAILURE, r.exitCode()),
                () -> assertTrue(r.message().startsWith("no host of the last synced generation survives (a,b are gone)"),
                        r.message()));
    }

    @Test
    void hostsOfAGenerationThatFailedAfterRendezvousHoldTheState() throws Exception {
        // same as above, but generation 2 got through its sync, so c holds the state and carries on
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1").from(4_000, "b:1,c:1");
        launcher.on(2, failAfter(1_000, 0, 9, true)).on(3, succeedAfter(1_000));
        ElasticResult r = run(d, limits(1));
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(List.of("a:1,b:1", "b:1,c:1", "c:1"), hostLists()));
    }

    @Test
    void everyRankFailingEndsTheJobWithTheFirstFailure() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:2,b:2");
        launcher.on(1, run -> Optional.of(new GenerationResult(List.of(
                new RankExit(2, "b", 7, false), new RankExit(0, "a", 5, false),
                new RankExit(3, "b", 7, false), new RankExit(1, "a", 5, false)), true)));
        ElasticResult r = run(d, limits(1));
        assertAll(
                () -> assertEquals(7, r.exitCode()),
                () -> assertEquals("every host of generation 1 failed (a,b); first failure: rank 2 on host b exited"
                        + " with code 7", r.message()),
                () -> assertEquals(1, r.generations()));
    }

    @Test
    void everyHostFailingOneAfterAnotherEndsWithTheFirstFailureOfTheLastGeneration() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1");
        launcher.on(1, failAfter(2_000, 1, 4, true)).on(2, failAfter(2_000, 0, 6, true));
        ElasticResult r = run(d, limits(1));
        assertAll(
                () -> assertEquals(6, r.exitCode()),
                () -> assertTrue(r.message().contains("first failure: rank 0 on host a exited with code 6"), r.message()),
                () -> assertEquals(List.of("a:1,b:1", "a:1"), hostLists()));
    }

    @Test
    void successOfOneRankEndsTheJob() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1");
        launcher.on(1, run -> run.elapsedMillis() < 2_000 ? Optional.empty()
                : Optional.of(new GenerationResult(List.of(new RankExit(1, "b", 0, false)), true)));
        ElasticResult r = run(d, limits(2));
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(1, launcher.runs.size()));
    }

    @Test
    void resetLimitStopsTheJobWithTheLastFailure() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1,c:1");
        launcher.on(1, failAfter(1_000, 2, 11, true)).on(2, failAfter(1_000, 1, 12, true));
        ElasticResult r = run(d, new ElasticLimits(1, null, Duration.ofSeconds(30), 1, SECOND, null));
        assertAll(
                () -> assertEquals(12, r.exitCode()),
                () -> assertEquals("reset limit of 1 reached after generation 2; last failure: rank 1 on host b exited"
                        + " with code 12; raise --reset-limit to allow more", r.message()),
                () -> assertEquals(2, r.generations()),
                () -> assertEquals(1, r.resets()));
    }

    @Test
    void resetLimitZeroStopsAtTheFirstHostUpdate() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1").from(3_000, "a:1,b:1");
        ElasticResult r = run(d, new ElasticLimits(1, null, Duration.ofSeconds(30), 0, SECOND, null));
        assertAll(
                () -> assertEquals(ElasticDriver.EXIT_DRIVER_FAILURE, r.exitCode()),
                () -> assertTrue(r.message().startsWith("reset limit of 0 reached after generation 1;"), r.message()),
                () -> assertEquals(1, r.generations()));
    }

    @Test
    void cooldownExpiryResurrectsAFailedHostIntoALaterGeneration() throws Exception {
        // L = 10 s, jitter 0: the first blacklisting lasts L·2 = 20 s
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1");
        launcher.on(1, failAfter(2_000, 1, 3, true)).on(3, succeedAfter(1_000));
        ElasticLimits limits = new ElasticLimits(1, null, Duration.ofSeconds(30), null, SECOND,
                new RunSettings.Cooldown(Duration.ofSeconds(10), Duration.ofSeconds(100)));
        ElasticResult r = run(d, limits);
        FakeLauncher.Run second = launcher.runs.get(1);
        long announcedAfter = second.announcedAtMillis.get(0) - second.startMillis;
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(List.of("a:1,b:1", "a:1", "a:1,b:1"), hostLists()),
                () -> assertEquals(List.of(HostUpdate.ADDED), second.announcements),
                () -> assertTrue(announcedAfter >= 20_000 && announcedAfter <= 21_000, "announced after "
                        + announcedAfter + " ms"));
    }

    @Test
    void permanentBlacklistNeverTakesTheHostBack() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1");
        launcher.on(1, failAfter(2_000, 1, 3, true)).on(2, succeedAfter(60_000));
        ElasticResult r = run(d, limits(1));
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(List.of("a:1,b:1", "a:1"), hostLists()),
                () -> assertEquals(List.of(), launcher.runs.get(1).announcements));
    }

    @Test
    void discoveryFailingOnTheFirstCallFailsAtOnceWithTheScriptsError() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1").failFrom(0, "host discovery script /x exited with"
                + " code 3: no inventory");
        ElasticResult r = run(d, limits(1));
        assertAll(
                () -> assertEquals(ElasticDriver.EXIT_DRIVER_FAILURE, r.exitCode()),
                () -> assertEquals("host discovery script /x exited with code 3: no inventory", r.message()),
                () -> assertEquals(1, d.calls),
                () -> assertEquals(0, launcher.runs.size()));
    }

    @Test
    void discoveryFailingLaterIsReportedAndRetriedWithTheLastHosts() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1")
                .failFrom(2_000, "flaky").from(5_000, "a:1,b:1,c:1");
        launcher.on(2, succeedAfter(1_000));
        ElasticResult r = run(d, limits(1));
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(3, events.count("discovery failed: flaky")),
                () -> assertEquals(List.of("a:1,b:1", "a:1,b:1,c:1"), hostLists()),
                () -> assertEquals(List.of(HostUpdate.ADDED), launcher.runs.get(0).announcements));
    }

    @Test
    void survivorsBelowMinNpWaitWithProgressAndTimeOutWithAClearMessage() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1").from(5_000, "a:1");
        ElasticResult r = run(d, limits(2));
        assertAll(
                () -> assertEquals(ElasticDriver.EXIT_DRIVER_FAILURE, r.exitCode()),
                () -> assertEquals("timed out after 30 s waiting for 2 slots (--min-np): 1 available on 1 host(s)"
                        + " [a:1]; add hosts or raise --elastic-timeout", r.message()),
                () -> assertEquals(30, events.count("waiting 1/2")),
                () -> assertEquals(List.of(HostUpdate.REMOVED), launcher.runs.get(0).announcements),
                () -> assertEquals(1, launcher.runs.size()));
    }

    @Test
    void survivorsBelowMinNpWaitUntilAHostComesBack() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1").from(5_000, "a:1").from(15_000, "a:1,c:1");
        launcher.on(2, succeedAfter(1_000));
        ElasticResult r = run(d, limits(2));
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(List.of("a:1,b:1", "a:1,c:1"), hostLists()),
                () -> assertTrue(events.count("waiting 1/2") >= 5, events.lines.toString()));
    }

    @Test
    void waitsForMinNpBeforeTheFirstGeneration() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "").from(3_000, "a:2");
        launcher.on(1, succeedAfter(1_000));
        ElasticResult r = run(d, limits(2));
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(3, events.count("waiting 0/2")),
                () -> assertEquals(List.of("a:2"), hostLists()));
    }

    @Test
    void noHostOfThePreviousGenerationSurvivingIsAnError() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1").from(4_000, "c:1,d:1");
        ElasticResult r = run(d, limits(2));
        assertAll(
                () -> assertEquals(ElasticDriver.EXIT_DRIVER_FAILURE, r.exitCode()),
                () -> assertEquals("no host of the last synced generation survives (a,b are gone), so the committed"
                        + " state cannot reach the new ranks [c:1,d:1]; keep one old host in discovery", r.message()),
                () -> assertEquals(List.of(HostUpdate.MIXED), launcher.runs.get(0).announcements),
                () -> assertEquals(1, launcher.runs.size()));
    }

    @Test
    void stateHolderBecomesRankZeroEvenWhenANewHostIsOlderInTheHostOrder() throws Exception {
        // generation 1 syncs on a and b; both vanish and c appears (below min-np: wait); then a comes back after
        // c, so c is older in the host order, but only a holds the committed state
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1").from(2_000, "c:1").from(6_000, "c:1,a:1");
        launcher.on(2, succeedAfter(1_000));
        ElasticResult r = run(d, limits(2));
        assertAll(
                () -> assertTrue(r.ok(), r.message()),
                () -> assertEquals(List.of("a:1,b:1", "a:1,c:1"), hostLists()),
                () -> assertEquals("a", launcher.generation(2).plan().slots().get(0).host()));
    }

    @Test
    void aLaunchThatFailsOutrightStopsInsteadOfRelaunchingForever() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:1,b:1");
        launcher.on(1, run -> Optional.of(GenerationResult.launchFailed("mpirun: command not found")));
        ElasticResult r = run(d, limits(1));
        assertAll(
                () -> assertEquals(ElasticDriver.EXIT_DRIVER_FAILURE, r.exitCode()),
                () -> assertEquals("generation 1 could not be launched: mpirun: command not found", r.message()),
                () -> assertEquals(1, launcher.runs.size()),
                () -> assertEquals(0, events.count("blacklisted")));
    }
}
