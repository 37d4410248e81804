package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.troika.testkit.Dist;
import org.troika.testkit.MachineLock;
import org.troika.testkit.Requires;

/**
 * A real Slurm cluster of three emulated nodes {@code n[1-3]} on this machine (munged, slurmctld, three slurmd,
 * each in its own UTS + mount namespace; see {@code src/test/resources/slurm/slurm-up.sh}). A batch script rendered
 * by the packaged {@code troika template slurm} is submitted with {@code sbatch}; its body is
 * {@code troika run <command>} with no {@code -np}/{@code -H}, so troika must read the allocation.
 * The job is awaited by polling {@code scontrol} (faster than {@code sbatch --wait}); everything is stopped by
 * pid file afterwards.
 */
@Tag("integration")
class SlurmClusterTest {
    private static final Duration STEP_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(180);
    private static final Pattern RANK_LINE = Pattern.compile("rank=(\\d+) host=(\\S+)");
    private static Path dir;
    /** The packaged troika, copied into the state directory: each slurmd has a private /tmp, so a checkout under
     *  /tmp (as CI's may be) would be invisible to the jobs. */
    private static Path troika;
    /** The cluster's ports are fixed: one Slurm test cluster per machine at a time. */
    private static MachineLock lock;

    @BeforeAll
    static void startCluster() throws Exception {
        Requires.root();
        for (String tool : List.of("munged", "slurmctld", "slurmd", "sbatch", "scontrol", "sinfo", "unshare", "mpirun")) {
            Requires.command(tool);
        }
        lock = MachineLock.take("slurm-cluster");
        dir = Files.createTempDirectory(Path.of("/var/tmp"), "troika-it-slurm-");
        for (String script : List.of("slurm-up.sh", "slurm-down.sh")) {
            try (InputStream in = SlurmClusterTest.class.getResourceAsStream("/slurm/" + script)) {
                Files.copy(in, dir.resolve(script));
            }
        }
        troika = copyTree(Dist.home(), dir.resolve("troika")).resolve("bin").resolve("troika");
        Result up = run(List.of("bash", dir.resolve("slurm-up.sh").toString()), Map.of("NODES", "3", "CPUS", "2"));
        if (up.exitCode != 0) {
            fail("slurm-up.sh failed (" + up.exitCode + "):\n" + up.output());
        }
    }

