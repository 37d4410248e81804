package org.troika.launcher.spi;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.troika.launcher.options.RunOptionTable.DISCOVERY_INTERVAL;
import static org.troika.launcher.options.RunOptionTable.ELASTIC_TIMEOUT;
import static org.troika.launcher.options.RunOptionTable.HANG_TIMEOUT;
import static org.troika.launcher.options.RunOptionTable.HOST_DISCOVERY_SCRIPT;
import static org.troika.launcher.options.RunOptionTable.LAUNCH_AGENT;
import static org.troika.launcher.options.RunOptionTable.MAX_NP;
import static org.troika.launcher.options.RunOptionTable.MIN_NP;
import static org.troika.launcher.options.RunOptionTable.MPI_FLAVOR;
import static org.troika.launcher.options.RunOptionTable.NETWORK_INTERFACES;
import static org.troika.launcher.options.RunOptionTable.NP;
import static org.troika.launcher.options.RunOptionTable.OUTPUT_FILENAME;
import static org.troika.launcher.options.RunOptionTable.REMOTE_SHELL;
import static org.troika.launcher.options.RunOptionTable.RESET_LIMIT;
import static org.troika.launcher.options.RunOptionTable.SSH_PORT;
import static org.troika.launcher.options.RunOptionTable.START_TIMEOUT;
import static org.troika.launcher.options.RunOptionTable.VERBOSE;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;

/** The settings check themselves: whoever builds them (the CLI, Spark, a test) gets the same rules. */
class RunSettingsTest {
    private static final RunSettings BASE = RunSettings.of(List.of("train"));

    private static String refused(Runnable build) {
        return assertThrows(UsageException.class, build::run).getMessage();
    }

    @Test
    void eachGroupChecksItsOwnValues() {
        assertAll(
                () -> assertEquals("-np must be at least 1, got 0", refused(() -> new RunSettings.Hosts(0, List.of(),
                        null))),
                () -> assertEquals("-np 1048577 is more than troika's limit of 1048576 ranks", refused(
                        () -> BASE.with(NP, 1_048_577))),
                () -> assertEquals("-np 5 is more than the 4 slots of -H; lower -np or add hosts/slots", refused(
                        () -> new RunSettings.Hosts(5, List.of(new HostSlots("a", 2), new HostSlots("b", 2)), "-H"))),
                () -> assertEquals("--ssh-port 70000 is not a TCP port; use 1-65535", refused(
                        () -> BASE.with(SSH_PORT, 70_000))),
                () -> assertEquals("a network interface is named twice in [eth0, eth0]; name each once", refused(
                        () -> BASE.with(NETWORK_INTERFACES, List.of("eth0", "eth0")))),
                () -> assertEquals("bad network interface 'a b': give interface names (eth0) or IPv4 subnets"
                        + " (10.1.0.0/16), comma-separated", refused(() -> BASE
                                .with(NETWORK_INTERFACES, List.of("a b")))),
                () -> assertEquals("--remote-shell is empty; use ssh, blaunch, srun or a template with {host}",
                        refused(() -> BASE.with(REMOTE_SHELL, " "))),
                () -> assertEquals("--mpi-flavor 'lam' is not known; use openmpi, openmpi5, spectrum, mpich or intel",
                        refused(() -> BASE.with(MPI_FLAVOR, "lam"))),
                () -> assertEquals("--output-filename is empty; give a directory", refused(
                        () -> BASE.with(OUTPUT_FILENAME, Path.of(" ")))),
                () -> assertEquals("--start-timeout must be more than 0 seconds, got 0", refused(
                        () -> BASE.with(START_TIMEOUT, Duration.ZERO))),
                () -> assertEquals("--elastic-timeout must be more than 0 seconds, got -0.5", refused(
                        () -> BASE.with(ELASTIC_TIMEOUT, Duration.ofMillis(-500)))),
                () -> assertEquals("--hang-timeout must be 0 or more seconds", refused(
                        () -> BASE.with(HANG_TIMEOUT, Duration.ofSeconds(-1)))),
                () -> assertEquals("--reset-limit must be 0 or more, got -1", refused(
                        () -> BASE.with(RESET_LIMIT, -1))));
    }

