package org.troika.launcher.elastic;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner;
import org.troika.common.exec.CommandRunner.ProbeResult;
import org.troika.common.exec.LaunchPlan;
import org.troika.common.exec.PosixSignal;
import org.troika.common.exec.ProcessSupervisor;
import org.troika.launcher.spi.HostCheck;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.UserText;

/**
 * Runs the user's {@code --host-discovery-script} (directly, no shell, stdin closed, bounded by a per-call
 * timeout) and parses its output.
 *
 * <p>Output contract: one {@code host} or {@code host:slots} per line. Lines are trimmed, blank lines skipped,
 * repeated identical lines collapse; a line without slots takes {@code --slots-per-host}. {@code host:0} names a
 * standby host ({@link HostDiscovery.Found}: no ranks, its task service kept ready). Empty output means
 * "no hosts yet" and is valid. Errors: a non-zero exit, a timeout, more than {@value #MAX_OUTPUT_CHARS} characters
 * of output, more than {@value #MAX_LINES} lines or a line longer than {@value #MAX_LINE_CHARS} characters, more
 * than one {@code :}, a missing slot count without {@code --slots-per-host}, a host name or slot count that
 * {@link HostCheck} refuses, one host with two different slot counts, more than {@link HostCheck#MAX_RANKS} slots
 * in all.
 *
 * <p>The real runner ({@link #systemRunner}) starts the script in its own process group under
 * {@link ProcessSupervisor} and ends the whole group when the script exits, times out or prints too much, so a
 * background child the script leaves behind does not outlive the call. (A child that starts its own session leaves
 * the group.) Without the parent-death guard, as probes run: a discovery script ends by itself within its timeout,
 * and the guard's two extra process starts and its teardown made each call of {@code cat hosts} take ~40 ms instead
 * of ~22 ms from the JVM (measured), which set the adaptive discovery interval ({@link DiscoveryInterval}, 20 x the
 * run) to its 1 s cap: host changes were noticed ~500 ms late on average instead of ~220 ms. If troika itself is
 * killed during a call, the script is left to end by itself.
 */
public final class ScriptHostDiscovery implements HostDiscovery {
    /** Most characters of output (stdout and stderr together) one call may print. */
    public static final int MAX_OUTPUT_CHARS = 4 << 20;
    /** Most lines of output one call may print. */
    public static final int MAX_LINES = 100_000;
    /** Longest line of output. */
    public static final int MAX_LINE_CHARS = 1024;
    /** Result code of {@link #systemRunner} when the script printed too much (no process exits with it). */
    static final int OUTPUT_LIMIT = -1;

    private static final int MAX_OUTPUT_IN_ERROR = 400;
    /** Grace between SIGTERM and SIGKILL when the script is ended early. */
    private static final Duration GRACE = Duration.ofSeconds(1);
    /**
     * How often the runner looks whether the script printed too much while it waits for its exit: after 1 ms, then
     * twice as long each time up to this. The exit itself ends the wait at once: a script's run time sets the
     * adaptive discovery interval ({@link DiscoveryInterval}), so a quick one ({@code cat hosts}: about 10 ms of its
     * own, ~22 ms from the JVM with its start and the group's end) must not be measured as the sum of poll steps
     * (1 + 2 + 4 + 8 + 16 ms: ~34 ms was measured while the wait was on the output alone).
     */
    private static final Duration POLL = Duration.ofMillis(20);

    private final Path script;
    private final Integer defaultSlots;
    private final CommandRunner runner;
    private final Duration timeout;

    /**
     * @param script the executable
     * @param defaultSlots slots for lines without a count ({@code --slots-per-host}), or {@code null}
     * @param runner runs the script ({@link #systemRunner} for real)
     * @param timeout bound on one call
     */
    public ScriptHostDiscovery(Path script, Integer defaultSlots, CommandRunner runner, Duration timeout) {
        this.script = Objects.requireNonNull(script, "script");
        this.defaultSlots = defaultSlots;
        this.runner = Objects.requireNonNull(runner, "runner");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        if (defaultSlots != null && (defaultSlots < 1 || defaultSlots > HostCheck.MAX_RANKS)) {
            throw new IllegalArgumentException("--slots-per-host must be within 1.." + HostCheck.MAX_RANKS + ", got "
                    + defaultSlots);
        }
    }

    /** The command this discovery runs (planned, not run). */
    public List<String> command() {
        return List.of(script.toString());
    }

