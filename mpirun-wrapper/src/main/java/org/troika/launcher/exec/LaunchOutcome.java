package org.troika.launcher.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.troika.common.exec.PosixSignal;
import org.troika.launcher.elastic.RankExit;
import org.troika.launcher.mpi.FailedRank;
import org.troika.launcher.watchdog.HangReport;
import org.troika.launcher.watchdog.HangWatch;

/**
 * How one {@link SupervisedLaunch} ended: everything a static job's exit code or an elastic generation's exits
 * ({@link GenerationExits}) are computed from, as plain data.
 *
 * @param exitCode the launcher's own exit code ({@code 128 + N} when it died by signal N)
 * @param first the first failed rank the MPI's own output named, or {@code null}
 * @param missingProgram whether the MPI's output showed a program or class a host did not have
 * @param lost hosts the relay declared lost while the launch ran
 * @param hang the hang the watchdog declared, or {@code null}
 * @param signal the signal (SIGINT, SIGTERM) that tore the launch down, or {@code null}
 * @param killed whether a second signal killed the launch at once
 * @param world the exits the ranks reported for an in-place world change (a rank died and the survivors went on),
 *     or {@code null} when there was none
 */
public record LaunchOutcome(int exitCode, FailedRank first, boolean missingProgram, Set<String> lost,
        HangReport hang, PosixSignal signal, boolean killed, List<RankExit> world) {
    public LaunchOutcome {
        lost = Set.copyOf(lost);
        world = world == null ? null : List.copyOf(world);
    }

    /** A launch that ended by itself with {@code exitCode}, nothing else known. */
    public static LaunchOutcome exited(int exitCode) {
        return new LaunchOutcome(exitCode, null, false, Set.of(), null, null, false, null);
    }

    public LaunchOutcome withFirst(FailedRank f) {
        return new LaunchOutcome(exitCode, f, missingProgram, lost, hang, signal, killed, world);
    }

    public LaunchOutcome withLost(Set<String> hosts) {
        return new LaunchOutcome(exitCode, first, missingProgram, hosts, hang, signal, killed, world);
    }

    public LaunchOutcome withHang(HangReport h) {
        return new LaunchOutcome(exitCode, first, missingProgram, lost, h, signal, killed, world);
    }

    public LaunchOutcome withSignal(PosixSignal s, boolean killedAtOnce) {
        return new LaunchOutcome(exitCode, first, missingProgram, lost, hang, s, killedAtOnce, world);
    }

    public LaunchOutcome withWorld(List<RankExit> exits) {
        return new LaunchOutcome(exitCode, first, missingProgram, lost, hang, signal, killed, exits);
    }

    public LaunchOutcome withMissingProgram(boolean missing) {
        return new LaunchOutcome(exitCode, first, missing, lost, hang, signal, killed, world);
    }

    /** What a static job ends with: its exit code and the lines troika prints about it (pure). */
    public record JobEnd(int exitCode, List<String> lines) {
        public JobEnd {
            lines = List.copyOf(lines);
        }
    }

    /**
     * The exit code and closing lines of a static job (pure): a signal gives {@code 128 + signal}; a hang
     * {@value HangWatch#EXIT_HANG}; a failure names the first failed rank and exits with its code (mpirun returns it
     * too, while srun returns the highest code of all tasks: the 143 of the ranks it terminated after the first
     * failure), or says that no rank was named and keeps the launcher's code.
     */
    public JobEnd jobEnd() {
        if (signal != null) {
            return new JobEnd(signal.exitCode(), List.of("troika: stopped by SIG" + signal.name()
                    + (killed ? "; killed the job" : "; job torn down")));
        }
        if (hang != null) {
            return new JobEnd(HangWatch.EXIT_HANG, List.of("troika: the hang watchdog ended the job (exit "
                    + HangWatch.EXIT_HANG + ")"));
        }
        if (exitCode == 0) {
            return new JobEnd(0, List.of());
        }
        List<String> lines = new ArrayList<>();
        lines.add(first != null ? first.summary()
                : "troika: the job failed with exit code " + exitCode + " (the MPI launcher named no rank)");
        if (missingProgram) {
            lines.add("troika: " + org.troika.launcher.mpi.MpiFailureParser.MISSING_PROGRAM_HINT);
        }
        return new JobEnd(first != null ? first.exitCode() : exitCode, lines);
    }
}
