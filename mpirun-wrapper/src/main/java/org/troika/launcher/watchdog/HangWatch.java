package org.troika.launcher.watchdog;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.troika.common.TroikaEnv;
import org.troika.common.UsageException;
import org.troika.launcher.elastic.World;
import org.troika.launcher.relay.HostAddresses;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.UserText;
import org.troika.launcher.timeline.Timeline;
import org.troika.wire.Secret;

/**
 * The hang watchdog of one launch (a static job or one elastic generation): the {@link ProgressService} ranks report
 * to, the {@link HangWatchdog} deciding, and a checker thread that prints warnings and, on a hang, prints the report,
 * marks the timeline and calls the launch's teardown.
 *
 * <pre>
 *   try (HangWatch w = HangWatch.start(settings, env, plan, generation, timeline, err)) {
 *       env.putAll(w.env());                 // TROIKA_PROGRESS_ADDR / _KEY / _INTERVAL_MS for the ranks
 *       ... start the launch; its output pipeline calls w.rankOutput(rank, now) ...
 *       w.arm(report -&gt; teardown());         // called once when a hang is declared
 *       if (w.hang().isPresent()) ...        // a failure: exit {@value #EXIT_HANG} / next generation
 *   }
 * </pre>
 */
public final class HangWatch implements AutoCloseable {
    /** Exit code of a static job ended by the watchdog (as {@code timeout(1)}). */
    public static final int EXIT_HANG = 124;
    /** Default hang timeout of elastic jobs. */
    public static final Duration ELASTIC_DEFAULT = Duration.ofSeconds(300);
    /** Default warning time when the timeout is long enough. */
    static final Duration WARNING_DEFAULT = Duration.ofSeconds(60);

    private final HangWatchdog dog;
    private final ProgressService service;
    private final Secret key;
    private final Duration interval;
    private final Thread checker;
    private final java.util.concurrent.CompletableFuture<Consumer<HangReport>> onHang =
            new java.util.concurrent.CompletableFuture<>();
    private volatile HangReport hang;
    private volatile boolean closed;

    private HangWatch(HangWatchdog dog, ProgressService service, Secret key, Duration interval, Thread checker) {
        this.dog = dog;
        this.service = service;
        this.key = key;
        this.interval = interval;
        this.checker = checker;
    }

    /** A watch that watches nothing. */
    public static HangWatch off() {
        return new HangWatch(null, null, null, null, null);
    }

    /**
     * The hang timeout of a run, or {@code null} when the watchdog is off: {@code --hang-timeout}, else
     * {@value TroikaEnv#HANG_TIMEOUT}, else {@link #ELASTIC_DEFAULT} for elastic jobs and off for static ones; 0 is
     * off.
     */
    public static Duration timeout(RunSettings s, Map<String, String> env) {
        Duration t = s.timeouts().hang();
        if (t == null) {
            String v = env.get(TroikaEnv.HANG_TIMEOUT);
            if (v != null && !v.isBlank()) {
                if (!v.strip().matches("[0-9]{1,7}")) {
                    throw new UsageException(TroikaEnv.HANG_TIMEOUT + "='" + v + "' is not a whole number of seconds;"
                            + " fix or unset it");
                }
                t = Duration.ofSeconds(Long.parseLong(v.strip()));
            }
        }
        if (t == null) {
            t = s.elastic().enabled() ? ELASTIC_DEFAULT : Duration.ZERO;
        }
        return t.isZero() ? null : t;
    }

    /**
     * The warning time: {@code --hang-warning} (0 = none), else 60 s when the timeout is over twice that (the elastic
     * default), else none; never at or above the timeout.
     */
    static Duration warning(RunSettings s, Duration timeout) {
        Duration w = s.timeouts().hangWarning() != null ? s.timeouts().hangWarning()
                : timeout.compareTo(WARNING_DEFAULT.multipliedBy(2)) > 0 ? WARNING_DEFAULT : Duration.ZERO;
        return w.isZero() || w.compareTo(timeout) >= 0 ? null : w;
    }

    /**
     * Reports per second the progress service is sized for: bench/scale.sh measured the service at 9.7 % of a core
     * for 5,000 a second (10,000 ranks every 2 s), so the launcher spends about 5 % of a core on them at any size.
     */
    static final int REPORTS_PER_SECOND = 2_500;

    /**
     * How often ranks sample and report: a fifth of the timeout, between 0.2 and 2 s; for large jobs longer, so that
     * the ranks together send at most {@link #REPORTS_PER_SECOND} (a second per 2,500 ranks: 4 s at 10,000 ranks, 32 s
     * at 80,000), but never over a fifth of the timeout (a short timeout keeps its precision and costs more). A hang is
     * declared at most one interval and the checker's second after the timeout.
     */
    static Duration interval(Duration timeout, int ranks) {
        long byRate = (long) ranks * 1000 / REPORTS_PER_SECOND;
        long ms = Math.max(200, Math.min(Math.max(2000, byRate), timeout.toMillis() / 5));
        return Duration.ofMillis(ms);
    }