    @Override
    public Found discoverAll() throws HostDiscoveryException {
        ProbeResult r = runner.run(command(), timeout);
        String what = "host discovery script " + script;
        if (r.exitCode() == ProbeResult.TIMED_OUT) {
            throw new HostDiscoveryException(what + " timed out after " + timeout.toSeconds() + " s");
        }
        if (r.exitCode() == ProbeResult.NOT_FOUND) {
            throw new HostDiscoveryException(what + " could not be run; check that it exists and is executable");
        }
        if (r.exitCode() == OUTPUT_LIMIT) {
            throw new HostDiscoveryException(what + " " + r.output() + "; print one host[:slots] per line");
        }
        if (!r.ok()) {
            throw new HostDiscoveryException(what + " exited with code " + r.exitCode() + ": " + abbreviate(r.output()));
        }
        return read(r.output(), defaultSlots);
    }

    /**
     * Parses discovery output (see the class comment for the contract): the hosts with slots.
     *
     * @param defaultSlots slots for lines without a count, or {@code null} to make such lines an error
     */
    public static List<HostSlots> parse(String output, Integer defaultSlots) throws HostDiscoveryException {
        return read(output, defaultSlots).hosts();
    }

    /**
     * Parses discovery output (see the class comment for the contract): the hosts with slots and the standby ones.
     *
     * @param defaultSlots slots for lines without a count, or {@code null} to make such lines an error
     */
    public static Found read(String output, Integer defaultSlots) throws HostDiscoveryException {
        String overflow = overflow(output);
        if (overflow != null) {
            throw new HostDiscoveryException("host discovery " + overflow + "; print one host[:slots] per line");
        }
        Map<String, Integer> slots = new LinkedHashMap<>();
        long total = 0;
        for (String raw : output.split("\\R")) {
            String line = raw.strip();
            if (line.isEmpty()) {
                continue;
            }
            Line h = parseLine(line, defaultSlots);
            Integer before = slots.putIfAbsent(h.name(), h.slots());
            if (before != null && before != h.slots()) {
                throw new HostDiscoveryException("host discovery printed host '" + h.name() + "' with "
                        + before + " and with " + h.slots() + " slots; print each host once");
            }
            if (before == null && (total += h.slots()) > HostCheck.MAX_RANKS) {
                throw new HostDiscoveryException("host discovery printed more than " + HostCheck.MAX_RANKS
                        + " slots in all, troika's limit of ranks; print fewer hosts or slots");
            }
        }
        List<HostSlots> hosts = new ArrayList<>();
        List<String> standby = new ArrayList<>();
        slots.forEach((name, n) -> {
            if (n == 0) {
                standby.add(name);
            } else {
                hosts.add(new HostSlots(name, n));
            }
        });
        return new Found(hosts, standby);
    }

    /** One line's host and slot count (0: a standby host). */
    private record Line(String name, int slots) {}

    /** Which output bound {@code text} breaks, as a phrase ("printed a line of 2000 characters..."), or null. */
    private static String overflow(CharSequence text) {
        if (text.length() > MAX_OUTPUT_CHARS) {
            return "printed more than " + MAX_OUTPUT_CHARS + " characters";
        }
        int lines = 0;
        int lineStart = 0;
        for (int i = 0; i <= text.length(); i++) {
            boolean end = i == text.length() || text.charAt(i) == '\n' || text.charAt(i) == '\r';
            if (!end) {
                continue;
            }
            if (i - lineStart > MAX_LINE_CHARS) {
                return "printed a line of " + (i - lineStart) + " characters, more than " + MAX_LINE_CHARS;
            }
            if (i > lineStart && ++lines > MAX_LINES) {
                return "printed more than " + MAX_LINES + " lines";
            }
            lineStart = i + 1;
        }
        return null;
    }

    private static Line parseLine(String line, Integer defaultSlots) throws HostDiscoveryException {
        String shown = "host discovery line " + UserText.quote(line);
        String[] parts = line.split(":", -1);
        if (parts.length > 2) {
            throw new HostDiscoveryException(shown + " has more than one ':'; print host or host:slots");
        }
        try {
            String name = HostCheck.name(shown, parts[0].strip());
            int slots;
            if (parts.length == 1) {
                if (defaultSlots == null) {
                    throw new HostDiscoveryException(shown + " has no slot count; print host:slots or pass"
                            + " --slots-per-host N");
                }
                slots = defaultSlots;
            } else if (parts[1].strip().matches("0+")) {
                slots = 0; // a standby host
            } else {
                slots = HostCheck.slots(shown, parts[1].strip());
            }
            return new Line(name, slots);
        } catch (UsageException e) {
            throw new HostDiscoveryException(e.getMessage());
        }
    }

