package org.troika.launcher.exec;

import org.troika.launcher.mpi.MpiFailureParser;
import org.troika.launcher.mpi.FailedRank;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.troika.common.exec.LineSink;
import org.troika.common.exec.PosixSignal;
import org.troika.common.exec.ProcessSupervisor;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.BackendPlan;
import org.troika.launcher.timeline.Timeline;
import org.troika.launcher.watchdog.HangWatch;

/**
 * Runs a planned job (static mode): writes the plan's files, runs its launch command under a
 * {@link ProcessSupervisor}, forwards output, turns SIGINT/SIGTERM into a teardown of the whole process tree,
 * names the first failed rank, and removes the files again.
 *
 * <p>Signals: the first SIGINT or SIGTERM is forwarded to the job's process group (mpirun then stops its ranks);
 * if the job is still alive after the grace period (5 s by default; {@code mpirun} may ignore SIGINT, e.g. when a
 * node is unreachable) the group and every descendant get SIGKILL. A second signal kills at once. The exit code is
 * then {@code 128 + signal} (130 for Ctrl-C). If the JVM itself dies, the supervisor's guard tears the tree down.
 * Whether the job ended by itself or by a signal, every local process that carries its {@code TROIKA_COMMAND_TAG}
 * (ranks that daemonized out of mpirun's session included) is ended before troika returns; remote hosts' task
 * services do the same for their daemons when the relay session closes.
 *
 * <p>Output: stdout and stderr segments are written through unchanged (mpirun's {@code [1,R]<stdout>:} tags
 * included) and flushed one by one, as UTF-8 whatever the JVM's default charset. With {@code --output-filename} the
 * rank lines also go to the plan's per-rank files ({@link RankFileWriter}). On failure one line names the first
 * failed rank: {@code troika: rank R on host H failed first with exit code N}, and N is the exit code.
 */
public final class JobExecutor {
    /** Default grace between the forwarded signal and SIGKILL. */
    public static final Duration DEFAULT_GRACE = ProcessSupervisor.DEFAULT_GRACE;

    private final BackendPlan plan;
    private final PrintStream out;
    private final PrintStream err;
    private final Duration grace;
    private final boolean verbose;
    private final Path outputDir;
    private final MpiFailureParser failures;
    private final Timeline timeline;
    private final HangWatch watch;
    private final HostPlan hosts;
    private final Object lock = new Object();
    private ProcessSupervisor running;
    private PosixSignal received;
    private boolean killedHard;

    JobExecutor(BackendPlan plan, HostPlan hosts, RunSettings settings, PrintStream out, PrintStream err,
            Duration grace) {
        this(plan, hosts, settings, out, err, grace, Timeline.off(), HangWatch.off());
    }

    JobExecutor(BackendPlan plan, HostPlan hosts, RunSettings settings, PrintStream out, PrintStream err,
            Duration grace, Timeline timeline, HangWatch watch) {
        this.timeline = Objects.requireNonNull(timeline, "timeline");
        this.watch = Objects.requireNonNull(watch, "watch");
        this.hosts = hosts;
        this.plan = Objects.requireNonNull(plan, "plan");
        this.out = Objects.requireNonNull(out, "out");
        this.err = Objects.requireNonNull(err, "err");
        this.grace = Objects.requireNonNull(grace, "grace");
        this.verbose = settings != null && settings.verbose();
        this.outputDir = settings == null ? null : settings.outputFilename();
        this.failures = new MpiFailureParser(hosts);
    }

    /**
     * Runs {@code plan} to completion with SIGINT/SIGTERM handling installed for the duration, and the default grace.
     *
     * @param plan the launch command and its files
     * @param hosts the rank table, to name the host of a failed rank (may be {@code null})
     * @param settings the run settings ({@code verbose} prints the command line)
     * @return the job's exit code: the launcher's own ({@code 128 + N} if it died by signal N), or
     *     {@code 128 + signal} when troika was interrupted
     * @throws UncheckedIOException if the plan's files cannot be written or the launcher cannot be started
     */
    public static int execute(BackendPlan plan, HostPlan hosts, RunSettings settings, PrintStream out,
            PrintStream err) {
        return execute(plan, hosts, settings, out, err, DEFAULT_GRACE);
    }

    /** {@link #execute(BackendPlan, HostPlan, RunSettings, PrintStream, PrintStream)} with a chosen grace. */
    public static int execute(BackendPlan plan, HostPlan hosts, RunSettings settings, PrintStream out,
            PrintStream err, Duration grace) {
        return execute(new JobExecutor(plan, hosts, settings, out, err, grace));
    }

    /**
     * {@link #execute(BackendPlan, HostPlan, RunSettings, PrintStream, PrintStream)} recording mpirun, the first
     * failure and teardowns on {@code timeline}, and ended by {@code watch} on a hang (exit
     * {@value HangWatch#EXIT_HANG}).
     */
    public static int execute(BackendPlan plan, HostPlan hosts, RunSettings settings, PrintStream out,
            PrintStream err, Timeline timeline, HangWatch watch) {
        return execute(new JobExecutor(plan, hosts, settings, out, err, DEFAULT_GRACE, timeline, watch));
    }

