package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.troika.common.exec.ExactExec;
import org.troika.common.exec.LaunchPlan;
import org.troika.common.exec.NativeText;
import org.troika.common.exec.ProcessTable;
import org.troika.testkit.Dist;
import org.troika.testkit.MpiJob.Launcher;

/**
 * Runs the packaged {@code bin/troika run ...} for the {@code Run*Test} end-to-end tests, under one MPI under test
 * (host Open MPI 4 by default, MPICH through {@code TROIKA_MPIRUN}, Open MPI 5 with troika itself running inside the
 * trixie root). Every process of a run carries a unique marker in its environment, so a test can check that nothing
 * survived and kill (by pid) only what it started.
 */
final class RunSupport implements AutoCloseable {
    static final String MARKER = "TROIKA_IT_MARKER";
    /** Generous: the machine is shared with other builds. */
    static final long TIMEOUT_S = 120;

    final String marker = UUID.randomUUID().toString();
    private final Process process;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final Thread outReader;
    private final Thread errReader;
    /** Every complete line of stdout and stderr, with when troika's pipe delivered it (for benchmarks). */
    private final List<Line> lines = new ArrayList<>();

    /**
     * One complete output line, {@code err} for stderr, and the {@link System#nanoTime()} at which the chunk that
     * ended it arrived (what a user watching troika's output sees, not when the rank wrote it).
     */
    record Line(long at, boolean err, String text) {}

    /** Exit code, stdout and stderr of a finished run. */
    record Result(int exitCode, String out, String err) {
        List<String> outLines() {
            return out.lines().toList();
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private RunSupport(Launcher mpi, List<String> runArgs, Path workDir, Map<String, String> extraEnv) {
        mpi.require();
        List<String> argv = new ArrayList<>();
        argv.add(Dist.troika().toString());
        argv.add("run");
        argv.addAll(runArgs);
        Map<String, String> env = new HashMap<>(NativeText.environment());
        mpi.applyEnvironment(env);
        if (mpi == Launcher.MPICH) {
            env.put("TROIKA_MPIRUN", mpi.command());
        }
        if (workDir != null) {
            // troika's private files (secret files of task services on hosts a test kills) land in the test's folder
            env.put("TMPDIR", workDir.toString());
        }
        env.putAll(extraEnv);
        env.put(MARKER, marker);
        // arguments and variables are passed as the bytes they stand for (NativeText), as a shell would
        LaunchPlan plan = ExactExec.SYSTEM.plan(new LaunchPlan(mpi.wrap(argv), env));
        ProcessBuilder pb = new ProcessBuilder(plan.argv())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().clear();
        pb.environment().putAll(plan.env());
        if (workDir != null) {
            pb.directory(workDir.toFile());
        }
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + argv, e);
        }
        outReader = copy(process.getInputStream(), out, false);
        errReader = copy(process.getErrorStream(), err, true);
    }

    /** Starts {@code troika run ARGS...} on the host's Open MPI. */
    static RunSupport start(Path workDir, String... runArgs) {
        return start(Launcher.OPEN_MPI, workDir, Map.of(), runArgs);
    }

    /** Starts {@code troika run ARGS...} with extra environment variables (e.g. a {@code PATH} with a fake mpirun). */
    static RunSupport start(Path workDir, Map<String, String> extraEnv, String... runArgs) {
        return start(Launcher.OPEN_MPI, workDir, extraEnv, runArgs);
    }

    /** Starts {@code troika run ARGS...} on the MPI under test {@code mpi}, with extra environment variables. */
    static RunSupport start(Launcher mpi, Path workDir, Map<String, String> extraEnv, String... runArgs) {
        return new RunSupport(mpi, List.of(runArgs), workDir, extraEnv);
    }

    /** Runs {@code troika run ARGS...} on the host's Open MPI to the end and checks nothing it started survived. */
    static Result run(Path workDir, String... runArgs) throws InterruptedException {
        return run(Launcher.OPEN_MPI, workDir, runArgs);
    }

    /** Runs {@code troika run ARGS...} on {@code mpi} to the end and checks nothing it started survived. */
    static Result run(Launcher mpi, Path workDir, String... runArgs) throws InterruptedException {
        try (RunSupport r = start(mpi, workDir, Map.of(), runArgs)) {
            Result res = r.waitFor();
            r.assertNoSurvivors();
            return res;
        }
    }