    private static String abbreviate(String output) {
        String s = output.strip();
        if (s.length() > MAX_OUTPUT_IN_ERROR) {
            s = s.substring(0, MAX_OUTPUT_IN_ERROR) + "...";
        }
        s = UserText.escape(s.replaceAll("[ \\t]*\\R\\s*", " | "));
        return s.isEmpty() ? "(no output)" : s;
    }

    /**
     * The real runner for discovery scripts: {@code argv} with {@code env} as its whole environment, stdin from
     * {@code /dev/null}, stdout and stderr captured together up to the bounds of the class comment. When the script
     * exits, what is left of its process group is killed; when it times out or passes a bound, the group is
     * terminated ({@link ProbeResult#TIMED_OUT}, or {@link #OUTPUT_LIMIT} with the reason as output).
     */
    public static CommandRunner systemRunner(Map<String, String> env) {
        Map<String, String> childEnv = Map.copyOf(env);
        return (argv, timeout) -> {
            Capture out = new Capture();
            ProcessSupervisor p;
            try {
                p = ProcessSupervisor.start(new LaunchPlan(argv, childEnv),
                        ProcessSupervisor.Options.of(out::accept, out::accept).withoutGuard());
            } catch (IOException e) {
                return new ProbeResult(ProbeResult.NOT_FOUND, String.valueOf(e.getMessage()));
            }
            try {
                // wait for the exit (the wait ends as the script does: not ProcessHandle.onExit, whose completion
                // depends on the shared pool), looking at the output's bound after 1 ms, then twice as long each time
                // up to POLL
                long deadline = System.nanoTime() + timeout.toNanos();
                long poll = TimeUnit.MILLISECONDS.toNanos(1);
                while (!out.overflow.isDone()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        p.terminate(GRACE);
                        return new ProbeResult(ProbeResult.TIMED_OUT, out.text());
                    }
                    if (p.awaitExit(Duration.ofNanos(Math.min(left, poll)))) {
                        break;
                    }
                    poll = Math.min(2 * poll, POLL.toNanos());
                }
                if (out.overflow.isDone()) {
                    p.terminate(GRACE);
                    return new ProbeResult(OUTPUT_LIMIT, out.overflow.getNow(""));
                }
                // the script is done: whatever it left running in its group goes now, before the output is collected
                ProcessSupervisor.signalGroup(p.pid(), PosixSignal.KILL);
                int code = p.waitFor();
                if (out.overflow.isDone()) {
                    return new ProbeResult(OUTPUT_LIMIT, out.overflow.getNow(""));
                }
                // sh reports 126 for "found but not executable"; both mean the script could not run
                return new ProbeResult(code == 126 ? ProbeResult.NOT_FOUND : code, out.text());
            } catch (InterruptedException e) {
                p.close();
                Thread.currentThread().interrupt();
                return new ProbeResult(ProbeResult.TIMED_OUT, out.text());
            }
        };
    }

    /**
     * Collects output segments (from both reader threads) up to the bounds; past a bound it keeps nothing more and
     * completes {@link #overflow} with the reason.
     */
    private static final class Capture {
        final CompletableFuture<String> overflow = new CompletableFuture<>();
        private final StringBuilder text = new StringBuilder();
        private int lineLength;
        private int lines;

        synchronized void accept(String segment) {
            if (overflow.isDone()) {
                return;
            }
            int body = segment.length();
            while (body > 0 && (segment.charAt(body - 1) == '\n' || segment.charAt(body - 1) == '\r')) {
                body--;
            }
            lineLength += body;
            boolean ended = body < segment.length();
            String reason = null;
            if (text.length() + segment.length() > MAX_OUTPUT_CHARS) {
                reason = "printed more than " + MAX_OUTPUT_CHARS + " characters";
            } else if (lineLength > MAX_LINE_CHARS) {
                reason = "printed a line longer than " + MAX_LINE_CHARS + " characters";
            } else if (ended && ++lines > MAX_LINES) {
                reason = "printed more than " + MAX_LINES + " lines";
            }
            if (reason != null) {
                overflow.complete(reason);
                return;
            }
            if (ended) {
                lineLength = 0;
            }
            text.append(segment);
        }

        synchronized String text() {
            return text.toString();
        }
    }
}
