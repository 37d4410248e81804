package org.troika.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.troika.common.UsageException;
import org.troika.launcher.spi.FaultTolerance;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.FileSource;

class RunCommandLineTest {
    private static final Map<String, List<String>> FILES = Map.of(
            "hf", List.of("# two nodes", "n1 slots=2", "n2 slots=2"),
            "empty", List.of("", "# nothing"));
    private static final FileSource FS = p -> {
        List<String> lines = FILES.get(p.toString());
        if (lines == null) {
            throw new NoSuchFileException(p.toString());
        }
        return lines;
    };

    private static RunSettings parse(String line) {
        return RunCommandLine.parse(Arrays.asList(line.split(" ")), FS, true).settings();
    }

    @Test
    void horovodrunFlagNamesCarryOver() {
        RunSettings s = parse("-np 4 -H a:2,b:2 --network-interfaces eth0,ib0 --network-interface 10.1.0.0/16 -p 2222 "
                + "--tcp --output-filename out -prefix-timestamp --start-timeout 45 --verbose --mpi --mpi-flavor mpich "
                + "--dry-run python train.py -np 9 --verbose");
        assertEquals(4, s.hosts().np());
        assertEquals(List.of(new HostSlots("a", 2), new HostSlots("b", 2)), s.hosts().list());
        assertEquals("-H", s.hosts().source());
        assertEquals(List.of("eth0", "ib0", "10.1.0.0/16"), s.remote().networkInterfaces());
        assertEquals(2222, s.remote().sshPort());
        assertTrue(s.launcher().tcp() && s.output().prefixTimestamp() && s.verbose() && s.dryRun());
        assertEquals(Path.of("out"), s.output().dir());
        assertEquals(Duration.ofSeconds(45), s.timeouts().start());
        assertEquals(RunSettings.Backend.MPI, s.launcher().backend());
        assertEquals("mpich", s.launcher().mpiFlavor());
        // everything after the first non-option word is the user's command, untouched
        assertEquals(List.of("python", "train.py", "-np", "9", "--verbose"), s.command());
    }

    @Test
    void operabilityFlags(@org.junit.jupiter.api.io.TempDir Path dir) {
        RunSettings s = parse("--hang-timeout 120 --hang-warning 30 --timeline " + dir.resolve("t.json") + " -np 2 x");
        assertEquals(Duration.ofSeconds(120), s.timeouts().hang());
        assertEquals(Duration.ofSeconds(30), s.timeouts().hangWarning());
        assertEquals(dir.resolve("t.json"), s.output().timeline());
        assertEquals(Duration.ZERO, parse("--hang-timeout 0 -np 2 x").timeouts().hang());
        assertEquals(null, parse("-np 2 x").timeouts().hang());
        for (String bad : List.of("--hang-timeout -1 -np 2 x", "--hang-timeout 1.5 -np 2 x",
                "--timeline " + dir + " -np 2 x", "--timeline " + dir.resolve("missing/t.json") + " -np 2 x")) {
            assertThrows(UsageException.class, () -> parse(bad), bad);
        }
    }

    @Test
    void longFormsAndHostfile() {
        RunSettings s = parse("--num-proc 3 --hostfile hf --prefix-output-with-timestamp --jsrun hostname");
        assertEquals(3, s.hosts().np());
        assertEquals(List.of(new HostSlots("n1", 2), new HostSlots("n2", 2)), s.hosts().list());
        assertEquals("hostfile hf", s.hosts().source());
        assertTrue(s.output().prefixTimestamp());
        assertEquals(RunSettings.Backend.named("jsrun"), s.launcher().backend());
    }

    /** Any backend's name parses (a plugin's too): it is resolved against the loaded backends when planning. */
    @ParameterizedTest
    @CsvSource({"auto,auto", "mpirun,mpirun", "srun,srun", "jsrun,jsrun", "SRUN,srun", "pbs-launch,pbs-launch"})
    void launcherNamesABackend(String value, String expected) {
        assertEquals(expected, parse("--launcher " + value + " hostname").launcher().backend().launcherName());
        assertEquals(RunSettings.Backend.AUTO, parse("hostname").launcher().backend());
        assertTrue(parse("--launcher AUTO hostname").launcher().backend().auto());
        assertEquals(RunSettings.Backend.MPI, parse("--launcher mpirun hostname").launcher().backend());
    }

