package org.troika.launcher.exec;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.troika.common.exec.PosixSignal;
import org.troika.common.exec.ProcessSupervisor;
import org.troika.launcher.mpi.MpiFailureParser;
import org.troika.launcher.spi.BackendPlan;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.RankOutput;
import org.troika.launcher.spi.UserText;
import org.troika.launcher.timeline.Timeline;
import org.troika.launcher.watchdog.HangWatch;

/**
 * One launch of a planned job under the {@link ProcessSupervisor}, with its output sinks, ending in one
 * {@link LaunchOutcome}. Static runs ({@link JobExecutor}), elastic generations ({@link MpirunGenerationLauncher}) and
 * Spark all run their launcher through it.
 *
 * <pre>
 *   plan files (0600) ─► launcher under the supervisor ─► stdout/stderr ─┬─► the console, as read
 *                                                                        ├─► per-rank files ({@code --output-filename})
 *                                                                        ├─► the MPI's failure report (first rank)
 *                                                                        └─► the hang watchdog (output is progress)
 *   tearDown / interrupt / hostLost / the watchdog ─► terminate ─► await() ─► LaunchOutcome
 * </pre>
 *
 * <p>{@link #start} writes the plan's files owner-only and makes the rank files before anything runs (a file that
 * cannot be made launches nothing); {@link #close()} ends whatever is left and removes the plan's files.
 *
 * <p>Thread-safety: {@link #tearDown}, {@link #interrupt} and {@link #hostLost} may be called from any thread (a
 * signal handler, the relay's liveness thread, the watchdog), {@link #await} from one.
 */
public final class SupervisedLaunch implements AutoCloseable {
    /**
     * What to launch and where its output goes.
     *
     * @param plan the planned launch (command, files, rank output)
     * @param hosts the rank table, to name a failed rank's host (may be {@code null})
     * @param out the console's stdout (the launcher's stdout goes here, as read)
     * @param err the console's stderr
     * @param timeline where the launcher's span, hangs and teardowns are recorded
     * @param spanName the launcher span's name on the timeline
     * @param spanArgs the launcher span's arguments
     * @param watch the hang watchdog of this launch (it sees the output and may tear the launch down)
     * @param freshRankFiles whether the rank files start empty (else appended to: later elastic generations)
     * @param grace between SIGTERM and SIGKILL when the launch is torn down (signal, hang), and the guard's grace
     * @param lostHostWindow when the launcher failed naming no rank and no host was lost yet: how long to wait for
     *     the relay's liveness check to name a lost host (the relay's agents may give up on a partitioned host before
     *     the driver does); zero without a relay
     * @param ranksExplainExit whether the ranks' own reports already explain the launcher's end (every rank reported
     *     its leave): then no lost-host window is waited
     */
    public record Spec(BackendPlan plan, HostPlan hosts, PrintStream out, PrintStream err, Timeline timeline,
            String spanName, Map<String, Object> spanArgs, HangWatch watch, boolean freshRankFiles, Duration grace,
            Duration lostHostWindow, BooleanSupplier ranksExplainExit) {
        public Spec {
            Objects.requireNonNull(plan, "plan");
            Objects.requireNonNull(out, "out");
            Objects.requireNonNull(err, "err");
            Objects.requireNonNull(timeline, "timeline");
            Objects.requireNonNull(spanName, "spanName");
            spanArgs = Map.copyOf(spanArgs);
            Objects.requireNonNull(watch, "watch");
            Objects.requireNonNull(grace, "grace");
            Objects.requireNonNull(lostHostWindow, "lostHostWindow");
            Objects.requireNonNull(ranksExplainExit, "ranksExplainExit");
        }

        /**
         * {@code plan} over {@code hosts} with output to {@code out}/{@code err}; no timeline, no watchdog, fresh rank
         * files, the default grace, no lost-host window.
         */
        public static Spec of(BackendPlan plan, HostPlan hosts, PrintStream out, PrintStream err) {
            return new Spec(plan, hosts, out, err, Timeline.off(), "mpirun",
                    Map.of("command", plan.launch().argv().get(0)), HangWatch.off(), true,
                    ProcessSupervisor.DEFAULT_GRACE, Duration.ZERO, () -> false);
        }

        public Spec withTimeline(Timeline t, String name, Map<String, Object> args) {
            return new Spec(plan, hosts, out, err, t, name, args, watch, freshRankFiles, grace, lostHostWindow,
                    ranksExplainExit);
        }

        public Spec withWatch(HangWatch w) {
            return new Spec(plan, hosts, out, err, timeline, spanName, spanArgs, w, freshRankFiles, grace,
                    lostHostWindow, ranksExplainExit);
        }

        public Spec withFreshRankFiles(boolean fresh) {
            return new Spec(plan, hosts, out, err, timeline, spanName, spanArgs, watch, fresh, grace, lostHostWindow,
                    ranksExplainExit);
        }

        public Spec withGrace(Duration g) {
            return new Spec(plan, hosts, out, err, timeline, spanName, spanArgs, watch, freshRankFiles, g,
                    lostHostWindow, ranksExplainExit);
        }

        /**
         * The lost-host window, skipped (or cut short) once {@code explained} says the ranks' reports explain the
         * launcher's end.
         */
        public Spec withLostHostWindow(Duration window, BooleanSupplier explained) {
            return new Spec(plan, hosts, out, err, timeline, spanName, spanArgs, watch, freshRankFiles, grace, window,
                    explained);
        }
    }