    /**
     * Starts watching a launch, or returns {@link #off()} when the run has no hang timeout.
     *
     * @param generation the elastic generation (reports of other generations are ignored), 0 for static
     */
    public static HangWatch start(RunSettings s, Map<String, String> env, HostPlan plan, int generation,
            Timeline timeline, PrintStream err) throws IOException {
        Duration timeout = timeout(s, env);
        if (timeout == null) {
            return off();
        }
        Secret key = ProgressService.progressKey(Secret.fromEnvOrGenerate(env));
        HangWatchdog dog = new HangWatchdog(plan, timeout, warning(s, timeout),
                s.timeouts().startFor(plan.hosts().size()),
                System.currentTimeMillis());
        AtomicLong rank0Commits = new AtomicLong();
        // room for every rank that may join the world in place too (the service remembers senders as they come)
        ProgressService service = new ProgressService(key, HostAddresses.routeTo(plan.hostNames()),
                plan.size() * 2 + 16 + World.MAX_JOINED, r -> {
                    if (r.generation() != generation || !dog.report(r, System.currentTimeMillis())) {
                        return;
                    }
                    if (r.rank() == 0 && r.commits() > rank0Commits.getAndAccumulate(r.commits(), Math::max)) {
                        timeline.instant(Timeline.Kind.COMMIT, "commit " + r.commits(), plan.slots().get(0).host(),
                                Map.of("commits", r.commits(), "generation", generation));
                    }
                });
        Duration interval = interval(timeout, plan.size());
        HangWatch[] self = new HangWatch[1];
        Thread checker = new Thread(() -> self[0].loop(err, timeline), "troika-hang-watchdog");
        checker.setDaemon(true);
        self[0] = new HangWatch(dog, service, key, interval, checker);
        checker.start();
        return self[0];
    }

    /**
     * What to do when a hang is declared (tear the launch down); called once, on the watchdog's thread, after the
     * report was printed; at once if the hang came first. Call once the launch runs.
     */
    public void arm(Consumer<HangReport> teardown) {
        if (active()) {
            onHang.complete(teardown);
        }
    }

    public boolean active() {
        return dog != null;
    }

    /** What the ranks need in their environment (empty when off). The key is derived; never the job secret. */
    public Map<String, String> env() {
        if (!active()) {
            return Map.of();
        }
        Map<String, String> e = new LinkedHashMap<>();
        e.put(TroikaEnv.PROGRESS_ADDR, service.endpoint().toString());
        e.put(TroikaEnv.PROGRESS_KEY, key.encode());
        e.put(TroikaEnv.PROGRESS_INTERVAL_MS, Long.toString(interval.toMillis()));
        return e;
    }

    /**
     * {@code rank} printed something at {@code nowMillis} (the output pipeline reads the tags): output counts as
     * progress while it flows.
     */
    public void rankOutput(int rank, long nowMillis) {
        if (active()) {
            dog.output(rank, nowMillis);
        }
    }

    /** A rank that joined the world in place: see {@link HangWatchdog#join}. */
    public void join(int rank, String host) {
        if (active()) {
            dog.join(rank, host);
        }
    }

    /** A rank that died while the others go on: see {@link HangWatchdog#forget}. */
    public void forget(int rank) {
        if (active()) {
            dog.forget(rank);
        }
    }

    /** The hang, once declared. */
    public Optional<HangReport> hang() {
        return Optional.ofNullable(hang);
    }

    private void loop(PrintStream err, Timeline timeline) {
        long step = Math.max(100, Math.min(1000, interval.toMillis()));
        while (!closed) {
            try {
                Thread.sleep(step);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.currentTimeMillis();
            dog.warn(now).ifPresent(w -> {
                List<String> lines = w.lines();
                err.println(UserText.line("", lines.get(0).replace("troika: hang: ", "troika: warning: possible hang: ")));
                lines.subList(1, lines.size()).forEach(l -> err.println(UserText.line("",
                        l.replace("troika: hang: ", "troika: warning: "))));
            });
            Optional<HangReport> h = dog.check(now);
            if (h.isPresent() && !closed) {
                hang = h.get();
                h.get().lines().forEach(err::println);
                for (HangReport.RankState r : h.get().culprits()) {
                    timeline.instant(Timeline.Kind.HANG, "rank " + r.rank() + " stuck", r.host(), Map.of("rank",
                            r.rank(), "lastSeen", r.lastSeen(), "idleSeconds", r.idleMillis() / 1000));
                }
                onHang.thenAccept(c -> c.accept(h.get()));
                return;
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        if (checker != null) {
            checker.interrupt();
        }
        if (service != null) {
            service.close();
        }
    }
}
