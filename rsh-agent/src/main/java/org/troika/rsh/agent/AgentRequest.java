package org.troika.rsh.agent;

import java.util.List;
import org.troika.common.UsageException;

/**
 * What Open MPI asked the agent to do, parsed from its argv (pure).
 *
 * <p>Open MPI calls {@code troika-rsh [plm_rsh_args...] HOST WORD...}: exactly one host word (as spelled in the host
 * list), then the daemon command as words meant for a remote shell. They are joined with single spaces and re-parsed
 * by {@code /bin/sh -c} on the target, as sshd would; splitting them ourselves would break the {@code " orted"} first
 * word and the literal double quotes (MEASURED-HERE §2.2). Open MPI &lt; 4 passed {@code host:slots}, which is refused.
 *
 * <p>A command that starts an Open MPI daemon ({@code orted} of ORTE, {@code prted} of PRRTE) carries the word
 * {@code --tree-spawn} (a daemon that starts its own children) or {@code --daemonize} (no tree spawn); both MPIs give
 * those words to their daemons only. Such a request is a {@link #daemon()}: the agent hands the daemon over to the
 * task service once it runs and exits 0, instead of living as long as the daemon (docs/launch-agent.md, "Large
 * clusters").
 *
 * @param host the host word
 * @param commandLine the remote command line
 * @param daemon whether the words start an Open MPI daemon
 */
public record AgentRequest(String host, String commandLine, boolean daemon) {
    /** The daemon words of ORTE and PRRTE (any other command is relayed for as long as it runs, like ssh). */
    static final java.util.Set<String> DAEMON_WORDS = java.util.Set.of("--tree-spawn", "--daemonize");

    public static AgentRequest parse(List<String> argv) {
        if (argv.size() < 2) {
            throw new UsageException("usage: troika-rsh HOST COMMAND... (Open MPI's plm_rsh_agent calls it so)");
        }
        String host = argv.get(0);
        if (host.startsWith("-")) {
            throw new UsageException("troika-rsh takes no options before HOST; unset plm_rsh_args (got '" + host + "')");
        }
        if (host.indexOf(':') >= 0) {
            throw new UsageException("host word '" + host + "' contains ':'; this Open MPI passes name:slots to its agent,"
                    + " which troika-rsh does not support (use Open MPI 4 or later)");
        }
        List<String> words = argv.subList(1, argv.size());
        boolean daemon = words.stream().anyMatch(DAEMON_WORDS::contains);
        return new AgentRequest(host, String.join(" ", words), daemon);
    }
}
