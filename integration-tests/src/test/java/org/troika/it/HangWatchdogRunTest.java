package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.troika.testkit.Dist;
import org.troika.testkit.NetnsCluster;
import org.troika.testkit.Requires;

/**
 * The hang watchdog and the timeline end to end, with the packaged distribution: a Java rank that sleeps forever in
 * the middle of a training loop is named (told apart from the ranks blocked in the allreduce waiting for it) and the
 * job ends with exit 124 soon after the timeout; a slow but progressing job is never killed; ranks without progress
 * reports are watched by their output; an elastic job survives a stuck rank (next generation, its host blacklisted)
 * and keeps its timeline in the output directory.
 */
@Tag("integration")
class HangWatchdogRunTest {
    static final String HANG_TRAINING = """
            import org.troika.mpi.Mpi;
            import org.troika.mpi.Op;
            import org.troika.worker.Progress;

            public class HangTraining {
                public static void main(String[] a) throws Exception {
                    int steps = Integer.parseInt(a[0]);
                    long stepMillis = Long.parseLong(a[1]);
                    int victim = Integer.parseInt(a[2]);
                    int stuckAt = Integer.parseInt(a[3]);
                    try (Mpi mpi = Mpi.init()) {
                        int rank = Mpi.world().rank();
                        double[] g = new double[16];
                        for (int step = 0; step < steps; step++) {
                            Progress.beat("step " + step);
                            if (rank == victim && step == stuckAt) {
                                System.out.println("rank " + rank + " stalls at step " + step);
                                Thread.sleep(Long.MAX_VALUE);
                            }
                            g[0] = rank;
                            Mpi.world().allreduce(g, Op.SUM);
                            Thread.sleep(stepMillis);
                        }
                        System.out.println("rank " + rank + " done");
                    }
                }
            }
            """;

    @TempDir
    static Path classes;
    @TempDir
    Path tmp;

    @BeforeAll
    static void compile() throws Exception {
        compileHangTraining(classes);
    }

    /** Compiles {@link #HANG_TRAINING} against the packaged troika into {@code classes}. */
    static void compileHangTraining(Path classes) throws Exception {
        Path src = classes.resolve("HangTraining.java");
        Files.writeString(src, HANG_TRAINING);
        // the compiler API does not expand "lib/*" (the java launcher does): list the jars
        String cp;
        try (var jars = Files.list(Dist.home().resolve("lib"))) {
            cp = String.join(":", jars.filter(j -> j.toString().endsWith(".jar")).map(Path::toString).toList());
        }
        int rc = ToolProvider.getSystemJavaCompiler().run(null, null, null, "-cp", cp, "-d", classes.toString(),
                src.toString());
        assertEquals(0, rc, "javac failed");
    }

    private static String classPath() {
        return classes + ":" + Dist.home().resolve("lib") + "/*";
    }

    @Test
    void aRankAsleepMidTrainingIsNamedAndTheJobEndsSoonAfterTheTimeout() throws Exception {
        Path timeline = tmp.resolve("hang.json");
        long t0 = System.nanoTime();
        try (RunSupport run = RunSupport.start(tmp, "--hang-timeout", "4", "--start-timeout", "30", "--timeline",
                timeline.toString(), "-np", "3", "-H", "localhost:3", "java", "-cp", classPath(), "HangTraining",
                "100000", "50", "2", "5")) {
            run.awaitOut(o -> o.contains("rank 2 stalls at step 5"), "the stall");
            long stalled = System.nanoTime();
            RunSupport.Result r = run.waitFor();
            long afterStall = (System.nanoTime() - stalled) / 1_000_000;
            run.assertNoSurvivors();
            assertEquals(124, r.exitCode(), r.toString());
            assertTrue(r.err().contains("troika: hang: no rank made progress for 4 s"), r.toString());
            assertTrue(r.err().contains("troika: hang:   rank 2 on host localhost is stuck: never arrived at allreduce "
                    + "#6; last seen "), r.toString());
            assertTrue(r.err().contains("at 'step 5'"), r.toString());
            assertTrue(r.err().contains("troika: hang:   ranks 0,1 (host localhost) are blocked inside allreduce #6, "
                    + "waiting for it"), r.toString());
            // the timeout, the reporting interval, the check step and a 5 s teardown grace, on a loaded machine
            assertTrue(afterStall < 4_000 + 15_000, "ended " + afterStall + " ms after the stall\n" + r);
            assertTrue(afterStall >= 3_500, "ended before the timeout: " + afterStall + " ms\n" + r);
            String json = Files.readString(timeline);
            assertTrue(json.contains("\"name\":\"rank 2 stuck\",\"cat\":\"hang\""), json);
            assertTrue(json.contains("\"cat\":\"plan\"") && json.contains("\"cat\":\"mpirun\""), json);
            assertTrue(Files.readString(tmp.resolve("hang.html")).contains("host localhost"));
            assertTrue((System.nanoTime() - t0) / 1_000_000_000 < 120);
        }
    }