    /** Grace between SIGTERM and SIGKILL when a lost host ends a launch. */
    static final Duration LOST_HOST_GRACE = Duration.ofSeconds(2);

    private final Spec spec;
    private final PlanFiles files;
    private final RankFileWriter rankFiles;
    private final MpiFailureParser failures;
    private final ProcessSupervisor sup;
    /** Follows the per-rank files the launcher writes itself, or {@code null}. */
    private final LauncherFilesTail tail;
    private final Timeline.Span span;
    private final long startedMicros;
    private final Set<String> lost = ConcurrentHashMap.newKeySet();
    private final Object lock = new Object();
    private PosixSignal signal;
    private boolean killed;

    private SupervisedLaunch(Spec spec, PlanFiles files, RankFileWriter rankFiles, MpiFailureParser failures,
            ProcessSupervisor sup, LauncherFilesTail tail) {
        this.tail = tail;
        this.spec = spec;
        this.files = files;
        this.rankFiles = rankFiles;
        this.failures = failures;
        this.sup = sup;
        this.startedMicros = spec.timeline().nowMicros();
        this.span = spec.timeline().begin(Timeline.Kind.MPIRUN, spec.spanName(), null, spec.spanArgs());
    }

    /**
     * Writes the plan's files, makes the rank files, starts the launcher and arms the watchdog.
     *
     * @throws IOException if a plan file cannot be written or the launcher cannot be started (nothing is left), or
     *     the wait for the rank files was interrupted ({@link java.io.InterruptedIOException})
     * @throws org.troika.common.UsageException if a rank file cannot be made (nothing was launched)
     */
    public static SupervisedLaunch start(Spec spec) throws IOException {
        // the rank files first: a folder or file that is not what it should be launches nothing and leaves nothing
        RankFileWriter rankFiles = RankFileWriter.open(spec.plan().rankOutput(), spec.freshRankFiles());
        PlanFiles files = null;
        try {
            files = PlanFiles.write(spec.plan().files());
            MpiFailureParser failures = new MpiFailureParser(spec.hosts());
            RankOutput ranks = spec.plan().rankOutput();
            LauncherFilesTail tail = ranks == null || ranks.launcherFiles() == null ? null
                    : new LauncherFilesTail(ranks, rankFiles, spec.watch()::rankOutput, failures, spec.out(),
                            spec.err());
            // when the launcher writes the ranks' output into files, its own streams carry only its own lines
            LaunchOutput output = new LaunchOutput(tail == null ? ranks : null, rankFiles, spec.watch()::rankOutput,
                    failures);
            ProcessSupervisor sup = ProcessSupervisor.start(spec.plan().launch(), ProcessSupervisor.Options.ofBytes(
                    output.stream(spec.out(), false), output.stream(spec.err(), true)).withGuardGrace(spec.grace()));
            if (tail != null) {
                tail.start();
            }
            SupervisedLaunch launch = new SupervisedLaunch(spec, files, rankFiles, failures, sup, tail);
            spec.watch().arm(h -> {
                spec.timeline().instant(Timeline.Kind.TEARDOWN, "hang: tearing down", null, Map.of());
                launch.tearDown(spec.grace());
            });
            return launch;
        } catch (IOException | RuntimeException e) {
            rankFiles.close();
            if (files != null) {
                files.close();
            }
            throw e;
        }
    }