    @Test
    void launcherRefusesWhatCannotBeANameAndTheOldFlagsBeside() {
        UsageException e = assertThrows(UsageException.class, () -> RunCommandLine.parse(List.of("--launcher",
                "my launcher", "hostname"), FS, true));
        assertEquals("--launcher 'my launcher' is not a launcher name; use auto or a backend's name, e.g. mpirun,"
                + " srun or jsrun", e.getMessage());
        e = assertThrows(UsageException.class, () -> parse("--launcher srun --mpi hostname"));
        assertEquals("--launcher and --mpi cannot be combined; choose one", e.getMessage());
    }

    @Test
    void quotedMpiAndBindingArgsAreSplitLikeAShell() {
        RunSettings s = RunCommandLine.parse(List.of("--mpi-args", "-x 'A=b c' --mca btl_tcp_if_include eth0",
                "--binding-args", "--bind-to core --map-by socket", "true"), FS, true).settings();
        assertEquals(List.of("-x", "A=b c", "--mca", "btl_tcp_if_include", "eth0"), s.launcher().mpiArgs());
        assertEquals(List.of("--bind-to", "core", "--map-by", "socket"), s.launcher().bindingArgs());
    }

    @Test
    void defaultsAreUnsetOrDocumented() {
        RunSettings s = parse("hostname");
        assertNull(s.hosts().np());
        assertTrue(s.hosts().list().isEmpty());
        // the start timeout grows with the host count unless given (issue 23): 30 s up to 1,000 hosts, 120 s at 10,000
        assertNull(s.timeouts().start());
        assertEquals(Duration.ofSeconds(30), s.timeouts().startFor(8));
        assertEquals(Duration.ofSeconds(30), s.timeouts().startFor(1_000));
        assertEquals(Duration.ofSeconds(120), s.timeouts().startFor(10_000));
        assertEquals(Duration.ofSeconds(45), parse("--start-timeout 45 hostname").timeouts().startFor(10_000),
                "a given --start-timeout is kept at any size");
        assertEquals(RunSettings.Backend.AUTO, s.launcher().backend());
        assertFalse(s.elastic().enabled());
    }

    @Test
    void javaCdsIsOnOffOrNotGiven() {
        assertEquals(Boolean.TRUE, parse("--java-cds -np 2 java -cp a.jar M").launcher().javaCds());
        assertEquals(Boolean.FALSE, parse("--no-java-cds --min-np 2 java -cp a.jar M").launcher().javaCds());
        assertNull(parse("-np 2 java -cp a.jar M").launcher().javaCds(),
                "not given: TROIKA_JAVA_CDS and the elastic default decide");
        assertEquals(List.of("java", "--java-cds"), parse("-np 2 java --java-cds").command(), "the command's own words");
    }

    @Test
    void elasticFlags() {
        RunSettings s = parse("--min-np 2 --max-np 8 --slots-per-host 2 --elastic-timeout 60 --reset-limit 3 "
                + "--blacklist-cooldown-range 10 100 --discovery-interval 2 -H a:2,b:2 train");
        assertTrue(s.elastic().enabled());
        assertEquals(2, s.elastic().minNp());
        assertEquals(8, s.elastic().maxNp());
        assertEquals(Duration.ofSeconds(10), s.elastic().cooldown().min());
        assertEquals(Duration.ofSeconds(100), s.elastic().cooldown().max());
        assertEquals(3, s.elastic().resetLimit());
        assertEquals(List.of("train"), s.command());
        assertEquals(FaultTolerance.AUTO, s.launcher().faultTolerance());
        assertEquals(Duration.ofSeconds(2), s.elastic().discoveryInterval());
        assertEquals(Duration.ofMillis(250),
                parse("--min-np 2 --discovery-interval 0.25 train").elastic().discoveryInterval());
        assertEquals(Duration.ofMillis(50),
                parse("--min-np 2 --discovery-interval 0.050 train").elastic().discoveryInterval());
        assertEquals(Duration.ofMillis(1500),
                parse("--min-np 2 --discovery-interval 1.5 train").elastic().discoveryInterval());
        assertNull(parse("--min-np 2 train").elastic().discoveryInterval(),
                "not given: adaptive for a script, 1 s for -H");
        assertEquals(FaultTolerance.SHRINK,
                parse("--min-np 2 --fault-tolerance shrink train").launcher().faultTolerance());
        assertEquals(FaultTolerance.RELAUNCH,
                parse("--min-np 2 --fault-tolerance RELAUNCH train").launcher().faultTolerance());
    }

