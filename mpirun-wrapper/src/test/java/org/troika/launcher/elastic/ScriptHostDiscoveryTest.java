package org.troika.launcher.elastic;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.troika.common.exec.CommandRunner.ProbeResult;
import org.troika.launcher.spi.HostCheck;
import org.troika.launcher.spi.HostSlots;

class ScriptHostDiscoveryTest {
    private static List<HostSlots> parse(String out, Integer defaultSlots) throws HostDiscoveryException {
        return ScriptHostDiscovery.parse(out, defaultSlots);
    }

    private static String error(String out, Integer defaultSlots) {
        return assertThrows(HostDiscoveryException.class, () -> parse(out, defaultSlots)).getMessage();
    }

    @Test
    void parsesHostsWithAndWithoutSlots() {
        assertAll(
                () -> assertEquals(List.of(new HostSlots("a", 2), new HostSlots("b", 4)), parse("a:2\nb\n", 4)),
                () -> assertEquals(List.of(new HostSlots("a", 2), new HostSlots("b", 3)),
                        parse("  a : 2 \r\n\n\t b:3\t\n\n", null)),
                () -> assertEquals(List.of(), parse("", null)),
                () -> assertEquals(List.of(), parse(" \n \n", null)),
                () -> assertEquals(List.of(new HostSlots("b", 1), new HostSlots("a", 1)), parse("b:1\na:1\nb:1", null)),
                () -> assertEquals(List.of(new HostSlots("n1.x-y_z", 8)), parse("n1.x-y_z:08", null)));
    }

    @Test
    void zeroSlotsNameAStandbyHost() throws HostDiscoveryException {
        HostDiscovery.Found f = ScriptHostDiscovery.read("a:2\nc:0\nb\n d : 00 \nc:0\n", 1);
        assertAll(
                () -> assertEquals(List.of(new HostSlots("a", 2), new HostSlots("b", 1)), f.hosts()),
                () -> assertEquals(List.of("c", "d"), f.standby()),
                // parse() is the hosts with slots alone; standby hosts count no slots toward troika's limit
                () -> assertEquals(List.of(new HostSlots("a", 1048576)), parse("a:1048576\nb:0", null)),
                () -> assertEquals(List.of(), ScriptHostDiscovery.read("a:0", null).hosts()),
                () -> assertEquals(List.of("a"), ScriptHostDiscovery.read("a:0", null).standby()),
                // a standby host is still one host: printed with slots too, it is the usual error
                () -> assertEquals("host discovery printed host 'a' with 0 and with 2 slots; print each host once",
                        error("a:0\na:2", null)),
                () -> assertEquals("host discovery printed host 'a' with 2 and with 0 slots; print each host once",
                        error("a:2\na:0", null)),
                () -> assertEquals("host discovery line 'a b:0': host name 'a b' contains a space; "
                        + HostCheck.NAME_RULE, error("a b:0", null)),
                () -> assertEquals("host discovery line 'a:-0': slot count '-0' is not a whole number; give 1 to"
                        + " 1048576", error("a:-0", null)));
    }

    @Test
    void theScriptsStandbyHostsComeWithItsHosts() throws HostDiscoveryException {
        FixedRunner runner = new FixedRunner(0, "a:2\nspare:0\n");
        HostDiscovery.Found f = discovery(runner).discoverAll();
        assertEquals(List.of(new HostSlots("a", 2)), f.hosts());
        assertEquals(List.of("spare"), f.standby());
        assertEquals(List.of(new HostSlots("a", 2)), discovery(runner).discover());
    }

    @Test
    void reportsMalformedLinesWithTheFix() {
        assertAll(
                () -> assertEquals("host discovery line 'a:1:2' has more than one ':'; print host or host:slots",
                        error("a:1:2", 1)),
                () -> assertEquals("host discovery line 'a' has no slot count; print host:slots or pass"
                        + " --slots-per-host N", error("b:1\na", null)),
                () -> assertEquals("host discovery line 'a:x': slot count 'x' is not a whole number; give 1 to 1048576",
                        error("a:x", null)),
                () -> assertEquals("host discovery line 'a:': slot count '' is not a whole number; give 1 to 1048576",
                        error("a:", 2)),
                () -> assertEquals("host discovery line 'a b:1': host name 'a b' contains a space; " + HostCheck.NAME_RULE,
                        error("a b:1", null)),
                () -> assertEquals("host discovery line '-np:1': host name '-np' starts with '-' (the MPI launcher would"
                        + " take it for an option); " + HostCheck.NAME_RULE, error("-np:1", null)),
                () -> assertEquals("host discovery line 'a:1048577': slot count 1048577 is more than troika's limit of"
                        + " 1048576 ranks; give 1 to 1048576", error("a:1048577", null)),
                () -> assertEquals("host discovery printed more than 1048576 slots in all, troika's limit of ranks;"
                        + " print fewer hosts or slots", error("a:1048576\nb:1", null)),
                () -> assertEquals("host discovery printed host 'a' with 2 and with 3 slots; print each host once",
                        error("a:2\na:3", null)));
    }

    /** Records the commands it is asked to run and answers with a fixed result. */
    private static final class FixedRunner implements org.troika.common.exec.CommandRunner {
        final List<List<String>> commands = new ArrayList<>();
        final List<Duration> timeouts = new ArrayList<>();
        private final ProbeResult result;

        FixedRunner(int code, String output) {
            result = new ProbeResult(code, output);
        }

        @Override
        public ProbeResult run(List<String> argv, Duration timeout) {
            commands.add(argv);
            timeouts.add(timeout);
            return result;
        }
    }

    private static ScriptHostDiscovery discovery(FixedRunner runner) {
        return new ScriptHostDiscovery(Path.of("/opt/disc.sh"), 2, runner, Duration.ofSeconds(7));
    }

    @Test
    void runsTheScriptDirectlyWithItsTimeoutAndParsesItsOutput() throws Exception {
        FixedRunner runner = new FixedRunner(0, "a\nb:4\n");
        assertEquals(List.of(new HostSlots("a", 2), new HostSlots("b", 4)), discovery(runner).discover());
        assertEquals(List.of(List.of("/opt/disc.sh")), runner.commands);
        assertEquals(List.of(Duration.ofSeconds(7)), runner.timeouts);
    }

    @Test
    void failuresOfTheScriptBecomeOneLineErrors() {
        assertAll(
                () -> assertEquals("host discovery script /opt/disc.sh exited with code 3: inventory down | retry later",
                        assertThrows(HostDiscoveryException.class, () -> discovery(
                                new FixedRunner(3, "inventory down\n  retry later\n")).discover()).getMessage()),
                () -> assertEquals("host discovery script /opt/disc.sh exited with code 1: (no output)",
                        assertThrows(HostDiscoveryException.class, () -> discovery(
                                new FixedRunner(1, "")).discover()).getMessage()),
                () -> assertEquals("host discovery script /opt/disc.sh timed out after 7 s",
                        assertThrows(HostDiscoveryException.class, () -> discovery(
                                new FixedRunner(ProbeResult.TIMED_OUT, "")).discover()).getMessage()),
                () -> assertEquals("host discovery script /opt/disc.sh could not be run; check that it exists and is"
                        + " executable", assertThrows(HostDiscoveryException.class, () -> discovery(
                                new FixedRunner(ProbeResult.NOT_FOUND, "")).discover()).getMessage()));
    }
}
