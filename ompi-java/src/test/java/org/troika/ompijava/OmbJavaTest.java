package org.troika.ompijava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.troika.testkit.MpiJob;
import org.troika.testkit.MpiJob.Launcher;
import org.troika.testkit.Requires;

/**
 * The OSU Micro-Benchmarks for Java, unchanged, compile against the drop-in (all of them, including OSUBandwidth
 * and OSUBiBandwidth, which Open MPI's own API cannot compile) and run with validation ({@code -c}) on direct
 * buffers and on arrays, on Open MPI 4.1, MPICH 4.0 and Open MPI 5.0, with JNA and FFM (each MPI and each backend
 * on both APIs, see {@link #api}). Every benchmark runs in one job per configuration
 * ({@code src/test/programs/omb/OmbAll.java} calls each one's {@code runBenchmark}); the two start-up programs run
 * as they are.
 */
@Tag("integration")
class OmbJavaTest {
    /** Small sizes and few iterations: the benchmarks' own 10,000 warm-up rounds dominate anyway. */
    static final List<String> OPTIONS = List.of("-m", "1:8192", "-i", "10", "-x", "2");
    @TempDir
    static Path work;
    static Path classes;

    @BeforeAll
    static void compile() throws Exception {
        Requires.check(Files.isDirectory(Programs.OMB.resolve("mpi")), "the OSU Micro-Benchmarks for Java "
                + Programs.OMB + " are missing: set TROIKA_OMB_JAVA to their folder");
        classes = Files.createDirectories(work.resolve("classes"));
        List<String> files = new ArrayList<>(Programs.omb());
        files.addAll(Programs.sources("omb"));
        Programs.compileAgainstDropIn(files, classes, null);
    }

    /**
     * The API a configuration runs the benchmarks on, alternating so that every MPI runs them on arrays and on
     * buffers and every backend runs both on some MPI: Open MPI 4 arrays on JNA and buffers on FFM, MPICH buffers on
     * JNA and arrays on FFM, Open MPI 5 as Open MPI 4. Half the CI time of both APIs in every configuration (the
     * benchmarks' fixed 10,000 warm-up rounds per run dominate it); the differential test covers both APIs on every
     * configuration.
     */
    static String api(Launcher launcher, Programs.Backend backend) {
        return (launcher.ordinal() + backend.ordinal()) % 2 == 0 ? "arrays" : "buffer";
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.troika.ompijava.Programs#configurations")
    void everyBenchmarkValidates(Launcher launcher, Programs.Backend backend) {
        String api = api(launcher, backend);
        List<String> args = new ArrayList<>(List.of(api));
        args.addAll(OPTIONS);
        // a generous deadline: at load 30 on the 2 shared cores one job took up to 10 minutes
        MpiJob.Result r = Programs.runDropIn(launcher, backend, 2, classes.toString(), "ombdriver.OmbAll", args,
                1500);
        assertEquals(0, r.exitCode(), r.output());
        List<String> done = r.lines().stream().filter(l -> l.startsWith("BENCHMARK ")).toList();
        // 18 benchmarks on buffers; on arrays 16 (the two *OMPI programs refuse arrays on purpose)
        int expected = api.equals("buffer") ? 18 : 16;
        assertEquals(expected, done.size(), api + ":\n" + r.output());
        assertTrue(done.stream().allMatch(l -> l.endsWith(" " + api + " done")), done.toString());
        assertFalse(r.output().contains("validation failed"), r.output());
        assertFalse(r.output().contains("Exception"), r.output());
        // each benchmark printed result rows: sizes 1..8192 for latency, 4..8192 for the float collectives
        assertTrue(r.lines().stream().filter(l -> l.startsWith("8192\t")).count() >= expected - 4, r.output());
    }

    @Test
    void startUpProgramsRunAsTheyAre() {
        for (String main : List.of("mpi.startup.HelloWorld", "mpi.startup.OMPIHelloWorld")) {
            MpiJob.Result r = Programs.runDropIn(Launcher.OPEN_MPI, Programs.Backend.JNA, 3, classes.toString(), main,
                    List.of(), 120);
            assertEquals(0, r.exitCode(), r.output());
            for (int rank = 0; rank < 3; rank++) {
                String mine = "<" + rank + ">";
                assertTrue(r.lines().stream().anyMatch(l -> l.contains(mine)), main + ": nothing from rank " + rank
                        + ":\n" + r.output());
            }
        }
    }
}
