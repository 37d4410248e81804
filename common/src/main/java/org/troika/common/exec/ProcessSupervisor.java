package org.troika.common.exec;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.troika.common.TroikaEnv;

/**
 * Runs one {@link LaunchPlan} as a supervised process tree. This is troika's only way to start a process: the
 * launcher runs {@code mpirun} with it, the task service runs {@code orted} with it, probes run through
 * {@link SystemCommandRunner}, which uses it too.
 *
 * <h2>What a start does</h2>
 * <pre>
 *   JVM ──ProcessBuilder──► setsid sh -c WRAPPER        new session: pid == pgid == sid (the "group")
 *     │                        ├─ setsid -f sh -c GUARD   own session, reparented to init, stdin = guard pipe
 *     │                        └─ exec argv... &lt; stdin   the plan itself, same pid, stdin /dev/null by default
 *     └── guard pipe (the child's stdin; only the JVM holds the write end)
 * </pre>
 * <ul>
 *   <li>The plan runs in its own session and process group, so a terminal's Ctrl-C does not reach it directly and
 *       the whole tree can be signalled at once ({@link #signal}).</li>
 *   <li><b>Parent-death guard:</b> the guard blocks reading the pipe. When the pipe reaches end of file — the plan
 *       exited (the JDK closes the pipe then), the JVM called {@link #close()}, exited, or was killed with {@code kill
 *       -9} — it sends SIGTERM to the group, waits up to the guard grace (5 s default) while members remain, then
 *       sends SIGKILL. If the JVM is gone (or the plan still runs, which means the same), the guard does the same
 *       to every tagged process; otherwise it waits while tagged processes remain and does so if the JVM dies
 *       before {@link #close()} ended them. It ignores SIGINT, SIGTERM and SIGHUP, lives outside the group and carries no
 *       tag, so group signals don't stop it.</li>
 *   <li>stdout and stderr are read by one daemon thread each and handed to the caller's {@link OutputSink}s from
 *       those threads, as read (up to {@value #READ_BUFFER} bytes at a time); text sinks ({@link LineSink}) get them
 *       cut into lines by a {@link LineSplitter}.</li>
 *   <li>Exit codes: the plan is exec'd, so the exit status is the program's own; death by signal N is reported as
 *       {@code 128 + N} (see {@link PosixSignal#exitCodeOf}); a program that cannot be executed gives 127 and a
 *       message on its stderr.</li>
 *   <li><b>Tag:</b> the plan and every descendant carry {@link TroikaEnv#COMMAND_TAG}{@code =}{@link #tag()} in their
 *       environment. A descendant that starts its own session ({@code setsid -f}, a double fork) leaves the group and
 *       is reparented, but keeps the tag: {@link #terminate}, {@link #close()} and the guard (after a {@code kill -9}
 *       of the JVM) find it in {@code /proc/PID/environ} and end it. Only a process that clears or rewrites its own
 *       environment before it leaves escapes (docs/process-supervision.md).</li>
 * </ul>
 *
 * <p>Needs Linux with {@code setsid} (util-linux), {@code /bin/sh} and, for the guard's tag search, {@code grep}.
 *
 * <p>Thread-safety: all methods may be called from any thread; {@link #terminate} and {@link #close} are idempotent.
 */
public final class ProcessSupervisor implements AutoCloseable {
    /** Default grace period between SIGTERM and SIGKILL. */
    public static final Duration DEFAULT_GRACE = Duration.ofSeconds(5);

    private static final String SETSID = firstExecutable("/usr/bin/setsid", "/bin/setsid");

    /**
     * Runs in the new session ($$ is the group id): starts the guard in its own session (without any outer tag, so an
     * outer supervisor's teardown does not take this guard with it), tags itself, then replaces itself with the plan.
     * $1 guard script, $2 guard grace in seconds, $3 stdin file, $4 the tag, the rest is the plan's argv. $PPID is
     * the JVM.
     */
    private static final String WRAPPER = "s=$1; g=$2; i=$3; t=$4; shift 4\n"
            + "unset " + TroikaEnv.COMMAND_TAG + "\n"
            + SETSID + " -f /bin/sh -c \"$s\" troika-guard \"$$\" \"$g\" \"$t\" \"$PPID\" >/dev/null 2>&1\n"
            + TroikaEnv.COMMAND_TAG + "=$t; export " + TroikaEnv.COMMAND_TAG + "\n"
            + "exec \"$@\" <\"$i\"\n";

