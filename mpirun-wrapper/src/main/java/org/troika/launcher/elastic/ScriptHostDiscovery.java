package org.troika.launcher.elastic;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.troika.common.exec.CommandRunner;
import org.troika.common.exec.CommandRunner.ProbeResult;
import org.troika.launcher.spi.HostSlots;

/**
 * Runs the user's {@code --host-discovery-script} (directly, no shell, stdin closed, bounded by a per-call
 * timeout) and parses its output.
 *
 * <p>Output contract: one {@code host} or {@code host:slots} per line. Lines are trimmed, blank lines skipped,
 * repeated identical lines collapse; a line without slots takes {@code --slots-per-host}. Empty output means
 * "no hosts yet" and is valid. Errors: a non-zero exit, a timeout, more than one {@code :}, a missing slot count
 * without {@code --slots-per-host}, a bad host name or slot count, one host with two different slot counts.
 */
public final class ScriptHostDiscovery implements HostDiscovery {
    private static final int MAX_OUTPUT_IN_ERROR = 400;

    private final Path script;
    private final Integer defaultSlots;
    private final CommandRunner runner;
    private final Duration timeout;

    /**
     * @param script the executable
     * @param defaultSlots slots for lines without a count ({@code --slots-per-host}), or {@code null}
     * @param runner runs the script
     * @param timeout bound on one call
     */
    public ScriptHostDiscovery(Path script, Integer defaultSlots, CommandRunner runner, Duration timeout) {
        this.script = Objects.requireNonNull(script, "script");
        this.defaultSlots = defaultSlots;
        this.runner = Objects.requireNonNull(runner, "runner");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        if (defaultSlots != null && defaultSlots < 1) {
            throw new IllegalArgumentException("--slots-per-host must be at least 1, got " + defaultSlots);
        }
    }

    /** The command this discovery runs (planned, not run). */
    public List<String> command() {
        return List.of(script.toString());
    }

    @Override
    public List<HostSlots> discover() throws HostDiscoveryException {
        ProbeResult r = runner.run(command(), timeout);
        if (r.exitCode() == ProbeResult.TIMED_OUT) {
            throw new HostDiscoveryException("host discovery script " + script + " timed out after "
                    + timeout.toSeconds() + " s");
        }
        if (r.exitCode() == ProbeResult.NOT_FOUND) {
            throw new HostDiscoveryException("host discovery script " + script
                    + " could not be run; check that it exists and is executable");
        }
        if (!r.ok()) {
            throw new HostDiscoveryException("host discovery script " + script + " exited with code "
                    + r.exitCode() + ": " + abbreviate(r.output()));
        }
        return parse(r.output(), defaultSlots);
    }

    /**
     * Parses discovery output (see the class comment for the contract).
     *
     * @param defaultSlots slots for lines without a count, or {@code null} to make such lines an error
     */
    public static List<HostSlots> parse(String output, Integer defaultSlots) throws HostDiscoveryException {
        Map<String, HostSlots> hosts = new LinkedHashMap<>();
        for (String raw : output.split("\\R")) {
            String line = raw.trim();
            if (line.isEmpty()) {
                continue;
            }
            HostSlots h = parseLine(line, defaultSlots);
            HostSlots before = hosts.putIfAbsent(h.name(), h);
            if (before != null && before.slots() != h.slots()) {
                throw new HostDiscoveryException("host discovery printed host '" + h.name() + "' with "
                        + before.slots() + " and with " + h.slots() + " slots; print each host once");
            }
        }
        return new ArrayList<>(hosts.values());
    }

    private static HostSlots parseLine(String line, Integer defaultSlots) throws HostDiscoveryException {
        String[] parts = line.split(":", -1);
        if (parts.length > 2) {
            throw new HostDiscoveryException("host discovery line '" + line
                    + "' has more than one ':'; print host or host:slots");
        }
        String name = parts[0].trim();
        if (!HostSlots.isValidName(name)) {
            throw new HostDiscoveryException("host discovery line '" + line
                    + "' has a bad host name; use letters, digits, '_', '.' and '-'");
        }
        int slots;
        if (parts.length == 1) {
            if (defaultSlots == null) {
                throw new HostDiscoveryException("host discovery line '" + line
                        + "' has no slot count; print host:slots or pass --slots-per-host N");
            }
            slots = defaultSlots;
        } else {
            String digits = parts[1].trim();
            if (!digits.matches("[0-9]{1,9}") || Integer.parseInt(digits) < 1) {
                throw new HostDiscoveryException("host discovery line '" + line
                        + "' needs a slot count of at least 1 after ':', like " + name + ":4");
            }
            slots = Integer.parseInt(digits);
        }
        return new HostSlots(name, slots);
    }

    private static String abbreviate(String output) {
        String s = output.strip().replaceAll("\\s*\\R\\s*", " | ");
        if (s.isEmpty()) {
            return "(no output)";
        }
        return s.length() <= MAX_OUTPUT_IN_ERROR ? s : s.substring(0, MAX_OUTPUT_IN_ERROR) + "...";
    }
}