    /**
     * Checks an {@code --output-filename} folder before anything starts (task services, the first generation): made
     * when missing, writable, and no rank file in it that is not a regular file.
     *
     * @throws org.troika.common.UsageException one line naming the problem and the fix
     */
    public static void checkRankFolder(java.nio.file.Path dir) {
        RankFileWriter.check(dir);
    }

    /** The launcher's process id. */
    public long pid() {
        return sup.pid();
    }

    /** When the launcher started, on the timeline's clock. */
    public long startedMicros() {
        return startedMicros;
    }

    /**
     * Tears the launch down on a thread of its own (returns at once): SIGTERM to the launcher's group, {@code grace},
     * then SIGKILL to the group and every descendant (an mpirun whose peer vanished can hang in its own teardown).
     */
    public void tearDown(Duration grace) {
        Thread t = new Thread(() -> {
            try {
                sup.terminate(grace);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "troika-launch-teardown");
        t.setDaemon(true);
        t.start();
    }

    /**
     * SIGINT/SIGTERM for the launch (the caller's signal handler): the first is forwarded to the launcher's group and
     * escalates to SIGKILL after the grace; a later one kills at once. Blocks while it tears down.
     */
    public void interrupt(PosixSignal received) {
        boolean first;
        synchronized (lock) {
            first = signal == null;
            if (first) {
                signal = received;
            } else {
                killed = true;
            }
        }
        spec.timeline().instant(Timeline.Kind.TEARDOWN, "SIG" + received.name() + (first ? ": tearing down"
                : ": killing"), null, Map.of());
        try {
            sup.terminate(first ? received : PosixSignal.KILL, first ? spec.grace() : Duration.ZERO);
        } catch (InterruptedException e) {
            ProcessSupervisor.signalGroup(sup.pid(), PosixSignal.KILL);
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A host of this launch was declared lost: it goes into the outcome and the launch is torn down (SIGTERM,
     * {@link #LOST_HOST_GRACE}, SIGKILL).
     */
    public void hostLost(String host) {
        lost.add(host);
        tearDown(LOST_HOST_GRACE);
    }

    /** Waits up to {@code timeout} for the launcher to exit: its exit code, or {@code null} while it runs. */
    public Integer waitFor(Duration timeout) throws InterruptedException {
        return sup.waitFor(timeout);
    }

    /**
     * Waits for the launcher to end, ends whatever it left behind (daemons that left its session), and returns the
     * outcome. Prints one warning when the per-rank files are incomplete (a write failed, e.g. disk full).
     */
    public LaunchOutcome await() throws InterruptedException {
        int code;
        try {
            code = sup.waitFor();
        } finally {
            sup.close();
            if (tail != null) {
                tail.finish(); // every byte the launcher wrote into its files, before the files are judged
            }
        }
        if (code != 0 && failures.first().isEmpty() && lost.isEmpty() && spec.watch().hang().isEmpty()
                && !spec.lostHostWindow().isZero()) {
            long deadline = System.nanoTime() + spec.lostHostWindow().toNanos();
            while (lost.isEmpty() && !spec.ranksExplainExit().getAsBoolean() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
        }
        span.end(Map.of("exitCode", code));
        if (rankFiles.failure() != null) {
            spec.err().println(UserText.line("troika: warning: ", "the per-rank output files under "
                    + spec.plan().rankOutput().dir() + " are incomplete: " + rankFiles.failure().getMessage()));
        }
        PosixSignal sig;
        boolean hard;
        synchronized (lock) {
            sig = signal;
            hard = killed;
        }
        return new LaunchOutcome(code, failures.first().orElse(null), failures.missingProgramHint().isPresent(),
                Set.copyOf(lost), spec.watch().hang().orElse(null), sig, hard, null);
    }

    /** Ends whatever is left of the launch, closes the rank files and removes the plan's files. */
    @Override
    public void close() {
        try {
            sup.close();
            if (tail != null) {
                tail.finish();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            rankFiles.close();
            files.close();
        }
    }
}
