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
 * @param host the host word
 * @param commandLine the remote command line
 */
public record AgentRequest(String host, String commandLine) {
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
        return new AgentRequest(host, String.join(" ", argv.subList(1, argv.size())));
    }
}
