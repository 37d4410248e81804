package org.troika.launcher.elastic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.troika.launcher.options.RunOptionTable.MAX_NP;
import static org.troika.launcher.options.RunOptionTable.MIN_NP;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;
import org.troika.launcher.spi.RunSettings;
import org.troika.common.exec.CommandRunner;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;

class ElasticListenerTest {
    @Test
    void printsOneLinePerEvent() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ElasticListener l = ElasticListener.printing(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        List<HostSlots> hosts = List.of(new HostSlots("a", 2), new HostSlots("b", 1));
        l.waitingForSlots(1, 4, 1, Duration.ofSeconds(12), Duration.ofSeconds(600));
        l.discoveryFailed("host discovery script /d exited with code 1: x");
        l.hostsChanged(HostUpdate.MIXED, hosts);
        l.standbyChanged(List.of("s", "t"));
        l.standbyChanged(List.of());
        l.hostBlacklisted(new HostManager.Blacklisting("b", 1, 99), Duration.ofSeconds(25));
        l.hostBlacklisted(new HostManager.Blacklisting("c", 1, Long.MAX_VALUE), Duration.ofMillis(Long.MAX_VALUE));
        l.generationStarted(new Generation(2, Generation.Reason.HOSTS_UPDATED, HostPlan.assign("g", hosts, 3)));
        l.generationStarted(new Generation(3, Generation.Reason.FAILURE, HostPlan.assign("g", hosts, 1)));
        assertEquals(List.of(
                "troika elastic: waiting for 4 slots (min-np), 1 available on 1 host(s); 12 of 600 s",
                "troika elastic: host discovery script /d exited with code 1: x (keeping the last known hosts, retrying)",
                "troika elastic: hosts mixed, now a:2,b:1",
                "troika elastic: standby hosts (task services kept ready, no ranks): s,t",
                "troika elastic: no standby hosts now",
                "troika elastic: blacklisted host b for 25 s",
                "troika elastic: blacklisted host c for the rest of the job",
                "troika elastic: generation 2 (hosts_updated): 3 ranks on a:2,b:1",
                "troika elastic: generation 3 (failure): 1 rank on a:1"),
                bytes.toString(StandardCharsets.UTF_8).lines().toList());
    }

    @Test
    void waitingLinesRepeatOnlyOnChangeOrEveryTenSeconds() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ElasticListener l = ElasticListener.printing(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        for (int s = 0; s <= 25; s++) {
            l.waitingForSlots(s < 15 ? 1 : 2, 4, 1, Duration.ofSeconds(s), Duration.ofSeconds(60));
        }
        assertEquals(List.of(0L, 10L, 15L, 25L), bytes.toString(StandardCharsets.UTF_8).lines()
                .map(line -> Long.parseLong(line.replaceAll(".*; (\\d+) of 60 s", "$1"))).toList());
    }

    @Test
    void forSettingsValidatesTheElasticSettingsBeforeAnythingRuns() {
        RunSettings one = RunSettings.of(List.of("x")).with(new RunSettings.Hosts(null, List.of(new HostSlots("a", 1)),
                "-H")).with(MIN_NP, 1);
        RunSettings ok = one.with(new RunSettings.Hosts(null, List.of(new HostSlots("a", 1), new HostSlots("b", 1)),
                "-H"));
        CommandRunner runsNothing = (argv, t) -> {
            throw new AssertionError("nothing may run");
        };
        GenerationLauncher launchesNothing = g -> {
            throw new AssertionError("nothing may launch");
        };
        assertThrows(UsageException.class, () -> ElasticDriver.forSettings(one,
                HostDiscovery.forSettings(one, runsNothing), launchesNothing, ElasticListener.printing(System.out)));
        assertThrows(UsageException.class, () -> ok.with(MAX_NP, 0), "no such settings to drive");
        ElasticDriver.forSettings(ok, HostDiscovery.forSettings(ok, runsNothing), launchesNothing,
                ElasticListener.printing(System.out));
    }
}
