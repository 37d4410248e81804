package org.troika.launcher.mpi;

import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.troika.common.exec.PosixSignal;
import org.troika.launcher.spi.HostPlan;

/**
 * Finds the first failed rank in the MPI launcher's own output, fed line by line (stdout and stderr, in any order).
 * Only the launcher's own lines are its diagnosis: the output pipeline never feeds it a line a rank printed (tagged),
 * so a rank cannot name another rank, host or exit code by printing the launcher's words.
 *
 * <p>Recognised (Open MPI 4.1.4 text, checked on Debian 12; {@code prterun} wording of Open MPI 5 too):
 * <pre>
 * mpirun detected that one or more processes exited with non-zero status, thus causing
 * the job to be terminated. The first process to do so was:
 *
 *   Process name: [[29432,1],1]
 *   Exit code:    3
 *
 * mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed).
 *
 * MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD
 * with errorcode 1.
 * </pre>
 * Open MPI 5.0.7 wraps the last one after "exited on" ({@code prterun noticed that process rank 2 with PID 5856 on
 * node vm exited on} / {@code signal 9 (Killed).}): a line is also tried joined to the one before it.
 * and Slurm's {@code srun} (22.05; one task per line, a signal as its {@code strsignal} text):
 * <pre>
 * srun: error: n3: task 4: Exited with exit code 7
 * srun: error: n1: task 0: Segmentation fault (core dumped)
 * </pre>
 * The first report wins. A host the message does not name is looked up in the host plan by rank.
 * Open MPI sometimes prints only "Primary job terminated normally, but 1 process returned a non-zero exit code"
 * without naming the rank; then there is no report. MPICH/Hydra names no rank either.
 *
 * <p>Thread-safe: stdout and stderr readers may feed it concurrently.
 */
public final class MpiFailureParser {
    private static final Pattern PROCESS_NAME = Pattern.compile("^\\s*Process name:\\s*\\[.*?,(\\d+)\\]\\s*$");
    private static final Pattern EXIT_CODE = Pattern.compile("^\\s*Exit code:\\s*(-?\\d+)\\s*$");
    private static final String NOTICED = " noticed that process rank ";
    private static final Pattern SIGNALED = Pattern.compile(
            " noticed that process rank (\\d+) with PID \\d+ on node (\\S+) exited on signal (\\d+)");
    private static final Pattern ABORTED = Pattern.compile("^MPI_ABORT was invoked on rank (\\d+) in communicator");
    private static final Pattern ABORT_CODE = Pattern.compile("^(?:with errorcode|Errorcode:)\\s*(-?\\d+)");

    private static final Pattern SRUN_TASK = Pattern.compile(
            "^srun: error: (\\S+): task (\\d+): (?:Exited with exit code (\\d+)|(.+?))(?: \\(core dumped\\))?$");
    /** {@code strsignal} texts of the signals a task commonly dies of (glibc), by number. */
    private static final Map<String, Integer> SIGNAL_TEXT = Map.ofEntries(Map.entry("Hangup", 1),
            Map.entry("Interrupt", 2), Map.entry("Quit", 3), Map.entry("Illegal instruction", 4),
            Map.entry("Trace/breakpoint trap", 5), Map.entry("Aborted", 6), Map.entry("Bus error", 7),
            Map.entry("Floating point exception", 8), Map.entry("Killed", 9), Map.entry("User defined signal 1", 10),
            Map.entry("Segmentation fault", 11), Map.entry("User defined signal 2", 12), Map.entry("Broken pipe", 13),
            Map.entry("Alarm clock", 14), Map.entry("Terminated", 15));

    private final HostPlan hosts;
    private Integer pendingRank;
    private String previous = "";
    private Integer pendingAbort;
    private boolean missingProgram;
    private FailedRank first;

    /** @param hosts the job's host plan for rank → host lookups, or {@code null} */
    public MpiFailureParser(HostPlan hosts) {
        this.hosts = hosts;
    }