    /**
     * The guard: $1 pgid (the plan's pid), $2 grace (s), $3 tag, $4 the JVM's pid. At end of file on stdin (the JDK
     * closes the pipe itself when the plan exits; or the JVM closed it, exited or was killed with SIGKILL) it tears
     * down the group: TERM, the grace while members remain, KILL. If the JVM is gone (no process, or a zombie) or the
     * plan still runs, nobody else will end the tagged rest, so it ends every process carrying the tag the same way.
     * Otherwise the JVM does that ({@link #close()}), and the guard stays while tagged processes remain, in case the
     * JVM dies before it did. One {@code grep} finds them ({@code /proc/PID/environ} is NUL-separated). While it
     * stays, it remembers the tagged processes it found (pid and start time) and looks through {@code /proc} again
     * only once none of them is left: a round (every 2 s, for as long as a daemon that left the plan runs: a rank
     * that daemonizes, or Open MPI's {@code --daemonize} daemons when a user turns tree spawn off under the relay)
     * reads one of their {@code stat} files with the shell's own {@code read}, where it read every process's
     * environment with a {@code grep} and a {@code sed}.
     */
    private static final String GUARD = "trap '' INT TERM HUP\n"
            + "PATH=/usr/bin:/bin\n"
            + "g=$1; n=$2; t=$3; j=$4\n"
            + "tagged() { grep -lzxF -- \"" + TroikaEnv.COMMAND_TAG + "=$t\" /proc/[0-9]*/environ 2>/dev/null"
            + " | sed -n 's#^/proc/\\([0-9]*\\)/environ$#\\1#p'; }\n"
            + "gone() { st=$(cat \"/proc/$j/stat\" 2>/dev/null); st=${st##*\") \"}\n"
            + "  case \"$st\" in ''|Z*|X*) return 0 ;; esac; return 1; }\n"
            // a process's start time (stat's field 22) into s, or false when it is gone
            + "started() { s=; { read -r s <\"/proc/$1/stat\"; } 2>/dev/null || return 1; s=${s##*\") \"}\n"
            + "  set -- $s; [ $# -ge 20 ] || return 1; shift 19; s=$1; }\n"
            // k: the tagged processes found, as pid:start; held: one of them still runs
            + "scan() { k=; for q in $(tagged); do started \"$q\" && k=\"$k $q:$s\"; done; }\n"
            + "held() { for e in $k; do started \"${e%%:*}\" && [ \"$s\" = \"${e#*:}\" ] && return 0; done; return 1; }\n"
            + "down() {\n"
            + "  kill -s TERM -- \"-$g\" 2>/dev/null; a=$?; p=\n"
            + "  if [ \"$1\" = 1 ]; then p=$(tagged); [ -n \"$p\" ] && kill -s TERM $p 2>/dev/null; fi\n"
            + "  [ $a -ne 0 ] && [ -z \"$p\" ] && return\n"
            + "  i=0\n"
            + "  while [ \"$i\" -lt \"$n\" ]; do\n"
            + "    kill -s 0 -- \"-$g\" 2>/dev/null; a=$?; p=\n"
            + "    [ \"$1\" = 1 ] && p=$(tagged)\n"
            + "    [ $a -ne 0 ] && [ -z \"$p\" ] && return\n"
            + "    sleep 1; i=$((i+1))\n"
            + "  done\n"
            + "  kill -s KILL -- \"-$g\" 2>/dev/null\n"
            + "  if [ \"$1\" = 1 ]; then p=$(tagged); [ -n \"$p\" ] && kill -s KILL $p 2>/dev/null; fi\n"
            + "}\n"
            + "while read -r _; do :; done\n"
            + "if kill -s 0 \"$g\" 2>/dev/null || gone; then down 1; exit 0; fi\n"
            + "down 0\n"
            + "scan\n"
            + "while [ -n \"$k\" ]; do\n"
            + "  if gone; then down 1; exit 0; fi\n"
            + "  sleep 2\n"
            + "  held || scan\n"
            + "done\n"
            + "exit 0\n";

