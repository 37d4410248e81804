package org.troika.launcher.elastic;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.troika.launcher.options.RunOptionTable.BLACKLIST_COOLDOWN_RANGE;
import static org.troika.launcher.options.RunOptionTable.DISCOVERY_INTERVAL;
import static org.troika.launcher.options.RunOptionTable.HOST_DISCOVERY_SCRIPT;
import static org.troika.launcher.options.RunOptionTable.MAX_NP;
import static org.troika.launcher.options.RunOptionTable.MIN_NP;
import static org.troika.launcher.options.RunOptionTable.NP;
import static org.troika.launcher.options.RunOptionTable.RESET_LIMIT;
import static org.troika.launcher.options.RunOptionTable.SLOTS_PER_HOST;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner.ProbeResult;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.RunSettings;

class ElasticLimitsTest {
    private static final List<HostSlots> FIXED = List.of(new HostSlots("a", 1), new HostSlots("b", 2));

    private static RunSettings settings() {
        return RunSettings.of(List.of("train"));
    }

    private static RunSettings scripted() {
        return settings().with(HOST_DISCOVERY_SCRIPT, Path.of("/d.sh"));
    }

    private static RunSettings listed() {
        return settings().with(new RunSettings.Hosts(null, FIXED, "-H")).with(MIN_NP, 2);
    }

    @Test
    void minNpDefaultsToNpThenOne() {
        RunSettings.Cooldown cooldown = new RunSettings.Cooldown(Duration.ofSeconds(2), Duration.ofSeconds(9));
        assertAll(
                () -> assertEquals(3, ElasticLimits.from(settings().with(NP, 4)
                        .with(MIN_NP, 3)).minNp()),
                () -> assertEquals(4, ElasticLimits.from(settings().with(NP, 4)).minNp()),
                () -> assertEquals(1, ElasticLimits.from(settings()).minNp()),
                () -> assertNull(ElasticLimits.from(settings()).cooldown()),
                () -> assertEquals(cooldown, ElasticLimits.from(settings()
                        .with(BLACKLIST_COOLDOWN_RANGE, cooldown)).cooldown()));
    }

    @Test
    void discoveryIntervalIsTheGivenOneElseAdaptiveForAScriptAndOneSecondForAFixedList() {
        assertAll(
                () -> assertEquals(DiscoveryInterval.fixed(Duration.ofMillis(250)), ElasticLimits.from(scripted()
                        .with(DISCOVERY_INTERVAL, Duration.ofMillis(250))).discoveryInterval()),
                () -> assertEquals(DiscoveryInterval.adaptive(), ElasticLimits.from(scripted()).discoveryInterval()),
                () -> assertEquals(DiscoveryInterval.fixed(Duration.ofSeconds(1)), ElasticLimits.from(listed())
                        .discoveryInterval(), "a fixed list runs nothing"),
                () -> assertEquals(DiscoveryInterval.fixed(Duration.ofSeconds(3)), ElasticLimits.from(listed()
                        .with(DISCOVERY_INTERVAL, Duration.ofSeconds(3))).discoveryInterval()));
    }

    @Test
    void worldSizeUsesEverySlotUpToMaxNpAndNothingBelowMinNp() {
        ElasticLimits l = new ElasticLimits(2, 5, Duration.ofSeconds(1), null, DiscoveryInterval.adaptive(), null);
        assertAll(
                () -> assertEquals(0, l.worldSize(1)),
                () -> assertEquals(2, l.worldSize(2)),
                () -> assertEquals(4, l.worldSize(4)),
                () -> assertEquals(5, l.worldSize(9)));
    }

    /** The settings refuse impossible limits themselves: no elastic job is ever given them. */
    @Test
    void impossibleLimitsNeverReachTheLimits() {
        assertAll(
                () -> assertEquals("--min-np 3 is above --max-np 2; make min-np <= max-np", assertThrows(
                        UsageException.class, () -> ElasticLimits.from(settings().with(MIN_NP, 3)
                                .with(MAX_NP, 2))).getMessage()),
                () -> assertThrows(UsageException.class, () -> ElasticLimits.from(settings()
                        .with(MIN_NP, 0))),
                () -> assertThrows(UsageException.class, () -> ElasticLimits.from(settings()
                        .with(RESET_LIMIT, -1))),
                () -> assertEquals("--discovery-interval 0 is too short; give at least 0.05 seconds",
                        assertThrows(UsageException.class, () -> ElasticLimits.from(settings()
                                .with(DISCOVERY_INTERVAL, Duration.ZERO))).getMessage()),
                () -> assertThrows(UsageException.class, () -> ElasticLimits.from(settings()
                        .with(DISCOVERY_INTERVAL, Duration.ofMillis(49)))),
                () -> assertThrows(UsageException.class, () -> ElasticLimits.from(settings()
                        .with(BLACKLIST_COOLDOWN_RANGE, new RunSettings.Cooldown(Duration.ofSeconds(2),
                                null)))));
    }

    @Test
    void discoveryComesFromTheScriptElseTheFixedList() throws Exception {
        RunSettings script = scripted().with(SLOTS_PER_HOST, 3);
        HostDiscovery d = HostDiscovery.forSettings(script, (argv, t) -> new ProbeResult(0, "x\n"));
        assertEquals(List.of(new HostSlots("x", 3)), d.discover());

        assertEquals(FIXED, HostDiscovery.forSettings(listed(), (argv, t) -> {
            throw new AssertionError("a fixed list runs nothing");
        }).discover());
    }

    @Test
    void fixedListNeedsTwoDistinctHosts() {
        assertAll(
                () -> assertEquals("elastic mode with a fixed host list needs at least 2 hosts, got 1; list more hosts"
                        + " with -H or use --host-discovery-script", assertThrows(UsageException.class,
                        () -> new FixedHostDiscovery(List.of(new HostSlots("a", 4)))).getMessage()),
                () -> assertThrows(UsageException.class,
                        () -> new FixedHostDiscovery(List.of(new HostSlots("a", 4), new HostSlots("a", 2)))));
    }
}
