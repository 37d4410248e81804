package org.troika.launcher.elastic;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner.ProbeResult;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostSlots;

class ElasticLimitsTest {
    private static RunSettings.Builder settings() {
        return RunSettings.builder().command(List.of("train"));
    }

    @Test
    void minNpDefaultsToNpThenOne() {
        assertAll(
                () -> assertEquals(3, ElasticLimits.from(settings().np(4).minNp(3).build()).minNp()),
                () -> assertEquals(4, ElasticLimits.from(settings().np(4).build()).minNp()),
                () -> assertEquals(1, ElasticLimits.from(settings().build()).minNp()),
                () -> assertNull(ElasticLimits.from(settings().build()).cooldown()),
                () -> assertEquals(new HostManager.Cooldown(Duration.ofSeconds(2), Duration.ofSeconds(9)),
                        ElasticLimits.from(settings().cooldown(Duration.ofSeconds(2), Duration.ofSeconds(9)).build())
                                .cooldown()));
    }

    @Test
    void discoveryIntervalIsTheGivenOneElseAdaptiveForAScriptAndOneSecondForAFixedList() {
        List<HostSlots> fixed = List.of(new HostSlots("a", 1), new HostSlots("b", 2));
        assertAll(
                () -> assertEquals(DiscoveryInterval.fixed(Duration.ofMillis(250)), ElasticLimits.from(settings()
                        .hostDiscoveryScript(Path.of("/d.sh")).discoveryInterval(Duration.ofMillis(250)).build())
                        .discoveryInterval()),
                () -> assertEquals(DiscoveryInterval.adaptive(), ElasticLimits.from(settings()
                        .hostDiscoveryScript(Path.of("/d.sh")).build()).discoveryInterval()),
                () -> assertEquals(DiscoveryInterval.fixed(Duration.ofSeconds(1)), ElasticLimits.from(settings()
                        .hosts(fixed, "-H").minNp(2).build()).discoveryInterval(), "a fixed list runs nothing"),
                () -> assertEquals(DiscoveryInterval.fixed(Duration.ofSeconds(3)), ElasticLimits.from(settings()
                        .hosts(fixed, "-H").minNp(2).discoveryInterval(Duration.ofSeconds(3)).build())
                        .discoveryInterval()));
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

    @Test
    void rejectsImpossibleLimits() {
        assertAll(
                () -> assertEquals("--max-np 2 is below --min-np 3; raise --max-np", assertThrows(UsageException.class,
                        () -> ElasticLimits.from(settings().minNp(3).maxNp(2).build())).getMessage()),
                () -> assertThrows(UsageException.class, () -> ElasticLimits.from(settings().minNp(0).build())),
                () -> assertThrows(UsageException.class, () -> ElasticLimits.from(settings().resetLimit(-1).build())),
                () -> assertEquals("the discovery interval must be at least 0.05 s, got 0.0 s; give --discovery-interval"
                        + " 0.05 or more", assertThrows(UsageException.class,
                        () -> ElasticLimits.from(settings().discoveryInterval(Duration.ZERO).build())).getMessage()),
                () -> assertThrows(UsageException.class,
                        () -> ElasticLimits.from(settings().discoveryInterval(Duration.ofMillis(49)).build())),
                () -> assertThrows(UsageException.class,
                        () -> ElasticLimits.from(settings().cooldown(Duration.ofSeconds(2), null).build())));
    }

    @Test
    void discoveryComesFromTheScriptElseTheFixedList() throws Exception {
        RunSettings scripted = settings().hostDiscoveryScript(Path.of("/d.sh")).slotsPerHost(3).build();
        HostDiscovery d = HostDiscovery.forSettings(scripted, (argv, t) -> new ProbeResult(0, "x\n"));
        assertEquals(List.of(new HostSlots("x", 3)), d.discover());

        List<HostSlots> fixed = List.of(new HostSlots("a", 1), new HostSlots("b", 2));
        RunSettings listed = settings().hosts(fixed, "-H").minNp(2).build();
        assertEquals(fixed, HostDiscovery.forSettings(listed, (argv, t) -> {
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
