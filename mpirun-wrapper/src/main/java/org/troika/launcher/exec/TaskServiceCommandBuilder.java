package org.troika.launcher.exec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.troika.common.ShellQuote;
import org.troika.common.UsageException;
import org.troika.launcher.spi.RunSettings;
import org.troika.wire.Endpoint;

/**
 * Plans the command that starts one host's task service through the remote shell chosen with {@code --remote-shell}
 * (pure). The secret is never in it: the service reads it from stdin ({@code --secret-stdin}), which the executor
 * feeds from a private file and which ssh, srun and blaunch forward.
 *
 * <ul>
 *   <li>{@code ssh} (default): {@code ssh [-p PORT] [-i FILE] -o BatchMode=yes -o ConnectTimeout=10
 *       -o ServerAliveInterval=2 -o ServerAliveCountMax=3 HOST 'quoted service words'} (ssh hands one string to the
 *       remote shell, so the words are shell-quoted at this boundary).</li>
 *   <li>{@code blaunch}: {@code blaunch HOST words...} (LSF).</li>
 *   <li>{@code srun}: {@code srun --nodes=1 --ntasks=1 --overlap --nodelist=HOST words...} (inside a Slurm allocation).</li>
 *   <li>anything else is a template split on whitespace, {@code {host}} replaced in each word, the service words
 *       appended, e.g. {@code ip netns exec ns-{host}}.</li>
 * </ul>
 */
public final class TaskServiceCommandBuilder {
    private TaskServiceCommandBuilder() {}

    /** The task-service words run on the host. */
    public static List<String> serviceWords(Path troikaRsh, String host, Endpoint driver) {
        return serviceWords(troikaRsh, host, driver, null);
    }

    /**
     * The task-service words run on the host; with {@code agentLabel} (not a secret) tree-spawned agents there get the
     * launch agent key of that label instead of the job secret.
     */
    public static List<String> serviceWords(Path troikaRsh, String host, Endpoint driver, String agentLabel) {
        List<String> w = new ArrayList<>(List.of(troikaRsh.toString(), "task-service", "--host", host, "--driver",
                driver.toString(), "--secret-stdin"));
        if (agentLabel != null) {
            w.addAll(List.of("--agent-label", agentLabel));
        }
        return List.copyOf(w);
    }

    public static List<String> build(RunSettings s, String host, List<String> serviceWords) {
        String shell = s.remoteShell() == null ? "ssh" : s.remoteShell().trim();
        List<String> argv = new ArrayList<>();
        switch (shell) {
            case "ssh" -> {
                argv.add("ssh");
                if (s.sshPort() != null) {
                    argv.addAll(List.of("-p", Integer.toString(s.sshPort())));
                }
                if (s.sshIdentityFile() != null) {
                    argv.addAll(List.of("-i", s.sshIdentityFile().toString()));
                }
                argv.addAll(List.of("-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "-o", "ServerAliveInterval=2",
                        "-o", "ServerAliveCountMax=3", host, ShellQuote.join(serviceWords)));
            }
            case "blaunch" -> {
                argv.addAll(List.of("blaunch", host));
                argv.addAll(serviceWords);
            }
            case "srun" -> {
                argv.addAll(List.of("srun", "--nodes=1", "--ntasks=1", "--overlap", "--nodelist=" + host));
                argv.addAll(serviceWords);
            }
            default -> {
                if (!shell.contains("{host}")) {
                    throw new UsageException("--remote-shell '" + shell + "' is not ssh, blaunch or srun and has no {host}"
                            + " placeholder; e.g. --remote-shell 'ip netns exec ns-{host}'");
                }
                for (String w : shell.split("\\s+")) {
                    argv.add(w.replace("{host}", host));
                }
                argv.addAll(serviceWords);
            }
        }
        return argv;
    }
}