    /** Moved from DiscoveryIntervalTest and ElasticLimitsTest: the floor is the settings' rule now. */
    @Test
    void theDiscoveryIntervalHasAFloor() {
        assertEquals("--discovery-interval 0.049 is too short; give at least 0.05 seconds", refused(
                () -> BASE.with(DISCOVERY_INTERVAL, Duration.ofMillis(49))));
        assertEquals(Duration.ofMillis(50), BASE.with(DISCOVERY_INTERVAL, Duration.ofMillis(50))
                .elastic().discoveryInterval());
    }

    /** Moved from HostManagerTest: the cooldown range is a value of the settings. */
    @Test
    void cooldownRangeIsValidated() {
        assertAll(
                () -> assertThrows(UsageException.class,
                        () -> new RunSettings.Cooldown(Duration.ofMillis(500), Duration.ofSeconds(10))),
                () -> assertThrows(UsageException.class,
                        () -> new RunSettings.Cooldown(Duration.ofSeconds(10), Duration.ofSeconds(3601))),
                () -> assertEquals("--blacklist-cooldown-range 20 10 is invalid; give MIN MAX in seconds with"
                        + " 1 <= MIN <= MAX <= 3600", assertThrows(UsageException.class,
                        () -> new RunSettings.Cooldown(Duration.ofSeconds(20), Duration.ofSeconds(10))).getMessage()),
                () -> assertEquals("--blacklist-cooldown-range needs both MIN and MAX seconds", refused(
                        () -> new RunSettings.Cooldown(Duration.ofSeconds(2), null))));
    }

    @Test
    void rulesAcrossGroupsHoldInEitherOrder() {
        String message = "-np 5 is above --max-np 3; lower -np or raise --max-np";
        assertEquals(message, refused(() -> BASE.with(NP, 5).with(MAX_NP, 3)));
        assertEquals(message, refused(() -> BASE.with(MAX_NP, 3).with(NP, 5)));
        assertEquals("--min-np 4 is above --max-np 2; make min-np <= max-np", refused(
                () -> BASE.with(MAX_NP, 2).with(MIN_NP, 4)));
    }

    /** A copy rebuilds the records: nothing else changes, and no component is dropped (BackendPlan's old defect). */
    @Test
    void aCopyChangesOneValueAndKeepsEveryOther() {
        RunSettings s = BASE.with(NP, 4).with(MIN_NP, 2)
                .with(HOST_DISCOVERY_SCRIPT, Path.of("/d.sh"))
                .with(OUTPUT_FILENAME, Path.of("out")).with(VERBOSE, true);
        RunSettings t = s.with(LAUNCH_AGENT, RunSettings.LaunchAgent.RELAY);
        assertAll(
                () -> assertEquals(RunSettings.LaunchAgent.RELAY, t.remote().launchAgent()),
                () -> assertEquals(s.remote().networkInterfaces(), t.remote().networkInterfaces()),
                () -> assertSame(s.hosts(), t.hosts()),
                () -> assertSame(s.elastic(), t.elastic()),
                () -> assertEquals(s.output(), t.output()),
                () -> assertEquals(s.command(), t.command()),
                () -> assertEquals(s, t.with(LAUNCH_AGENT, RunSettings.LaunchAgent.AUTO)),
                () -> assertEquals(List.of("a"), t.withCommand(List.of("a")).command()),
                () -> assertEquals(t.hosts(), t.withCommand(List.of("a")).hosts()));
    }

    @Test
    void aGroupReplacesItsKind() {
        RunSettings.Hosts hosts = new RunSettings.Hosts(2, List.of(new HostSlots("a", 2)), "test");
        RunSettings s = BASE.with(hosts);
        assertSame(hosts, s.hosts());
        assertSame(BASE.remote(), s.remote());
        assertNull(BASE.hosts().np());
    }

    @Test
    void aPathNamesARealComponent() {
        assertEquals(Integer.class, SettingPath.of("elastic.minNp").type());
        assertEquals(4, SettingPath.of("hosts.np").get(BASE.with(NP, 4)));
        assertEquals("elastic.minimum: minimum is not a component of Elastic",
                assertThrows(IllegalArgumentException.class, () -> SettingPath.of("elastic.minimum")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> SettingPath.of("verbose.x"));
    }
}
