package org.troika.launcher.relay;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Says on stderr where a slow start is ({@link StartProgress#line}), driven by a clock: nothing during the first
 * {@link #QUIET} (a quick start prints nothing); then on a terminal one line updated in place at most every
 * {@link #TERMINAL_EVERY}, in a log (not a terminal) one line every {@link #LOG_EVERY}; nothing more once the start is
 * {@link StartProgress.Snapshot#done done} (a line in place is then erased, so the job's output starts on a clean
 * line). {@link #tick} is called often (by {@link #every}'s thread, or a test with a fake clock); {@link #finish}
 * stops it and erases a line in place.
 *
 * <p>Thread-safe: {@link #tick} and {@link #finish} may come from different threads.
 */
public final class StartProgressReporter implements AutoCloseable {
    /** A start shorter than this prints nothing. */
    public static final Duration QUIET = Duration.ofSeconds(2);
    /** On a terminal: at most one update this often. */
    public static final Duration TERMINAL_EVERY = Duration.ofSeconds(1);
    /** In a log: one line this often (the first after {@link #QUIET}). */
    public static final Duration LOG_EVERY = Duration.ofSeconds(10);
    /** How often {@link #every}'s thread ticks. */
    static final Duration TICK = Duration.ofMillis(200);

    private final String prefix;
    private final LongSupplier millis;
    private final boolean terminal;
    private final Supplier<StartProgress.Snapshot> source;
    private final PrintStream err;
    private final long startMillis;
    private long lastMillis = Long.MIN_VALUE;
    private boolean inPlace;
    private boolean done;
    private volatile Thread ticker;

    /**
     * @param millis a monotonic millisecond clock; the start counts from its reading now
     * @param terminal whether {@code err} is a terminal (update in place)
     */
    public StartProgressReporter(String prefix, LongSupplier millis, boolean terminal,
            Supplier<StartProgress.Snapshot> source, PrintStream err) {
        this.prefix = prefix;
        this.millis = millis;
        this.terminal = terminal;
        this.source = source;
        this.err = err;
        this.startMillis = millis.getAsLong();
    }

    /** Prints the line if one is due; once the start is done, erases a line in place and prints nothing more. */
    public synchronized void tick() {
        if (done) {
            return;
        }
        long now = millis.getAsLong();
        long elapsed = now - startMillis;
        if (elapsed < QUIET.toMillis()) {
            return;
        }
        long every = (terminal ? TERMINAL_EVERY : LOG_EVERY).toMillis();
        if (lastMillis != Long.MIN_VALUE && now - lastMillis < every) {
            return;
        }
        StartProgress.Snapshot s = source.get();
        if (s.done()) {
            done = true;
            erase();
            return;
        }
        lastMillis = now;
        String line = StartProgress.line(prefix, s, elapsed);
        if (terminal) {
            err.print("\r" + line + "\033[K");
            err.flush();
            inPlace = true;
        } else {
            err.println(line);
        }
    }

    /** Ends an in-place line (the next output starts on a fresh line); stops {@link #every}'s thread. */
    public void finish() {
        Thread t = ticker;
        ticker = null;
        if (t != null && t != Thread.currentThread()) {
            t.interrupt();
            try {
                t.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (this) {
            done = true;
            erase();
        }
    }

    private void erase() {
        if (inPlace) {
            err.print("\r\033[K");
            err.flush();
            inPlace = false;
        }
    }

    @Override
    public void close() {
        finish();
    }

    /**
     * A reporter on the system clock that ticks on its own daemon thread every {@link #TICK} until {@link #finish} or
     * until the start is {@link StartProgress.Snapshot#done done}.
     */
    public static StartProgressReporter every(String prefix, boolean terminal, Supplier<StartProgress.Snapshot> source,
            PrintStream err) {
        StartProgressReporter r = new StartProgressReporter(prefix, () -> System.nanoTime() / 1_000_000L, terminal,
                source, err);
        Thread t = new Thread(() -> {
            try {
                while (r.ticker == Thread.currentThread() && !r.isDone()) {
                    Thread.sleep(TICK.toMillis());
                    r.tick();
                }
            } catch (InterruptedException e) {
                // finished
            }
        }, "troika-start-progress");
        t.setDaemon(true);
        r.ticker = t;
        t.start();
        return r;
    }

    private synchronized boolean isDone() {
        return done;
    }

    /**
     * Whether stderr is a terminal (pure): its {@code /proc/self/fd/2} target is a tty and {@code TERM} is not
     * {@code dumb}.
     */
    static boolean isTerminal(String fd2Target, String term) {
        return fd2Target != null && (fd2Target.startsWith("/dev/pts/") || fd2Target.startsWith("/dev/tty"))
                && !"dumb".equals(term);
    }

    /** Whether this process's stderr is a terminal (Linux {@code /proc}; {@code false} where it cannot tell). */
    public static boolean stderrIsTerminal(Map<String, String> env) {
        try {
            return isTerminal(Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString(), env.get("TERM"));
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }
}
