package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.testkit.Dist;

/**
 * The red team's malformed invocations through the packaged {@code bin/troika} (a real JVM per case, as a user runs
 * it), with a fake {@code mpirun} first on PATH that records every start: exit 2, one escaped {@code troika: error:}
 * line, no stack trace, no mpirun, and no hang. {@link MalformedInputTest} covers hundreds more in-process.
 */
@Tag("integration")
class MalformedInputDistTest {
    /** Far above what a refusal takes (well under a second), far below the red team's hangs (forever, 30-57 s). */
    private static final long BOUND_S = 25;

    @TempDir
    Path dir;
    private Path log;

    private record Result(int code, String out, String err, long millis) {}

    @BeforeEach
    void fakeMpirun() throws IOException {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        log = dir.resolve("mpirun.log");
        script(bin.resolve("mpirun"), "printf '%s\\n' \"$*\" >> '" + log + "'\n"
                + "case \"$1\" in --version) echo 'mpirun (Open MPI) 4.1.4';; esac\nexit 0");
    }

    private static Path script(Path p, String body) throws IOException {
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
        return p;
    }

    private Result troika(Map<String, String> env, String... args) throws Exception {
        return troika(BOUND_S, env, args);
    }

    private Result troika(long boundS, Map<String, String> env, String... args) throws Exception {
        return troika(boundS, env, List.of(), args);
    }