    @AfterAll
    static void stopCluster() throws Exception {
        try (MachineLock held = lock) {
            if (dir == null) {
                return;
            }
            try {
                run(List.of("bash", dir.resolve("slurm-down.sh").toString()), Map.of());
            } finally {
                try (Stream<Path> files = Files.walk(dir)) {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    @Test
    void templateJobRunsOneRankPerSlotOnTheAllocatedNodes() throws Exception {
        Map<Integer, String> hostByRank = runTemplateJob("all", List.of());
        assertEquals(Map.of(0, "n1", 1, "n1", 2, "n2", 3, "n2", 4, "n3", 5, "n3"), hostByRank);
    }

    @Test
    void npAloneTakesTheFirstSlotsInAllocationOrder() throws Exception {
        Map<Integer, String> hostByRank = runTemplateJob("np3", List.of("-np", "3"));
        assertEquals(Map.of(0, "n1", 1, "n1", 2, "n2"), hostByRank);
    }

    /**
     * Renders {@code troika template slurm -N 3 -n 2 -- <runOptions> sh -c 'echo rank host'} with the packaged
     * troika, submits it, waits, and returns the host each rank printed.
     */
    private static Map<Integer, String> runTemplateJob(String name, List<String> runOptions) throws Exception {
        Path out = dir.resolve(name + ".out");
        List<String> argv = new ArrayList<>(List.of(troika.toString(), "template", "slurm", "--nodes", "3",
                "--tasks-per-node", "2", "--job-name", "troika-it-" + name, "--output", out.toString(),
                "--troika", troika.toString(), "--"));
        argv.addAll(runOptions);
        argv.addAll(List.of("sh", "-c", "echo \"rank=${TROIKA_RANK:-$OMPI_COMM_WORLD_RANK} host=$(hostname)\""));
        Result rendered = run(argv, Map.of());
        assertEquals(0, rendered.exitCode, rendered.output());
        // users redirect this output into a file and submit it: nothing but the script may reach stdout
        assertEquals("#!/bin/bash", rendered.stdout.lines().findFirst().orElse(""),
                () -> "troika template printed something before the script:\n" + rendered.stdout);
        Path script = dir.resolve(name + ".sh");
        Files.writeString(script, rendered.stdout);

        String state = submitAndWait(script);
        String output = Files.exists(out) ? Files.readString(out) : "(no job output)";
        assertEquals("COMPLETED", state, () -> "job output:\n" + output + "\n" + logs());

        Map<Integer, String> hostByRank = new TreeMap<>();
        Matcher m = RANK_LINE.matcher(output);
        while (m.find()) {
            String before = hostByRank.put(Integer.parseInt(m.group(1)), m.group(2));
            assertEquals(null, before, () -> "rank printed twice:\n" + output);
        }
        return hostByRank;
    }

    private static Path copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        return to;
    }

    /** Submits {@code script} from the state directory and polls scontrol until the job is final. */
    private static String submitAndWait(Path script) throws Exception {
        Result sub = run(List.of("sbatch", "--parsable", "-D", dir.toString(), script.toString()), Map.of());
        assertEquals(0, sub.exitCode, sub.output());
        String jobId = sub.stdout.strip().split(";")[0];
        Instant deadline = Instant.now().plus(JOB_TIMEOUT);
        String state = "";
        try {
            while (Instant.now().isBefore(deadline)) {
                Result show = run(List.of("scontrol", "show", "job", "-o", jobId), Map.of());
                Matcher m = Pattern.compile("JobState=(\\S+)").matcher(show.stdout);
                state = m.find() ? m.group(1) : "";
                if (List.of("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL",
                        "DEADLINE", "PREEMPTED").contains(state)) {
                    return state;
                }
                Thread.sleep(100); // polling interval of an external system, not a timing assertion
            }
            return "still " + state + " after " + JOB_TIMEOUT;
        } finally {
            if (!state.equals("COMPLETED")) {
                run(List.of("scancel", jobId), Map.of());
            }
        }
    }

    /** The tails of the daemons' logs, for failure messages. */
    private static String logs() {
        try {
            return logTails();
        } catch (IOException e) {
            return "(logs unreadable: " + e + ")";
        }
    }

    private static String logTails() throws IOException {
        StringBuilder sb = new StringBuilder();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path log : files.filter(p -> p.toString().endsWith(".log")).sorted().toList()) {
                List<String> lines = Files.readAllLines(log);
                sb.append("--- ").append(log.getFileName()).append('\n')
                        .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size())))
                        .append('\n');
            }
        }
        return sb.toString();
    }

    /** A finished command: exit code, stdout, stderr. */
    private record Result(int exitCode, String stdout, String stderr) {
        String output() {
            return stdout + stderr;
        }
    }

    /** Runs a short command with the cluster's environment. */
    private static Result run(List<String> argv, Map<String, String> extraEnv) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(argv)).directory(dir.toFile());
        Map<String, String> env = pb.environment();
        env.put("D", dir.toString());
        env.put("SLURM_CONF", dir.resolve("slurm.conf").toString());
        // sbatch exports the submitter's environment to the job: Open MPI as root, no binding on emulated nodes
        env.put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        env.put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        env.put("OMPI_MCA_hwloc_base_binding_policy", "none");
        env.putAll(new HashMap<>(extraEnv));
        Path out = Files.createTempFile(dir, "cmd-", ".out");
        Path err = Files.createTempFile(dir, "cmd-", ".err");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        try {
            p.getOutputStream().close();
            if (!p.waitFor(STEP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                throw new AssertionError(argv + " did not finish within " + STEP_TIMEOUT + ":\n"
                        + Files.readString(out) + Files.readString(err));
            }
            return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            p.destroyForcibly();
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
