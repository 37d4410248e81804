package org.troika.launcher.elastic;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.launcher.elastic.FakeLauncher.failAfter;
import static org.troika.launcher.elastic.FakeLauncher.succeedAfter;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.troika.launcher.elastic.World.InPlace;

/**
 * Standby hosts (discovery's {@code host:0}): the launcher is asked to keep their services ready from the discovery
 * that lists them, they get no ranks, and slots given later make them join like any added host; a host whose slots go
 * to 0 leaves the world but stays ready. On the fake clock with the fake launcher.
 */
@Timeout(60)
class ElasticDriverStandbyTest {
    private static final DiscoveryInterval SECOND = DiscoveryInterval.fixed(Duration.ofSeconds(1));
    private static final InPlace BOTH = new InPlace(true, true);

    private final FakeClock clock = new FakeClock();
    private final FakeLauncher launcher = new FakeLauncher(clock);
    private final ElasticDriverTest.Recorder events = new ElasticDriverTest.Recorder();

    private ElasticResult run(ScriptedDiscovery discovery, int minNp) throws InterruptedException {
        ElasticLimits limits = new ElasticLimits(minNp, null, Duration.ofSeconds(30), null, SECOND, null);
        HostManager hosts = new HostManager(clock, limits.cooldown(), () -> 0.0);
        return new ElasticDriver(limits, discovery, hosts, launcher, clock, events).run();
    }

    @Test
    void aStandbyHostIsKeptReadyWithoutRanksAndJoinsInPlaceWhenItGetsSlots() throws Exception {
        ScriptedDiscovery d = new ScriptedDiscovery(clock, "a:2,s:0").from(5_000, "a:2,s:1");
        launcher.inPlace(BOTH).on(1, succeedAfter(9_000));
        ElasticResult r = run(d, 2);
        FakeLauncher.Run first = launcher.runs.get(0);
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
        launcher.inPlace(BOTH).on(1, succeedAfter(9_000));
        ElasticResult r = run(d, 1);
        FakeLauncher.Run first = launcher.runs.get(0);
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
        launcher.inPlace(BOTH).on(1, succeedAfter(9_000));
        ElasticResult r = run(d, 1);
        FakeLauncher.Run first = launcher.runs.get(0);
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
