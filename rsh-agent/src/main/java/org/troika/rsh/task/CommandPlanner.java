package org.troika.rsh.task;

import java.util.List;
import java.util.Map;
import org.troika.common.exec.LaunchPlan;

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
     */
    public static LaunchPlan plan(String commandLine, String hostname, Map<String, String> env) {
        if (hostname == null) {
            return new LaunchPlan(List.of("setsid", "-w", "/bin/sh", "-c", commandLine), env);
        }
        return new LaunchPlan(List.of("setsid", "-w", "unshare", "--uts", "/bin/sh", "-c",
                "hostname \"$0\" && exec /bin/sh -c \"$1\"", hostname, commandLine), env);
    }
}