    /**
     * How to start a plan.
     *
     * @param stdout receives the child's stdout bytes
     * @param stderr receives the child's stderr bytes
     * @param stdin file the child reads as stdin ({@code /dev/null} by default)
     * @param guardGrace the guard's grace between SIGTERM and SIGKILL after the JVM is gone (rounded up to seconds)
     * @param guard whether to start the parent-death guard (default); without it the plan still gets its own
     *     session and {@link #terminate} works, but nothing cleans up if the JVM dies: only for short commands
     *     that end by themselves (probes), where it saves two process starts
     */
    public record Options(OutputSink stdout, OutputSink stderr, Path stdin, Duration guardGrace, boolean guard) {
        public Options {
            Objects.requireNonNull(stdout, "stdout");
            Objects.requireNonNull(stderr, "stderr");
            Objects.requireNonNull(stdin, "stdin");
            if (guardGrace.isNegative()) {
                throw new IllegalArgumentException("guard grace must not be negative: " + guardGrace);
            }
        }

        /** Output as text lines to the given sinks, stdin from {@code /dev/null}, a guard with the default grace. */
        public static Options of(LineSink stdout, LineSink stderr) {
            return ofBytes(new LineSplitter(stdout), new LineSplitter(stderr));
        }

        /** Output as bytes to the given sinks, stdin from {@code /dev/null}, a guard with the default grace. */
        public static Options ofBytes(OutputSink stdout, OutputSink stderr) {
            return new Options(stdout, stderr, Path.of("/dev/null"), DEFAULT_GRACE, true);
        }

        public Options withStdin(Path file) {
            return new Options(stdout, stderr, file, guardGrace, guard);
        }

        public Options withGuardGrace(Duration grace) {
            return new Options(stdout, stderr, stdin, grace, guard);
        }

        /** No parent-death guard (see {@link #guard()}). */
        public Options withoutGuard() {
            return new Options(stdout, stderr, stdin, guardGrace, false);
        }
    }

    private final Process process;
    private final String tag;
    private final OutputStream guardPipe;
    private final Duration guardGrace;
    private final List<Thread> readers = new ArrayList<>(2);
    private final Object lock = new Object();
    private boolean guardClosed;
    /** {@link #close()} ended everything once: the plan had exited (or was ended) and its tagged rest was gone. */
    private volatile boolean closed;

    private ProcessSupervisor(Process process, String tag, Duration guardGrace) {
        this.process = process;
        this.tag = tag;
        this.guardPipe = process.getOutputStream();
        this.guardGrace = guardGrace;
    }

    /**
     * Starts {@code plan} with the environment exactly {@code plan.env()} (the plan's {@code PATH} finds its
     * program) in {@code plan.workDir()}. Words and values reach the process as the bytes they stand for
     * ({@link NativeText}, {@link ExactExec}), whatever the locale.
     *
     * @throws IOException if {@code setsid} or {@code /bin/sh} cannot be started (a missing plan program is exit 127)
     */
    public static ProcessSupervisor start(LaunchPlan plan, Options options) throws IOException {
        if (SETSID == null) {
            throw new IOException("setsid (util-linux) is not installed; troika needs it to supervise processes");
        }
        plan = ExactExec.SYSTEM.plan(plan);
        String tag = newTag();
        List<String> cmd = new ArrayList<>(plan.argv().size() + 8);
        cmd.add(SETSID);
        if (options.guard()) {
            cmd.add("/bin/sh");
            cmd.add("-c");
            cmd.add(WRAPPER);
            cmd.add("troika");
            cmd.add(GUARD);
            cmd.add(Long.toString((options.guardGrace().toMillis() + 999) / 1000)); // whole seconds, rounded up
            cmd.add(options.stdin().toString());
            cmd.add(tag);
        }
        cmd.addAll(plan.argv());
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().clear();
        pb.environment().putAll(plan.env());
        if (plan.workDir() != null) {
            pb.directory(plan.workDir().toFile());
        }
        if (!options.guard()) {
            pb.environment().put(TroikaEnv.COMMAND_TAG, tag);
            pb.redirectInput(options.stdin().toFile()); // setsid execs the plan itself: exit 127 if not found
        }
        Process p = pb.start();
        ProcessSupervisor s = new ProcessSupervisor(p, tag, options.guardGrace());
        s.readers.add(s.reader(p.getInputStream(), options.stdout(), "stdout"));
        s.readers.add(s.reader(p.getErrorStream(), options.stderr(), "stderr"));
        return s;
    }