    @Test
    void helpIsRecognised() {
        assertTrue(RunCommandLine.parse(List.of("--help"), FS, true).help());
        String help = RunCommandLine.help("run", "COMMAND");
        for (String flag : List.of("-np", "--hosts", "-hostfile", "--network-interfaces", "--ssh-port", "--ssh-identity-file",
                "--mpi-args", "--binding-args", "--tcp", "--output-filename", "-prefix-timestamp", "--start-timeout",
                "--verbose", "--mpi", "--jsrun", "--mpi-flavor", "--dry-run", "--remote-shell", "--launch-agent",
                "--host-discovery-script", "--blacklist-cooldown-range", "--fault-tolerance", "--java-cds", "--no-java-cds",
                "--discovery-interval")) {
            assertTrue(help.contains(flag), "help mentions " + flag);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "-H a hostname|has no slot count",
        "-H a:b hostname|is not a whole number",
        "-H a:0 hostname|0 slots",
        "-H a:1,,b:1 hostname|empty entry",
        "-H host:1:2 hostname|contains ':'",
        "-np 2 -np 3 hostname|-np is given twice ('2' and '3')",
        "-np 2 --num-proc 2 hostname|-np is given twice",
        "-H a:1 -H b:1 hostname|-H is given twice",
        "--mpi-args -x --mpi-args -y hostname|--mpi-args is given twice",
        "-np 1048577 hostname|more than troika's limit",
        "--hostfile missing hostname|does not exist",
        "--hostfile empty hostname|lists no hosts",
        "-np 5 -H a:2,b:2 hostname|more than the 4 slots",
        "-np -1 hostname|needs a whole number",
        "-np x hostname|needs a whole number",
        "-np 0 hostname|at least 1",
        "-H a:1 --hostfile hf hostname|cannot be combined",
        "--mpi --jsrun hostname|cannot be combined",
        "--java-cds --no-java-cds java M|--java-cds and --no-java-cds cannot be combined; choose one",
        "-np 2|no command given",
        "--mpi-flavor lam hostname|not known",
        "-p 70000 hostname|not a TCP port",
        "--launch-agent rsh hostname|not known",
        "--bogus hostname|unknown option '--bogus'",
        "-i /nonexistent/key hostname|not readable",
        "--reset-limit 2 hostname|need an elastic job",
        "--fault-tolerance shrink hostname|need an elastic job",
        "--min-np 2 --fault-tolerance grow hostname|--fault-tolerance 'grow' is not known; use relaunch, shrink or auto",
        "--min-np 2 --fault-tolerance shrink --fault-tolerance auto hostname|--fault-tolerance is given twice",
        "--min-np 4 --max-np 2 hostname|above --max-np",
        "--min-np 1 --blacklist-cooldown-range 0 10 hostname|invalid",
        "--min-np 1 --discovery-interval 0.01 hostname|--discovery-interval 0.01 is too short; give at least 0.05 seconds",
        "--min-np 1 --discovery-interval 0 hostname|is too short",
        "--min-np 1 --discovery-interval 0.0001 hostname|--discovery-interval needs seconds such as 2 or 0.25 (at most 3 decimals), got '0.0001'",
        "--min-np 1 --discovery-interval -1 hostname|needs seconds such as 2 or 0.25",
        "--min-np 1 --discovery-interval .5 hostname|needs seconds such as 2 or 0.25",
        "--min-np 1 --discovery-interval 1e3 hostname|needs seconds such as 2 or 0.25",
        "--min-np 1 --discovery-interval 2s hostname|needs seconds such as 2 or 0.25",
        "--discovery-interval 0.5 hostname|need an elastic job",
        "--network-interfaces eth0,,ib0 hostname|malformed",
        "--network-interfaces eth0 --network-interface eth0 hostname|named twice",
        "--mpi-args 'a hostname|balance the quotes"})
    void badInputIsOneLineUsageError(String line, String expected) {
        UsageException e = assertThrows(UsageException.class, () -> parse(line));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line");
    }
}