    private static final byte[] NO_MAIN_CLASS = "Error: Could not find or load main class"
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /**
     * Takes one line of the launcher's own output (a trailing terminator is ignored). Each pattern is tried only on a
     * line that has its fixed words, so a line costs a few {@code contains} checks.
     */
    public synchronized void accept(String line) {
        String l = line.strip();
        if (l.contains("unable to launch the specified application")) {
            missingProgram = true;
        }
        if (first != null) {
            return;
        }
        String before = previous;
        previous = l;
        Matcher m;
        if (l.startsWith("srun: error: ")) {
            m = SRUN_TASK.matcher(l);
            if (m.matches()) {
                Integer signal = m.group(3) != null ? null : SIGNAL_TEXT.get(m.group(4));
                if (m.group(3) != null || signal != null) {
                    int code = m.group(3) != null ? Integer.parseInt(m.group(3)) : PosixSignal.exitCodeOf(signal);
                    first = new FailedRank(Integer.parseInt(m.group(2)), m.group(1), code);
                }
            }
            return;
        }
        if (l.contains(NOTICED) || before.contains(NOTICED)) {
            m = SIGNALED.matcher(l);
            if (!m.find()) {
                m = SIGNALED.matcher(before + " " + l);
            }
            if (m.find(0)) {
                int signal = Integer.parseInt(m.group(3));
                int code = signal >= 1 && signal <= 64 ? PosixSignal.exitCodeOf(signal) : 128 + signal;
                first = new FailedRank(Integer.parseInt(m.group(1)), m.group(2), code);
                return;
            }
        }
        if (l.startsWith("MPI_ABORT was invoked")) {
            m = ABORTED.matcher(l);
            if (m.find()) {
                pendingAbort = Integer.parseInt(m.group(1));
                return;
            }
        }
        if (pendingAbort != null && (l.startsWith("with errorcode") || l.startsWith("Errorcode:"))) {
            m = ABORT_CODE.matcher(l);
            if (m.find()) {
                first = new FailedRank(pendingAbort, hostOf(pendingAbort), Integer.parseInt(m.group(1)));
                return;
            }
        }
        if (l.startsWith("Process name:")) {
            m = PROCESS_NAME.matcher(l);
            if (m.matches()) {
                pendingRank = Integer.parseInt(m.group(1));
                return;
            }
        }
        if (pendingRank != null && l.startsWith("Exit code:")) {
            m = EXIT_CODE.matcher(l);
            if (m.matches()) {
                int rank = pendingRank;
                first = new FailedRank(rank, hostOf(rank), Integer.parseInt(m.group(1)));
            }
        }
    }

    /**
     * The first bytes of a line a rank printed: notes a JVM that could not find its main class (for
     * {@link #missingProgramHint}; a rank's words never name a failed rank).
     */
    public void acceptRankLineStart(byte[] b, int off, int len) {
        if (len >= NO_MAIN_CLASS.length && b[off] == NO_MAIN_CLASS[0] && java.util.Arrays.equals(b, off, off + NO_MAIN_CLASS.length, NO_MAIN_CLASS,
                0, NO_MAIN_CLASS.length)) {
            synchronized (this) {
                missingProgram = true;
            }
        }
    }

    /**
     * Whether the output showed a program or class that a host did not have (Open MPI's "unable to launch the
     * specified application", the JVM's "Could not find or load main class"): then a one-line reminder that hosts
     * share nothing troika does not bring, for the caller to print after the failure line.
     */
    public synchronized Optional<String> missingProgramHint() {
        return missingProgram ? Optional.of(MISSING_PROGRAM_HINT) : Optional.empty();
    }

    public static final String MISSING_PROGRAM_HINT = "the program and its class path must exist at the same path on every"
            + " host (troika copies neither: install them there or use a shared file system)";

    /** The first failed rank reported so far. */
    public synchronized Optional<FailedRank> first() {
        return Optional.ofNullable(first);
    }

    private String hostOf(int rank) {
        if (hosts == null || rank < 0 || rank >= hosts.slots().size()) {
            return null;
        }
        return hosts.slots().get(rank).host();
    }
}