    /** {@code bin/troika ARGS} run by the command {@code prefix} (which ends in the program's place). */
    private Result troika(long boundS, Map<String, String> env, List<String> prefix, String... args) throws Exception {
        List<String> argv = new ArrayList<>(prefix);
        argv.add(Dist.troika().toString());
        argv.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.from(new java.io.File(
                "/dev/null")));
        Map<String, String> e = new HashMap<>(System.getenv());
        e.keySet().removeIf(k -> k.startsWith("SLURM_") || k.startsWith("LSB_") || k.startsWith("PBS_"));
        e.put("PATH", dir.resolve("bin") + ":" + e.getOrDefault("PATH", "/usr/bin:/bin"));
        e.put("HOME", dir.toString());
        e.put("TMPDIR", dir.toString());
        e.putAll(env);
        pb.environment().clear();
        pb.environment().putAll(e);
        Path out = dir.resolve("out");
        Path err = dir.resolve("err");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        long start = System.nanoTime();
        Process p = pb.start();
        if (!p.waitFor(boundS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("troika " + String.join(" ", args) + " still runs after " + boundS + " s");
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    /** Exit 2, stdout empty, one escaped error line, no mpirun; returns the line. */
    private String assertRefused(Result r) throws IOException {
        String why = "exit " + r.code() + "\n--- stderr\n" + r.err() + "--- stdout\n" + r.out();
        assertEquals(2, r.code(), why);
        assertEquals("", r.out(), why);
        List<String> lines = r.err().lines().toList();
        assertEquals(1, lines.size(), why);
        String line = lines.get(0);
        assertTrue(line.startsWith("troika: error: "), why);
        assertTrue(line.chars().noneMatch(c -> c < 0x20 || c == 0x7f), why);
        assertFalse(line.contains("Exception") || line.contains("Error:"), why);
        assertFalse(Files.exists(log) && Files.readAllLines(log).stream().anyMatch(l -> !l.equals("--version")),
                "mpirun was started: " + why);
        return line;
    }

    /**
     * Issue 23: a launch over more hosts than troika's descriptor limit allows, where the limit cannot be raised
     * (CAP_SYS_RESOURCE dropped, so also where CI's root could raise it), stops before anything starts: no task
     * service's remote shell (the template would leave a file per host), no mpirun.
     */
    @Test
    void tooFewFileDescriptorsForTheHostsIsOneLineAndStartsNothing() throws Exception {
        StringBuilder hosts = new StringBuilder();
        for (int i = 1; i <= 100; i++) {
            hosts.append(i == 1 ? "" : ",").append("h").append(i).append(":1");
        }
        Path started = Files.createDirectories(dir.resolve("started"));
        List<String> limited = List.of("setpriv", "--bounding-set=-sys_resource", "/bin/sh", "-c",
                "ulimit -n 300 && exec \"$@\"", "sh");
        String line = assertRefused(troika(BOUND_S, Map.of(), limited, "run", "--remote-shell",
                "touch " + started + "/{host}; sh -c", "-H", hosts.toString(), "-np", "100", "true"));
        assertTrue(line.contains("100 hosts need about 656 file descriptors, but troika may open at most 300"), line);
        assertTrue(line.contains("ulimit -Hn 656"), line);
        try (var left = Files.list(started)) {
            assertEquals(List.of(), left.toList(), "a task service's remote shell ran");
        }
    }

    @Test
    void hostNamesThatLookLikeOptionsNeverReachMpirun() throws Exception {
        assertTrue(assertRefused(troika(Map.of(), "run", "-H", "-np:1", "true")).contains("starts with '-'"));
        assertTrue(assertRefused(troika(Map.of(), "run", "-H", "--mca:1", "true")).contains("starts with '-'"));
        Path hf = Files.writeString(dir.resolve("hf"), "-np slots=1\n");
        assertTrue(assertRefused(troika(Map.of(), "run", "--hostfile", hf.toString(), "true"))
                .contains("host name '-np' starts with '-'"));
        assertTrue(assertRefused(troika(Map.of("LSB_JOBID", "1", "LSB_MCPU_HOSTS", "-np 1"), "run", "true"))
                .contains("host name '-np' starts with '-'"));
    }

    @Test
    void fifosAndDevicesAsHostFilesFailAtOnce() throws Exception {
        Path fifo = dir.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor());
        assertTrue(assertRefused(troika(Map.of(), "run", "--hostfile", fifo.toString(), "true")).contains("is a FIFO"));
        assertTrue(assertRefused(troika(Map.of("PBS_NODEFILE", fifo.toString()), "run", "true")).contains("is a FIFO"));
        assertTrue(assertRefused(troika(Map.of("LSB_JOBID", "1", "LSB_DJOB_HOSTFILE", fifo.toString()), "run",
                "true")).contains("is a FIFO"));
        Result zero = troika(Map.of("PBS_NODEFILE", "/dev/zero"), "run", "true");
        assertTrue(assertRefused(zero).contains("/dev/zero is a character device, not a regular file"));
        assertTrue(assertRefused(troika(Map.of(), "hosts", "--hostfile", "/dev/zero")).contains("character device"));
    }

    @Test
    void overflowingSlotsRepeatedFlagsAndEscapesAreOneLine() throws Exception {
        assertTrue(assertRefused(troika(Map.of(), "run", "-H", "a:2147483647,b:2147483647", "true"))
                .contains("more than troika's limit of 1048576 ranks"));
        assertTrue(assertRefused(troika(Map.of(), "hosts", "-H", "a:2147483647")).contains("limit"));
        assertTrue(assertRefused(troika(Map.of(), "run", "-np", "2", "-np", "3", "true"))
                .contains("-np is given twice ('2' and '3')"));
        String escaped = assertRefused(troika(Map.of(), "run", "-H", "a\u001b[31m\nb:1", "true"));
        assertTrue(escaped.contains("'a\\x1b[31m\\nb:1'"), escaped);
        assertTrue(assertRefused(troika(Map.of(), "run", "-H", "x".repeat(100_000) + ":1", "true"))
                .contains("(100000 characters)"));
        assertTrue(assertRefused(troika(Map.of(), "template")).contains("needs a batch system"));
        assertTrue(assertRefused(troika(Map.of(), "template", "slurm", "--", "-np", "x", "true"))
                .contains("after -- are not valid"));
    }

    @Test
    void aDiscoveryScriptsHugeLineAndBackgroundChildEndWithIt() throws Exception {
        Path big = script(dir.resolve("big.sh"), "head -c 20000000 /dev/zero | tr '\\000' a; echo");
        assertTrue(assertRefused(troika(Map.of(), "run", "--host-discovery-script", big.toString(), "--min-np", "1",
                "true")).contains("printed a line longer than 1024 characters"));
        Path pidFile = dir.resolve("child.pid");
        Path bg = script(dir.resolve("bg.sh"), "sleep 300 & echo $! > '" + pidFile + "'\necho 'bad host:1'");
        assertTrue(assertRefused(troika(Map.of(), "run", "--host-discovery-script", bg.toString(), "--min-np", "1",
                "true")).contains("host name 'bad host' contains a space"));
        long child = Long.parseLong(Files.readString(pidFile).strip());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Optional<ProcessHandle> h = ProcessHandle.of(child);
        while (h.isPresent() && h.get().isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            h = ProcessHandle.of(child);
        }
        if (h.isPresent() && h.get().isAlive()) {
            h.get().destroyForcibly();
            throw new AssertionError("the discovery script's background child " + child + " outlived troika");
        }
        Path failing = script(dir.resolve("fail.sh"), "echo 'inventory down' >&2; exit 1");
        String line = assertRefused(troika(Map.of(), "run", "--host-discovery-script", failing.toString(), "--min-np",
                "1", "true"));
        assertTrue(line.startsWith("troika: error: host discovery script ") && line.endsWith("exited with code 1:"
                + " inventory down"), line);
    }
    /**
     * Issue 22: a config file is bounded before it is parsed. A 60 MB file was "check its permissions", 10-20 MB ran
     * out of memory with a trace, a 6 MB comment took 17 s (SnakeYAML's reader copied its window per character), 1,000
     * levels or a self-reference were a StackOverflowError with a 1,025-line trace.
     */
    @Test
    void configFilesAreBoundedBeforeTheyAreParsed() throws Exception {
        Path huge = dir.resolve("huge.yaml");
        try (java.io.Writer w = Files.newBufferedWriter(huge)) {
            w.write("# ");
            for (int i = 0; i < 60; i++) {
                w.write("c".repeat(1_000_000));
            }
            w.write("\nparams: {}\n");
        }
        assertTrue(assertRefused(troika(Map.of(), "run", "--config-file", huge.toString(), "-np", "1", "true"))
                .contains("more than the 1048576-byte limit for config files"));
        Path deep = Files.writeString(dir.resolve("deep.yaml"), "params: " + "[".repeat(1000) + "]".repeat(1000));
        assertTrue(assertRefused(troika(Map.of(), "run", "--config-file", deep.toString(), "-np", "1", "true"))
                .contains("nests maps and lists more than 32 levels deep"));
        Path self = Files.writeString(dir.resolve("self.yaml"), "params: &p {x: *p}\n");
        assertTrue(assertRefused(troika(Map.of(), "run", "--config-file", self.toString(), "-np", "1", "true"))
                .contains("is not valid YAML"));
        // just under the limit, nearly all comment: read at once (it took seconds per MB)
        Path comment = Files.writeString(dir.resolve("comment.yaml"), "# " + "c".repeat(1_000_000)
                + "\nparams: {fusion_threshold_mb: 1}\n");
        Result ok = troika(Map.of(), "run", "--config-file", comment.toString(), "-np", "1", "--dry-run", "true");
        assertEquals(0, ok.code(), ok.err());
    }

    /**
     * Issue 22: a valid hostfile of 500,000 hosts and 1,000,000 slots (19.5 MB; the limits are 64 MiB and 1,048,576)
     * ran out of memory with a trace; and running out of memory is one line, not a trace.
     */
    @Test
    void aHalfMillionHostHostfileIsPlannedAndRunningOutOfMemoryIsOneLine() throws Exception {
        Path hosts = dir.resolve("big.hosts");
        try (java.io.Writer w = Files.newBufferedWriter(hosts)) {
            for (int i = 0; i < 500_000; i++) {
                w.write(String.format("node%06d.cluster.example.org slots=2%n", i));
            }
        }
        Result r = troika(300, Map.of(), "hosts", "--hostfile", hosts.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("# hosts from hostfile"), r.out().substring(0, Math.min(300, r.out().length())));
        assertEquals(1_000_002, r.out().lines().count());
        assertTrue(r.out().endsWith("999999 node499999.cluster.example.org 1 499999\n"));
        Result oom = troika(300, Map.of("TROIKA_JAVA_OPTS", "-Xms8m -Xmx24m"), "hosts", "--hostfile", hosts.toString());
        assertEquals(1, oom.code(), oom.err());
        assertEquals(1, oom.err().lines().count(), oom.err());
        assertTrue(oom.err().startsWith("troika: out of memory: "), oom.err());
    }
}
