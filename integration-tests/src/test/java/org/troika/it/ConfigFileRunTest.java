package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.mpi.Communicator;
import org.troika.mpi.Datatype;
import org.troika.mpi.FusionBuffer;
import org.troika.mpi.Mpi;
import org.troika.mpi.Op;
import org.troika.testkit.Dist;

/**
 * {@code troika run --config-file} with Horovod's YAML on real Open MPI ranks running troika-mpi: the file's fusion
 * threshold and thread level reach the ranks (the number of collectives a FusionBuffer issues, the thread level MPI
 * grants), its log level turns on troika's verbose lines, its keys without a meaning are warned about one by one;
 * its timeline and stall check reach the timeline and the hang watchdog, with the command line's flags winning.
 */
@Tag("integration")
class ConfigFileRunTest {
    private static final Pattern PROBE = Pattern.compile("probe rank (\\d+) collectives (\\d+) thread-level (\\w+)");

    @TempDir
    Path tmp;

    /**
     * The rank program: ten 256 KiB float arrays through a FusionBuffer of the rank's default size, then one line
     * with the number of collectives it took and the thread level MPI provides.
     */
    public static void main(String[] args) throws InterruptedException {
        try (Mpi mpi = Mpi.init()) {
            Communicator world = Mpi.world();
            if (args.length > 0 && args[0].equals("hang") && world.rank() == 1) {
                System.out.print("rank 1 hangs\n");
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE); // rank 0 waits in the allreduce for it
            }
            FusionBuffer fusion = new FusionBuffer(world, Datatype.FLOAT, Op.SUM);
            for (int i = 0; i < 10; i++) {
                fusion.add(new float[64 * 1024]);
            }
            fusion.flush();
            System.out.print("probe rank " + world.rank() + " collectives " + fusion.collectives() + " thread-level "
                    + mpi.threadLevel() + "\n");
            System.out.flush();
        }
    }

    private RunSupport.Result probe(String... configArgs) throws Exception {
        return RunSupport.run(tmp, probeArgs(configArgs, List.of()));
    }

    private static String[] probeArgs(String[] troikaArgs, List<String> programArgs) throws Exception {
        Path testClasses = Path.of(ConfigFileRunTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> args = new ArrayList<>(List.of(troikaArgs));
        args.addAll(List.of("-np", "2", "java", "-cp", Dist.home().resolve("lib") + "/*:" + testClasses,
                ConfigFileRunTest.class.getName()));
        args.addAll(programArgs);
        return args.toArray(String[]::new);
    }

    private static Map<Integer, String> probes(RunSupport.Result r) {
        Map<Integer, String> byRank = new TreeMap<>();
        Matcher m = PROBE.matcher(r.out());
        while (m.find()) {
            byRank.put(Integer.parseInt(m.group(1)), m.group(2) + " " + m.group(3));
        }
        return byRank;
    }

    @Test
    void fusionThresholdThreadLevelAndLogLevelFromHorovodsConfigReachTheJob() throws Exception {
        RunSupport.Result defaults = probe();
        assertEquals(0, defaults.exitCode(), defaults.toString());
        // 2.5 MiB in one 64 MiB buffer; Mpi.init() asks for SINGLE
        assertEquals(Map.of(0, "1 SINGLE", 1, "1 SINGLE"), probes(defaults), defaults.toString());
        assertFalse(defaults.err().contains("troika: hosts from"), defaults.toString());

        Path config = Files.writeString(tmp.resolve("horovod.yaml"), """
                params:
                  fusion_threshold_mb: 1
                  cycle_time_ms: 5
                library_options:
                  mpi_threads_disable: false
                logging:
                  level: debug
                autotune:
                  enabled: false
                """);
        RunSupport.Result r = probe("--config-file", config.toString());
        assertEquals(0, r.exitCode(), r.toString());
        // a 1 MiB buffer holds four 256 KiB arrays: 4 + 4 + 2; Horovod's default level when threads are not disabled
        assertEquals(Map.of(0, "3 MULTIPLE", 1, "3 MULTIPLE"), probes(r), r.toString());
        assertTrue(r.err().contains("troika: hosts from"), "logging.level debug = --verbose\n" + r);
        for (String key : new String[] {"params.cycle_time_ms", "autotune.enabled"}) {
            assertTrue(r.err().contains("troika: warning: " + config + ": " + key + " has no meaning in troika;"
                    + " ignored\n"), r.toString());
        }
    }

    /**
     * The file's timeline is written and its stall check becomes the hang watchdog; the command line's
     * --hang-timeout 4 wins over the file's 600 s, so the hung rank ends the job within the test's bounds.
     */
    @Test
    void timelineAndStallCheckFromTheFileWithTheCommandLineWinning() throws Exception {
        Path timeline = tmp.resolve("from-config.json");
        Path config = Files.writeString(tmp.resolve("horovod.yaml"), """
                timeline:
                  filename: %s
                  mark_cycles: true
                stall_check:
                  enabled: true
                  warning_time_seconds: 2
                  shutdown_time_seconds: 600
                """.formatted(timeline));
        long t0 = System.nanoTime();
        try (RunSupport run = RunSupport.start(tmp, probeArgs(new String[] {"--config-file", config.toString(),
                "--hang-timeout", "4"}, List.of("hang")))) {
            run.awaitOut(o -> o.contains("rank 1 hangs"), "the hang");
            RunSupport.Result r = run.waitFor();
            run.assertNoSurvivors();
            long seconds = (System.nanoTime() - t0) / 1_000_000_000;
            assertEquals(124, r.exitCode(), r.toString());
            assertTrue(r.err().contains("troika: hang: no rank made progress for 4 s"), r.toString());
            assertTrue(r.err().contains("troika: warning: " + config + ": timeline.mark_cycles has no meaning in troika;"
                    + " ignored\n"), r.toString());
            assertTrue(seconds < 100, "the file's 600 s timeout would still be waiting: " + seconds + " s\n" + r);
            String json = Files.readString(timeline);
            assertTrue(json.contains("\"cat\":\"hang\""), json);
        }
    }

    @Test
    void aBadValueIsOneLineNamingTheKeyAndLaunchesNothing() throws Exception {
        Path config = Files.writeString(tmp.resolve("bad.yaml"), "params:\n  fusion_threshold_mb: lots\n");
        RunSupport.Result r = probe("--config-file", config.toString());
        assertEquals(2, r.exitCode(), r.toString());
        assertEquals("troika: error: config file " + config + ": params.fusion_threshold_mb must be a number from 0"
                + " to 1024, got 'lots'\n", r.err());
        assertEquals("", r.out());
    }
}
