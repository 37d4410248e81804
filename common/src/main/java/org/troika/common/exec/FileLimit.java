package org.troika.common.exec;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;
import org.troika.common.UsageException;

/**
 * The file descriptors troika needs for a launch, and its limit raised to that before anything starts.
 *
 * <p>A launch keeps one connection per host at its driver service and a remote shell's pipes per host while its task
 * service starts; nothing per rank (the hang watchdog's reports and an elastic generation's leaves are datagrams on
 * one socket each).
 * On Linux the JVM raises the soft limit ({@code ulimit -n}) to the hard one ({@code ulimit -Hn}) at start-up; past
 * the hard limit only a privileged process can go ({@code CAP_SYS_RESOURCE}, root), up to {@code fs.nr_open}. So:
 * <ol>
 *   <li>enough already: nothing happens;</li>
 *   <li>else the limit is raised with {@code prlimit --pid PID --nofile=N:N} (util-linux), which works for root with
 *       {@code CAP_SYS_RESOURCE} (a container may drop it);</li>
 *   <li>else one line names the need, the limit and the fix ({@link UsageException}), before anything starts.</li>
 * </ol>
 */
public final class FileLimit {
    /** Descriptors of the launcher itself, its jars, threads' pipes, mpirun's pipes, and slack. */
    public static final int BASE = 256;
    /** Per remote host: its connection at the driver, and its remote shell's three pipes while it starts. */
    public static final int PER_HOST = 4;

    private FileLimit() {}

    /**
     * Descriptors a launch needs.
     *
     * @param hosts remote hosts with a task service (0 without the relay)
     */
    public static long need(int hosts) {
        return BASE + (long) PER_HOST * hosts;
    }

    /** {@code prlimit}'s command that sets the soft and hard limit of process {@code pid} to {@code n} (pure). */
    public static List<String> raiseCommand(long pid, long n) {
        return List.of("prlimit", "--pid", Long.toString(pid), "--nofile=" + n + ":" + n);
    }

    /**
     * This process's limit now: the soft limit in {@code /proc/self/limits} (Linux), else what the JVM reports
     * ({@code Long.MAX_VALUE} when it cannot tell). The file first: the JVM's management beans cost every
     * {@code troika run} ~20 ms of start-up (their platform providers and cgroup metrics).
     */
    public static long current() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"), StandardCharsets.US_ASCII)) {
                Long soft = softOpenFiles(line);
                if (soft != null) {
                    return soft;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: the management bean below
        }
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean u) {
            return u.getMaxFileDescriptorCount();
        }
        return Long.MAX_VALUE;
    }

    /**
     * The soft limit of a {@code /proc/PID/limits} line {@code Max open files  SOFT  HARD  files} ("unlimited" is
     * {@code Long.MAX_VALUE}), or {@code null} for any other line (pure).
     */
    static Long softOpenFiles(String line) {
        if (!line.startsWith("Max open files")) {
            return null;
        }
        String rest = line.substring("Max open files".length()).trim();
        int end = 0;
        while (end < rest.length() && !Character.isWhitespace(rest.charAt(end))) {
            end++;
        }
        String soft = rest.substring(0, end);
        if (soft.equals("unlimited")) {
            return Long.MAX_VALUE;
        }
        try {
            return soft.isEmpty() ? null : Long.parseLong(soft);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * Makes sure this process may open {@code need} descriptors, raising its limit where it can.
     *
     * @param what what needs them, for the error ("10000 hosts and 80000 ranks")
     * @throws UsageException when the limit stays below {@code need}
     */
    public static void ensure(long need, String what) {
        ensure(need, what, ProcessHandle.current().pid(), FileLimit::current, SystemCommandRunner.withSystemEnv());
    }

    /** {@link #ensure(long, String)} with the process, its limit and the command runner given (tests). */
    static void ensure(long need, String what, long pid, LongSupplier limit, CommandRunner runner) {
        long before = limit.getAsLong();
        if (before >= need) {
            return;
        }
        CommandRunner.ProbeResult r = runner.run(raiseCommand(pid, need), Duration.ofSeconds(10));
        long after = limit.getAsLong();
        if (after >= need) {
            return;
        }
        String why = r.exitCode() == CommandRunner.ProbeResult.NOT_FOUND ? "prlimit (util-linux) is not installed"
                : "raising it needs root with CAP_SYS_RESOURCE";
        throw new UsageException(what + " need about " + need + " file descriptors, but troika may open at most "
                + after + " (ulimit -Hn) and could not raise that (" + why + "); raise the hard limit to " + need
                + " or more (nofile in /etc/security/limits.conf, LimitNOFILE= for a service, or 'ulimit -Hn " + need
                + "' as root before starting troika)");
    }
}
