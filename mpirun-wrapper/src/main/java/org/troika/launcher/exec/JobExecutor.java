package org.troika.launcher.exec;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.troika.common.exec.PosixSignal;
import org.troika.common.exec.ProcessSupervisor;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.BackendPlan;
import org.troika.launcher.timeline.Timeline;
import org.troika.launcher.watchdog.HangWatch;

/**
 * Runs a planned job (static mode) as one {@link SupervisedLaunch}: turns SIGINT/SIGTERM into a teardown of the
 * whole process tree, names the first failed rank ({@link LaunchOutcome#jobEnd()}) and records the ranks' time on
 * each host on the timeline.
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

    private final SupervisedLaunch.Spec spec;
    private final boolean verbose;
    private final Path outputDir;
    private final Object lock = new Object();
    private SupervisedLaunch running;
    /** The thread starting the launch, until it runs (a signal interrupts a wait there). */
    private Thread starting;
    private PosixSignal early;

    JobExecutor(SupervisedLaunch.Spec spec, RunSettings settings) {
        this.spec = spec;
        this.verbose = settings != null && settings.verbose();
        this.outputDir = settings == null ? null : settings.output().dir();
    }

    /**
     * Runs {@code plan} to completion with SIGINT/SIGTERM handling installed for the duration, recording mpirun, the
     * first failure and teardowns on {@code timeline}, ended by {@code watch} on a hang (exit
     * {@value HangWatch#EXIT_HANG}).
     *
     * @param plan the launch command and its files
     * @param hosts the rank table, to name the host of a failed rank (may be {@code null})
     * @param settings the run settings ({@code verbose} prints the command line)
     * @return the job's exit code: the launcher's own ({@code 128 + N} if it died by signal N), the first failed
     *     rank's, {@value HangWatch#EXIT_HANG} after a hang, or {@code 128 + signal} when troika was interrupted
     * @throws UncheckedIOException if the plan's files cannot be written or the launcher cannot be started
     */
    public static int execute(BackendPlan plan, HostPlan hosts, RunSettings settings, PrintStream out,
            PrintStream err, Timeline timeline, HangWatch watch) {
        return execute(plan, hosts, settings, out, err, timeline, watch, null);
    }

    /**
     * {@link #execute(BackendPlan, HostPlan, RunSettings, PrintStream, PrintStream, Timeline, HangWatch)} whose launch
     * also ends when {@code lostHosts} (a relay session's loss reports, or {@code null}) names a host: the launch agents
     * hand their daemons over to the task services once they run, so none is left to end mpirun on a partition
     * (docs/launch-agent.md, "Large clusters").
     */
    public static int execute(BackendPlan plan, HostPlan hosts, RunSettings settings, PrintStream out,
            PrintStream err, Timeline timeline, HangWatch watch,
            java.util.function.Consumer<java.util.function.BiConsumer<String, String>> lostHosts) {
        JobExecutor job = new JobExecutor(SupervisedLaunch.Spec.of(plan, hosts, out, err).withWatch(watch)
                .withTimeline(timeline, "mpirun", Map.of("command", plan.launch().argv().get(0))), settings);
        if (lostHosts != null) {
            lostHosts.accept((host, why) -> job.hostLost(host));
        }
        try (SignalTrap trap = SignalTrap.install(job::onSignal, PosixSignal.INT, PosixSignal.TERM)) {
            return job.run();
        }
    }

    /** Hosts declared lost before the launch ran: they end it as soon as it does. */
    private final java.util.Set<String> lostEarly = new java.util.LinkedHashSet<>();

    /** A host of this launch was declared lost (on the relay's liveness thread): the launch ends naming it. */
    void hostLost(String host) {
        SupervisedLaunch l;
        synchronized (lock) {
            l = running;
            if (l == null) {
                lostEarly.add(host);
                return;
            }
        }
        l.hostLost(host);
    }

    /** Runs the job without touching signal handlers (the caller delivers signals through {@link #onSignal}). */
    int run() {
        BackendPlan plan = spec.plan();
        try {
            if (outputDir != null) {
                // a launcher writing its own files (jsrun) may not create the folder
                Files.createDirectories(outputDir);
            }
            if (verbose) {
                spec.err().println("troika: running " + plan.launch().render());
            }
            synchronized (lock) {
                if (early != null) {
                    return early.exitCode(); // interrupted before the start
                }
                starting = Thread.currentThread();
            }
            SupervisedLaunch launch;
            try {
                launch = SupervisedLaunch.start(spec);
            } catch (java.io.InterruptedIOException e) {
                Thread.interrupted(); // a signal ended a wait that no file system call would have ended
                synchronized (lock) {
                    PosixSignal sig = early != null ? early : PosixSignal.INT;
                    spec.err().println("troika: stopped by SIG" + sig.name() + " before the launch");
                    return sig.exitCode();
                }
            }
            PosixSignal during;
            List<String> lostBefore;
            synchronized (lock) {
                running = launch;
                starting = null;
                during = early;
                lostBefore = List.copyOf(lostEarly);
            }
            lostBefore.forEach(launch::hostLost);
            if (during != null) {
                launch.interrupt(during); // the signal came while the launch started
            }
            try (launch) {
                LaunchOutcome outcome = launch.await();
                hostRows(launch.startedMicros());
                LaunchOutcome.JobEnd end = outcome.jobEnd();
                if (outcome.signal() == null && outcome.hang() == null && outcome.first() != null) {
                    var f = outcome.first();
                    spec.timeline().instant(Timeline.Kind.FAILURE, "rank " + f.rank() + " exit " + f.exitCode(),
                            f.host(), Map.of("rank", f.rank(), "exitCode", f.exitCode()));
                }
                end.lines().forEach(spec.err()::println);
                return end.exitCode();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return PosixSignal.INT.exitCode();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + plan.launch().argv().get(0) + ": " + e.getMessage(), e);
        }
    }

    /** The ranks' time on each host, so every host has its row on the timeline. */
    private void hostRows(long started) {
        HostPlan hosts = spec.hosts();
        Timeline timeline = spec.timeline();
        if (!timeline.enabled() || hosts == null) {
            return;
        }
        long end = timeline.nowMicros();
        for (int i = 0; i < hosts.hosts().size(); i++) {
            var h = hosts.hosts().get(i);
            int first = hosts.firstRank(i);
            List<Integer> ranks = IntStream.range(first, first + h.slots()).boxed().toList();
            timeline.span(Timeline.Kind.MPIRUN, "ranks " + ranks, h.name(), started, end, Map.of("ranks",
                    ranks.toString()));
        }
    }

    /**
     * Handles SIGINT/SIGTERM (called on a signal-dispatch thread): the first forwards the signal to the job's group
     * and escalates to SIGKILL after the grace period; a later one kills at once.
     */
    void onSignal(PosixSignal signal) {
        SupervisedLaunch launch;
        Thread waiting;
        synchronized (lock) {
            launch = running;
            if (launch == null) {
                if (early == null) {
                    early = signal; // not started yet: run() sees the signal and does not start
                }
                waiting = starting;
            } else {
                waiting = null;
            }
        }
        if (launch == null) {
            if (waiting != null) {
                waiting.interrupt(); // e.g. waiting for a rank file to open
            }
            return;
        }
        launch.interrupt(signal);
    }
}
