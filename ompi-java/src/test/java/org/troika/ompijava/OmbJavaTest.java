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
 * buffers and on arrays, on Open MPI 4.1, MPICH 4.0 and Open MPI 5.0, with JNA and FFM. Every benchmark runs in
 * one job per configuration ({@code src/test/programs/omb/OmbAll.java} calls each one's {@code runBenchmark}); the
 * two start-up programs run as they are.
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

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.troika.ompijava.Programs#configurations")
    void everyBenchmarkValidatesOnBuffersAndArrays(Launcher launcher, Programs.Backend backend) {
        MpiJob.Result r = Programs.runDropIn(launcher, backend, 2, classes.toString(), "ombdriver.OmbAll", OPTIONS,
                600);
        assertEquals(0, r.exitCode(), r.output());
        List<String> done = r.lines().stream().filter(l -> l.startsWith("BENCHMARK ")).toList();
        assertEquals(34, done.size(), "18 benchmarks on buffers, 16 on arrays:\n" + r.output());
        assertFalse(r.output().contains("validation failed"), r.output());
        assertFalse(r.output().contains("Exception"), r.output());
        // each benchmark printed result rows: sizes 1..8192 for latency, 4..8192 for the float collectives
        assertTrue(r.lines().stream().filter(l -> l.startsWith("8192\t")).count() >= 30, r.output());
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