    /**
     * The tag the MPI's launcher puts before a rank's output line as troika plans it: Open MPI 4
     * {@code [1,R]<stdout>:}, Open MPI 5 {@code [1,R]<stdout>: } (PRRTE adds a space), MPICH {@code [R] } ({@code -l}).
     */
    static String tag(Launcher mpi, int rank, String stream) {
        return switch (mpi) {
            case OPEN_MPI -> "[1," + rank + "]<" + stream + ">:";
            case OPEN_MPI_5 -> "[1," + rank + "]<" + stream + ">: ";
            case MPICH -> "[" + rank + "] ";
        };
    }

    long pid() {
        return process.pid();
    }

    String out() {
        synchronized (out) {
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    String err() {
        synchronized (err) {
            return err.toString(StandardCharsets.UTF_8);
        }
    }

    /** The output lines (both streams, in arrival order) from index {@code from} on. */
    List<Line> lines(int from) {
        synchronized (lines) {
            return from >= lines.size() ? List.of() : List.copyOf(lines.subList(from, lines.size()));
        }
    }

    boolean alive() {
        return process.isAlive();
    }

    /** Waits (up to {@link #TIMEOUT_S}) until stdout satisfies {@code condition}. */
    void awaitOut(Predicate<String> condition, String what) throws InterruptedException {
        await(this::out, condition, what);
    }

    /** Waits (up to {@link #TIMEOUT_S}) until stderr satisfies {@code condition}. */
    void awaitErr(Predicate<String> condition, String what) throws InterruptedException {
        await(this::err, condition, what);
    }

    private void await(java.util.function.Supplier<String> stream, Predicate<String> condition, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        while (!condition.test(stream.get())) {
            if (System.nanoTime() > deadline || !process.isAlive() && !condition.test(stream.get())) {
                throw new AssertionError("never saw " + what + "\n--- stdout\n" + out() + "--- stderr\n" + err());
            }
            Thread.sleep(50);
        }
    }

    /** Sends a signal to troika's JVM, as a terminal's Ctrl-C ({@code INT}) or {@code kill} would. */
    void signal(String name) throws IOException, InterruptedException {
        Process k = new ProcessBuilder("kill", "-s", name, Long.toString(process.pid())).inheritIO().start();
        assertTrue(k.waitFor(60, TimeUnit.SECONDS) && k.exitValue() == 0, "kill -s " + name + " failed");
    }

    Result waitFor() throws InterruptedException {
        if (!process.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
            throw new AssertionError("troika run did not finish in " + TIMEOUT_S + " s\n--- stdout\n" + out()
                    + "--- stderr\n" + err());
        }
        outReader.join(TimeUnit.SECONDS.toMillis(30));
        errReader.join(TimeUnit.SECONDS.toMillis(30));
        return new Result(process.exitValue(), out(), err());
    }

    /** Waits until no process carries this run's marker; kills the survivors by pid and fails if there were any. */
    void assertNoSurvivors() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<ProcessHandle> left = ProcessTable.withEnv(MARKER, marker);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(100);
            left = ProcessTable.withEnv(MARKER, marker);
        }
        if (!left.isEmpty()) {
            List<String> info = new ArrayList<>();
            for (ProcessHandle h : left) {
                info.add(h.pid() + " " + h.info().commandLine().orElse("?"));
                h.destroyForcibly();
            }
            throw new AssertionError("processes survived troika: " + info);
        }
    }

    /** Kills troika and everything carrying the marker if the test left it running. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
        for (ProcessHandle h : ProcessTable.withEnv(MARKER, marker)) {
            h.destroyForcibly();
        }
    }

    private Thread copy(InputStream in, ByteArrayOutputStream to, boolean isErr) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[8192];
            ByteArrayOutputStream partial = new ByteArrayOutputStream();
            try (in) {
                for (int n; (n = in.read(buf)) > 0; ) {
                    long at = System.nanoTime();
                    synchronized (to) {
                        to.write(buf, 0, n);
                    }
                    int start = 0;
                    for (int i = 0; i < n; i++) {
                        if (buf[i] == '\n') {
                            partial.write(buf, start, i - start);
                            Line l = new Line(at, isErr, partial.toString(StandardCharsets.UTF_8));
                            partial.reset();
                            start = i + 1;
                            synchronized (lines) {
                                lines.add(l);
                            }
                        }
                    }
                    partial.write(buf, start, n - start);
                }
            } catch (IOException e) {
                // closed when troika is killed; what was read is kept
            }
        }, "troika-it-" + (isErr ? "stderr" : "stdout"));
        t.setDaemon(true);
        t.start();
        return t;
    }
}