    @Test
    void aSlowButProgressingJobIsNeverKilled() throws Exception {
        // 7 steps of 1 s each under a 2 s timeout: the job runs well past the timeout and finishes
        RunSupport.Result r = RunSupport.run(tmp, "--hang-timeout", "2", "--start-timeout", "30", "-np", "2", "-H",
                "localhost:2", "java", "-cp", classPath(), "HangTraining", "7", "1000", "-1", "-1");
        assertEquals(0, r.exitCode(), r.toString());
        assertTrue(r.out().contains("rank 0 done") && r.out().contains("rank 1 done"), r.toString());
        assertFalse(r.err().contains("hang"), r.toString());
    }

    /**
     * Issues 21 and 22: output is progress while it flows. A 300 kB line used to stall the output pump (a regular
     * expression run twice per line, quadratic in its length) and dated lines ({@code --prefix-output-with-timestamp})
     * were not read as any rank's: a healthy job that ticks every half second was ended as a hang (exit 124).
     */
    @ParameterizedTest(name = "timestamps {0}")
    @ValueSource(booleans = {false, true})
    void aHealthyJobPrintingLongAndDatedLinesIsNoHang(boolean timestamps) throws Exception {
        Path script = tmp.resolve("long-then-tick.sh");
        Files.writeString(script, "#!/bin/sh\nhead -c 300000 /dev/zero | tr '\\000' x; echo\n"
                + "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo tick $i; sleep 0.5; done\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        List<String> args = new ArrayList<>(List.of("--hang-timeout", "3", "-np", "2", "-H", "localhost:2"));
        if (timestamps) {
            args.add("--prefix-output-with-timestamp");
        }
        args.add(script.toString());
        RunSupport.Result r = RunSupport.run(tmp, args.toArray(String[]::new));
        assertEquals(0, r.exitCode(), r.toString());
        assertFalse(r.err().contains("hang"), r.toString());
    }

    @Test
    void ranksWithoutReportsAreWatchedByTheirOutput() throws Exception {
        Path script = tmp.resolve("talk-then-stop.sh");
        // rank 0 keeps printing, rank 1 prints twice and goes quiet
        Files.writeString(script, "#!/bin/sh\nr=${OMPI_COMM_WORLD_RANK:-0}\nfor i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14;"
                + " do if [ $r = 0 ] || [ $i -le 2 ]; then echo tick $i; fi; sleep 0.5; done\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        RunSupport.Result r = RunSupport.run(tmp, "--hang-timeout", "3", "-np", "2", "-H", "localhost:2",
                script.toString());
        assertEquals(124, r.exitCode(), r.toString());
        assertTrue(r.err().contains("troika: hang: 1 rank(s) made no progress for 3 s while the others did"),
                r.toString());
        assertTrue(r.err().contains("rank 1 on host localhost is stuck: last seen")
                && r.err().contains("watched by its output only"), r.toString());
        assertFalse(r.err().contains("rank 0 on host localhost is stuck"), r.toString());
    }

    @Test
    void aPythonRankReportingThroughTheDocumentedProtocolIsJudgedByItsReportsNotItsOutput() throws Exception {
        Requires.command("python3");
        Path client = Path.of("..", "examples", "python", "troika_progress.py").toAbsolutePath().normalize();
        Path rank = tmp.resolve("rank.py");
        // rank 1 stops beating at step 5 but goes on printing: its reports, not its output, say it is stuck (reports
        // are sent at most once per interval, so the last one seen is from step 4 or a little earlier)
        Files.writeString(rank, String.join("\n",
                "import sys, time",
                "sys.path.insert(0, '" + client.getParent() + "')",
                "import troika_progress",
                "p = troika_progress.Progress()",
                "for step in range(60):",
                "    if not (p.rank == 1 and step >= 5):",
                "        p.beat('step %d' % step)",
                "    print('rank %d step %d' % (p.rank, step), flush=True)",
                "    time.sleep(0.25)",
                ""));
        RunSupport.Result r = RunSupport.run(tmp, "--hang-timeout", "3", "-np", "2", "-H", "localhost:2", "python3",
                rank.toString());
        assertEquals(124, r.exitCode(), r.toString());
        assertTrue(r.err().contains("troika: hang:   rank 1 on host localhost is stuck: last seen")
                && Pattern.compile("at 'step [0-4]'").matcher(r.err()).find(), r.toString());
        assertFalse(r.err().contains("rank 0 on host localhost is stuck"), r.toString());
    }

    @Test
    void anElasticJobReplacesTheHostOfAStuckRankAndKeepsItsTimeline() throws Exception {
        Requires.root();
        Requires.command("mpirun");
        try (NetnsCluster c = NetnsCluster.create("hwd", 132, 3)) {
            List<String> h = c.hosts().stream().map(NetnsCluster.Host::address).toList();
            Path hosts = tmp.resolve("hosts");
            Files.writeString(hosts, h.get(0) + ":1\n" + h.get(1) + ":1\n" + h.get(2) + ":1\n");
            Path discover = tmp.resolve("discover.sh");
            Files.writeString(discover, "#!/bin/sh\ncat " + hosts + "\n");
            Files.setPosixFilePermissions(discover, PosixFilePermissions.fromString("rwx------"));
            Path out = tmp.resolve("out");
            RunSupport.Result r;
            try (RunSupport run = RunSupport.start(tmp, Map.of("OMPI_MCA_hwloc_base_binding_policy", "none"),
                    "--host-discovery-script", discover.toString(), "--min-np", "2", "--max-np", "2",
                    "--hang-timeout", "5", "--output-filename", out.toString(), "--remote-shell", c.remoteShell(),
                    "--network-interface", c.subnet(), "java", "-cp", Dist.home().resolve("lib") + "/*",
                    "org.troika.examples.ElasticTraining", "--steps", "40", "--commit-every", "5", "--step-ms", "50",
                    "--stall-rank", "1", "--stall-step", "17")) {
                r = run.waitFor();
                run.assertNoSurvivors();
            }
            assertEquals(0, r.exitCode(), r.toString());
            assertTrue(r.err().contains("troika: hang:   rank 1 on host " + h.get(1) + " is stuck: never arrived at "
                    + "allreduce"), r.toString());
            assertTrue(r.err().contains("blacklisted host " + h.get(1)), r.toString());
            assertTrue(r.err().contains("generation 2 (failure): 2 ranks on " + h.get(0) + ":1," + h.get(2) + ":1"),
                    r.toString());
            assertTrue(r.out().contains("done steps=40"), r.toString());
            // committed steps 5, 10, 15 before the stall; nothing before step 15 was lost
            ElasticRunTest.assertContiguous(ElasticRunTest.commits(r.out()), 40, r);
            String json = Files.readString(out.resolve("timeline.json"));
            for (String event : List.of("\"name\":\"generation 1 (2 ranks)\",\"cat\":\"generation\"",
                    "\"name\":\"generation 2 (2 ranks)\",\"cat\":\"generation\"", "\"name\":\"rank 1 stuck\",\"cat\":\"hang\"",
                    "\"name\":\"blacklisted\",\"cat\":\"blacklist\"", "\"name\":\"task service\",\"cat\":\"task service\"",
                    "\"name\":\"rank 1 exit 124\",\"cat\":\"failure\"", "\"cat\":\"commit\"")) {
                assertTrue(json.contains(event), event + " missing in " + json);
            }
            assertEquals(4, countMatches(json, "\"name\":\"thread_name\""), "launcher + 3 host rows: " + json);
            assertTrue(Files.readString(out.resolve("timeline.html")).contains("host " + h.get(2)));
            Files.copy(out.resolve("timeline.html"), Path.of("target", "elastic-hang-timeline.html"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static int countMatches(String s, String what) {
        Matcher m = Pattern.compile(Pattern.quote(what)).matcher(s);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}
