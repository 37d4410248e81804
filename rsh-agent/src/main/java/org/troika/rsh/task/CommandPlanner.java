package org.troika.rsh.task;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.troika.common.exec.LaunchPlan;
import org.troika.common.exec.PrtedGuard;

/** Plans the process a task service runs for one relayed command line. Pure. */
public final class CommandPlanner {
    private CommandPlanner() {}

    /**
     * {@code /bin/sh -c COMMANDLINE}: the words Open MPI passed to its agent are a command line for a remote shell
     * (the first is {@code " orted"} with a leading space, values carry literal double quotes), so a shell re-parses
     * them exactly as sshd would. With {@code hostname}, the shell runs in a new UTS namespace named so (fake hosts on
     * one kernel), which needs root and {@code unshare} (util-linux).
     *
     * <p>The shell runs behind {@code setsid -w}, in a session of its own, as under sshd: when the shell exits, the
     * supervisor tears down what is left of <em>its</em> group, and {@code orted --daemonize} (no tree spawn), which
     * forks and exits at once, must not be caught in that before it detaches. {@code setsid -w} waits and passes the
     * exit code on. The task service signals the inner session itself when it aborts a command.
     *
     * <p>A command line that starts a PRRTE daemon gets {@link #guarded the guard library} preloaded.
     *
     * @param prtedGuard this host's guard library ({@link PrtedGuard#installed}), or {@code null}
     */
    public static LaunchPlan plan(String commandLine, String hostname, Map<String, String> env, Path prtedGuard) {
        env = guarded(commandLine, env, prtedGuard);
        if (hostname == null) {
            return new LaunchPlan(List.of("setsid", "-w", "/bin/sh", "-c", commandLine), env);
        }
        return new LaunchPlan(List.of("setsid", "-w", "unshare", "--uts", "/bin/sh", "-c",
                "hostname \"$0\" && exec /bin/sh -c \"$1\"", hostname, commandLine), env);
    }

    /** {@code prted} as a word of a shell command line (after a path, a {@code ;} or a blank), not inside another. */
    private static final Pattern PRTED = Pattern.compile("(^|[\\s;&|/])prted(\\s|;|$)");

    /**
     * {@code env} with {@code prtedGuard} first in {@code LD_PRELOAD} when {@code commandLine} starts {@code prted}
     * and there is a library; else {@code env} itself. The library (lib/troika-prted-guard.c)
     * gives the one-element info arrays PRRTE's own code asks PMIx for an empty second element, which keeps PRRTE
     * 3.0.x from freeing a garbage pointer after the connect of a spawn across hosts, and takes itself out of
     * {@code LD_PRELOAD} in the daemon, so the ranks do not inherit it. Open MPI 4's {@code orted} has no such step
     * and gets nothing.
     */
    static Map<String, String> guarded(String commandLine, Map<String, String> env, Path prtedGuard) {
        if (prtedGuard == null || !PRTED.matcher(commandLine).find()) {
            return env;
        }
        return PrtedGuard.preloaded(env, prtedGuard.toString());
    }
}