    private static int execute(JobExecutor job) {
        try (SignalTrap trap = SignalTrap.install(job::onSignal, PosixSignal.INT, PosixSignal.TERM)) {
            return job.run();
        }
    }

    /** Runs the job without touching signal handlers (the caller delivers signals through {@link #onSignal}). */
    int run() {
        try (PlanFiles files = PlanFiles.write(plan.files());
                RankFileWriter rankFiles = RankFileWriter.open(plan.rankOutput())) {
            if (outputDir != null) {
                // a launcher writing its own files (jsrun) may not create the folder
                Files.createDirectories(outputDir);
            }
            if (verbose) {
                err.println("troika: running " + plan.launch().render());
            }
            ProcessSupervisor sup;
            synchronized (lock) {
                if (received != null) {
                    return received.exitCode(); // interrupted before the start
                }
                sup = ProcessSupervisor.start(plan.launch(), ProcessSupervisor.Options.of(
                        watch.output(LineSink.copyTo(out, rankFiles.then(false, failures::accept))),
                        watch.output(LineSink.copyTo(err, rankFiles.then(true, failures::accept))))
                        .withGuardGrace(grace));
                running = sup;
            }
            long started = timeline.nowMicros();
            Timeline.Span span = timeline.begin(Timeline.Kind.MPIRUN, "mpirun", null,
                    java.util.Map.of("command", plan.launch().argv().get(0)));
            watch.arm(h -> {
                timeline.instant(Timeline.Kind.TEARDOWN, "hang: tearing down", null, java.util.Map.of());
                try {
                    sup.terminate(grace);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            int code;
            try {
                code = sup.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return PosixSignal.INT.exitCode();
            } finally {
                sup.close(); // whatever the job started and left behind (daemons that left mpirun's session) ends too
            }
            span.end(java.util.Map.of("exitCode", code));
            if (timeline.enabled() && hosts != null) {
                // the ranks' time on each host, so every host has its row
                long end = timeline.nowMicros();
                for (var h : hosts.hosts()) {
                    List<Integer> ranks = hosts.slots().stream().filter(r -> r.host().equals(h.name()))
                            .map(r -> r.rank()).toList();
                    timeline.span(Timeline.Kind.MPIRUN, "ranks " + ranks, h.name(), started, end,
                            java.util.Map.of("ranks", ranks.toString()));
                }
            }
            if (rankFiles.failure() != null) {
                err.println("troika: warning: the per-rank output files under " + outputDir + " are incomplete: "
                        + rankFiles.failure().getMessage());
            }
            return report(code);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + plan.launch().argv().get(0) + ": " + e.getMessage(), e);
        }
    }

    private int report(int code) {
        PosixSignal sig;
        boolean hard;
        synchronized (lock) {
            sig = received;
            hard = killedHard;
        }
        if (sig != null) {
            err.println("troika: stopped by SIG" + sig.name() + (hard ? "; killed the job" : "; job torn down"));
            return sig.exitCode();
        }
        if (watch.hang().isPresent()) {
            err.println("troika: the hang watchdog ended the job (exit " + HangWatch.EXIT_HANG + ")");
            return HangWatch.EXIT_HANG;
        }
        failures.first().ifPresent(f -> timeline.instant(Timeline.Kind.FAILURE, "rank " + f.rank() + " exit "
                + f.exitCode(), f.host(), java.util.Map.of("rank", f.rank(), "exitCode", f.exitCode())));
        if (code != 0) {
            err.println(failures.first().map(FailedRank::summary)
                    .orElse("troika: the job failed with exit code " + code + " (the MPI launcher named no rank)"));
            failures.missingProgramHint().ifPresent(h -> err.println("troika: " + h));
            // the named rank's code: mpirun returns it too, while srun returns the highest code of all tasks (the
            // 143 of the ranks it terminated after the first failure)
            return failures.first().map(FailedRank::exitCode).orElse(code);
        }
        return code;
    }

    /**
     * Handles SIGINT/SIGTERM (called on a signal-dispatch thread): the first forwards the signal to the job's group
     * and escalates to SIGKILL after the grace period; a later one kills at once.
     */
    void onSignal(PosixSignal signal) {
        ProcessSupervisor sup;
        boolean first;
        synchronized (lock) {
            first = received == null;
            if (first) {
                received = signal;
            } else {
                killedHard = true;
            }
            sup = running;
        }
        if (sup == null) {
            return; // not started yet: run() sees the signal and does not start
        }
        timeline.instant(Timeline.Kind.TEARDOWN, "SIG" + signal.name() + (first ? ": tearing down" : ": killing"),
                null, java.util.Map.of());
        try {
            sup.terminate(first ? signal : PosixSignal.KILL, first ? grace : Duration.ZERO);
        } catch (InterruptedException e) {
            ProcessSupervisor.signalGroup(sup.pid(), PosixSignal.KILL);
            Thread.currentThread().interrupt();
        }
    }

}