    /** Starts {@code plan} with the default {@link Options}. */
    public static ProcessSupervisor start(LaunchPlan plan, LineSink stdout, LineSink stderr) throws IOException {
        return start(plan, Options.of(stdout, stderr));
    }

    private Thread reader(InputStream in, OutputSink sink, String stream) {
        Thread t = new Thread(() -> pump(in, sink), "troika-" + stream + "-" + process.pid());
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Bytes handed to a sink at most at a time (a pipe's default capacity on Linux). */
    static final int READ_BUFFER = 64 * 1024;
    /**
     * Bytes asked for per read call: the JDK reads through a native buffer that is on the stack up to 8 KiB and
     * malloc'd (and freed) per call above that, which costs page faults on every read of a busy stream.
     */
    static final int READ_CHUNK = 8 * 1024;
    /**
     * Longest pause after a short batch before the next read ({@value #COALESCE_NANOS} ns): what a byte can wait
     * in the pipe beyond the sink's own time.
     */
    static final long COALESCE_NANOS = 1_000_000;

    /**
     * Reads {@code in} to its end and hands the bytes on in batches: each batch is what the stream held when read,
     * up to {@value #READ_BUFFER} bytes. After a batch shorter than half of that (the writer is slower than we are)
     * the reader waits up to {@value #COALESCE_NANOS} ns before the next read, so that a writer that writes line by
     * line (mpirun does) fills the pipe with many lines in the meantime instead of waking us, and costing a read, a
     * sink call and a console write, per line. Bytes that arrive while the reader blocks in a read are handed on at
     * once: a lone line is never held back.
     */
    static void pump(InputStream in, OutputSink sink) {
        byte[] buf = new byte[READ_BUFFER];
        try (in) {
            boolean open = true;
            while (open) {
                int n = 0;
                try {
                    do {
                        int r = in.read(buf, n, Math.min(READ_CHUNK, buf.length - n));
                        if (r < 0) {
                            open = false;
                            break;
                        }
                        n += r;
                    } while (n < buf.length && in.available() > 0);
                } catch (IOException e) {
                    open = false; // closed under us (the supervisor gave up waiting): hand on what we have
                }
                if (n > 0) {
                    sink.write(buf, 0, n);
                }
                if (open && n < buf.length / 2) {
                    java.util.concurrent.locks.LockSupport.parkNanos(COALESCE_NANOS);
                }
            }
        } catch (IOException e) {
            // closing failed: nothing more to read either way
        } finally {
            sink.end();
        }
    }

    /** The plan's process id, which is also its process group and session id. */
    public long pid() {
        return process.pid();
    }

    /** The value of {@link TroikaEnv#COMMAND_TAG} every process of this plan inherits. */
    public String tag() {
        return tag;
    }

    /** The plan's process. */
    public ProcessHandle handle() {
        return process.toHandle();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits for the plan's process to exit, then closes the guard pipe (so the guard tears down whatever is left of
     * the group) and waits for both output streams to end (at most the guard grace plus 10 s, in case an escaped descendant holds them
     * open). Tagged processes outside the group (a daemon that left the session on purpose, such as {@code orted
     * --daemonize}) are left alone until {@link #close()}.
     *
     * @return the exit code, {@code 128 + N} for death by signal N
     */
    public int waitFor() throws InterruptedException {
        int code = process.waitFor();
        closeGuard();
        joinReaders(guardGrace.plusSeconds(10));
        return code;
    }

    /**
     * The plan's process's exit code, or {@code null} while it runs; never waits (nor for its output streams).
     */
    public Integer exitCode() {
        return process.isAlive() ? null : process.exitValue();
    }

    /**
     * Waits at most {@code timeout} for the plan's process to exit, and returns at once when it does (the JDK's
     * reaper wakes the waiter); unlike {@link #waitFor(Duration)} it neither closes the guard pipe nor waits for the
     * output streams.
     *
     * @return whether the process has exited
     */
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Like {@link #waitFor()} but gives up after {@code timeout}.
     *
     * @return the exit code, or {@code null} if the process is still running
     */
    public Integer waitFor(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            return null;
        }
        return waitFor();
    }

    /**
     * Sends {@code signal} to the whole process group (the plan and every descendant that stayed in it).
     *
     * @return whether a group member received it ({@code false} once the group is gone)
     */
    public boolean signal(PosixSignal signal) {
        return signalGroup(process.pid(), signal);
    }

    /** {@link #terminate(PosixSignal, Duration)} starting with SIGTERM. */
    public int terminate(Duration grace) throws InterruptedException {
        return terminate(PosixSignal.TERM, grace);
    }

    /**
     * Tears the tree down: sends {@code first} (SIGTERM or SIGINT) to the group, waits up to {@code grace} for the
     * plan's process and every descendant seen to exit, then sends SIGKILL to the group and to every descendant
     * still alive, including those that left the group; then ends every process still carrying the tag ({@link
     * #endLeftovers}: SIGTERM, up to {@code grace}, SIGKILL), which finds those that left the session and were
     * reparented. Works on a program that ignores {@code first} (such as {@code mpirun} waiting on a partitioned
     * node). Returns at once with the exit code if the tree already ended.
     * An interrupt of the calling thread (before or during the grace) skips the rest of the grace but still kills
     * the whole tree before {@link InterruptedException} is thrown.
     *
     * @return the plan's exit code ({@code 128 + N} when killed by signal N)
     */
    public int terminate(PosixSignal first, Duration grace) throws InterruptedException {
        Set<ProcessHandle> seen = new LinkedHashSet<>();
        process.descendants().forEach(seen::add);
        long deadline = System.nanoTime() + grace.toNanos();
        boolean interrupted = false;
        try {
            if (process.isAlive() || !seen.isEmpty()) {
                signalGroup(process.pid(), first);
                waitUntil(process.toHandle(), deadline);
                for (ProcessHandle h : seen) {
                    waitUntil(h, deadline);
                }
            }
        } catch (InterruptedException e) {
            interrupted = true; // an interrupt cuts the grace short; it never skips the kill below
        }
        // whatever is left now ignored the first signal (or the grace was cut short)
        process.descendants().forEach(seen::add);
        signalGroup(process.pid(), PosixSignal.KILL);
        process.destroyForcibly();
        for (ProcessHandle h : seen) {
            h.destroyForcibly();
        }
        if (interrupted || Thread.currentThread().isInterrupted()) {
            killTagged(); // no grace left: the tagged rest goes at once
            Thread.interrupted();
            interrupted = true;
        } else {
            try {
                endLeftovers(grace);
            } catch (InterruptedException e) {
                interrupted = true; // endLeftovers killed them before throwing
            }
        }
        if (interrupted) {
            throw new InterruptedException("interrupted while terminating; the process tree was killed");
        }
        return waitFor();
    }

    /**
     * Ends supervision: if the plan still runs, {@link #terminate(Duration) terminates} it with the default grace,
     * else {@link #endLeftovers ends} whatever still carries its tag (with the guard grace); always closes the guard pipe. After {@code
     * close()} no process of the plan is left, whichever session it moved to (short of one that cleared its
     * environment). A second {@code close()} after one that ended finds nothing to end and only checks the guard pipe
     * (no second walk through {@code /proc}): once the plan has exited and its tagged rest is gone, only that rest
     * could have started more.
     */
    @Override
    public void close() {
        if (closed) {
            closeGuard();
            return;
        }
        try {
            if (process.isAlive()) {
                terminate(DEFAULT_GRACE);
            } else {
                endLeftovers(guardGrace);
            }
            closed = true;
        } catch (InterruptedException e) {
            signalGroup(process.pid(), PosixSignal.KILL);
            killTagged();
            Thread.currentThread().interrupt();
        } finally {
            closeGuard();
        }
    }

    /**
     * {@link #close() Closes} every one of {@code supervisors} with one walk through {@code /proc} for the leftovers of
     * those whose plan has exited, instead of one walk each: a task-service pool closing its hosts' remote shells made N
     * walks of a process table that itself grows with N (64 namespace hosts here: ~1,000 processes read 64 times; at
     * 10,000 hosts behind ssh, 10^8 reads). A supervisor whose plan still runs, or that left something carrying its
     * tag, is closed on its own as before.
     */
    public static void closeAll(java.util.Collection<ProcessSupervisor> supervisors) {
        List<ProcessSupervisor> exited = new ArrayList<>();
        for (ProcessSupervisor s : supervisors) {
            if (!s.closed && !s.process.isAlive()) {
                exited.add(s);
            } else {
                s.close();
            }
        }
        java.util.Set<String> tags = new java.util.HashSet<>();
        exited.forEach(s -> tags.add(s.tag));
        java.util.Map<String, List<ProcessHandle>> left = ProcessTable.withEnvValues(TroikaEnv.COMMAND_TAG, tags);
        for (ProcessSupervisor s : exited) {
            if (left.containsKey(s.tag)) {
                s.close(); // ends its leftovers, as a close of its own does
            } else {
                s.closed = true; // what close() finds: the plan exited, nothing carries the tag
                s.closeGuard();
            }
        }
    }

    /**
     * Sends SIGTERM to every process carrying this plan's tag at once, wherever it is (a command whose processes live
     * in a session of their own, as behind {@code setsid -w}); {@link #terminate} then escalates.
     *
     * @return how many were signalled
     */
    public int termTagged() {
        List<ProcessHandle> left = tagged();
        left.forEach(ProcessHandle::destroy);
        return left.size();
    }

    /** Live processes (other than this JVM) that carry this plan's tag. */
    public List<ProcessHandle> tagged() {
        return ProcessTable.withEnv(TroikaEnv.COMMAND_TAG, tag);
    }

    /**
     * Ends every process still carrying this plan's tag: SIGTERM, up to {@code grace} while any remain, SIGKILL. An
     * interrupt skips the rest of the grace but still kills them before {@link InterruptedException} is thrown.
     *
     * @return how many tagged processes there were
     */
    public int endLeftovers(Duration grace) throws InterruptedException {
        List<ProcessHandle> left = tagged();
        if (left.isEmpty()) {
            return 0;
        }
        left.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + grace.toNanos();
        try {
            for (ProcessHandle h : left) {
                waitUntil(h, deadline);
            }
        } finally {
            left.forEach(ProcessHandle::destroyForcibly);
            killTagged(); // started meanwhile by one of them
        }
        return left.size();
    }

    /** SIGKILL to every tagged process, then up to 2 s for them to be gone (SIGKILL is delivered asynchronously). */
    private void killTagged() {
        List<ProcessHandle> left = tagged();
        left.forEach(ProcessHandle::destroyForcibly);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        for (ProcessHandle h : left) {
            try {
                waitUntil(h, deadline);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static String newTag() {
        java.util.concurrent.ThreadLocalRandom r = java.util.concurrent.ThreadLocalRandom.current();
        return Long.toHexString(ProcessHandle.current().pid()) + "-" + Long.toHexString(r.nextLong())
                + Long.toHexString(r.nextLong());
    }

    private void closeGuard() {
        synchronized (lock) {
            if (guardClosed) {
                return;
            }
            guardClosed = true;
        }
        try {
            guardPipe.close();
        } catch (IOException e) {
            // the guard is gone already; nothing to tell it
        }
    }

    private void joinReaders(Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        for (Thread t : readers) {
            long left = deadline - System.nanoTime();
            if (left > 0) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
        }
    }

    private static void waitUntil(ProcessHandle h, long deadlineNanos) throws InterruptedException {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0 || !h.isAlive()) {
            return;
        }
        try {
            h.onExit().get(left, TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // still alive: the caller escalates
        }
    }

    /** Signals a process group with the shell's built-in {@code kill} (no procps needed). $1 signal, $2 pgid. */
    private static final String KILL_GROUP = "kill -s \"$1\" -- \"-$2\" 2>/dev/null";

    /**
     * Sends {@code signal} to process group {@code pgid} (with {@code /bin/sh}'s built-in {@code kill}).
     *
     * @return whether some member received it
     */
    public static boolean signalGroup(long pgid, PosixSignal signal) {
        if (pgid <= 1) {
            throw new IllegalArgumentException("refusing to signal process group " + pgid);
        }
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", KILL_GROUP, "troika-kill", signal.name(),
                Long.toString(pgid))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        boolean interrupted = false;
        try {
            Process k = pb.start();
            while (true) {
                try {
                    return k.waitFor() == 0;
                } catch (InterruptedException e) {
                    interrupted = true; // finish the kill first: it takes milliseconds
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run /bin/sh to signal process group " + pgid, e);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static String firstExecutable(String... candidates) {
        for (String c : candidates) {
            if (Files.isExecutable(Path.of(c))) {
                return c;
            }
        }
        return null;
    }
}
