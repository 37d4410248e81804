package org.troika.launcher.relay;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.troika.common.ShellQuote;
import org.troika.common.UsageException;
import org.troika.launcher.spi.RunSettings;
import org.troika.wire.Endpoint;

/**
 * Plans the command that runs words on one host (its task service, the doctor's probe, the end-of-job cleanup) through
 * the remote shell (pure); {@link RemoteShell} runs it. The secret is never in it: the service reads it from stdin
 * ({@code --secret-stdin}), which the executor feeds from a private file and which ssh, srun and blaunch forward.
 *
 * <ul>
 *   <li>{@code ssh} (default): {@code ssh [-p PORT] [-i FILE] -o BatchMode=yes -o ConnectTimeout=10
 *       -o ServerAliveInterval=2 -o ServerAliveCountMax=3 HOST 'quoted service words'} (ssh hands one string to the
 *       remote shell, so the words are shell-quoted at this boundary).</li>
 *   <li>{@code blaunch}: {@code blaunch HOST words...} (LSF).</li>
 *   <li>{@code srun}: {@code srun --nodes=1 --ntasks=1 --overlap --nodelist=HOST words...} (inside a Slurm allocation);
 *       task services of many hosts start in one step ({@link #buildTogether}).</li>
 *   <li>anything else is a template split into words like a shell command line (single and double quotes and
 *       backslashes honoured, nothing expanded), {@code {host}} replaced in each word, the service words appended,
 *       e.g. {@code ip netns exec ns-{host}} or {@code sh -c 'exec ip netns exec "$0" "$@"' {host}}.</li>
 * </ul>
 *
 * <p>Which shell ({@link #remoteShell}): {@code --remote-shell} when given; else the batch system's own launcher named
 * by the allocation ({@code srun} inside Slurm, {@code blaunch} inside LSF), so no sshd is needed on the nodes; else
 * {@code ssh}.
 */
public final class RemoteShellCommandBuilder {
    private RemoteShellCommandBuilder() {}

    /**
     * The task-service words run on the host; with {@code agentLabel} (not a secret; {@code null}: none) tree-spawned
     * agents there get the launch agent key of that label instead of the job secret.
     */
    public static List<String> serviceWords(Path troikaRsh, String host, Endpoint driver, String agentLabel) {
        return serviceWords(troikaRsh, host, driver, agentLabel, false);
    }

    /**
     * {@link #serviceWords(Path, String, Endpoint, String)}, and with {@code detach} the service leaves its remote
     * shell once registered ({@code --detach}: the shell's process on this machine ends then).
     */
    public static List<String> serviceWords(Path troikaRsh, String host, Endpoint driver, String agentLabel,
            boolean detach) {
        return serviceWords(troikaRsh, List.of("--host", host), driver, agentLabel, detach);
    }

    /**
     * The task-service words one {@code srun} step runs on each of its hosts ({@link #buildTogether}): the same command
     * line everywhere, each service naming its host by {@link #STEP_HOST_VARIABLE}.
     */
    public static List<String> stepServiceWords(Path troikaRsh, Endpoint driver, String agentLabel) {
        return serviceWords(troikaRsh, List.of("--host-from-env", STEP_HOST_VARIABLE), driver, agentLabel, false);
    }

    /** What names the host in each task of an srun step: Slurm's node name, the word the allocation's host list has. */
    public static final String STEP_HOST_VARIABLE = "SLURMD_NODENAME";

    private static List<String> serviceWords(Path troikaRsh, List<String> hostWords, Endpoint driver,
            String agentLabel, boolean detach) {
        List<String> w = new ArrayList<>(List.of(troikaRsh.toString(), "task-service"));
        w.addAll(hostWords);
        w.addAll(List.of("--driver", driver.toString(), "--secret-stdin"));
        if (detach) {
            w.add("--detach");
        }
        if (agentLabel != null) {
            w.addAll(List.of("--agent-label", agentLabel));
        }
        return List.copyOf(w);
    }

    /** The cleanup words run on a host at the end of an elastic job ({@code troika-rsh cleanup --job ID}). */
    public static List<String> cleanupWords(Path troikaRsh, String jobId) {
        return List.of(troikaRsh.toString(), "cleanup", "--job", jobId);
    }

    /**
     * The remote shell for task services: {@code --remote-shell} if given, else the allocation's launcher
     * ({@code srun}, {@code blaunch}) if it names one, else {@code ssh} (pure).
     *
     * @param allocationShell the allocation's remote shell, or {@code null} outside a batch allocation
     */
    public static String remoteShell(RunSettings s, String allocationShell) {
        if (s.remote().shell() != null && !s.remote().shell().isBlank()) {
            return s.remote().shell().trim();
        }
        return allocationShell != null && !allocationShell.isBlank() ? allocationShell : "ssh";
    }

    /** Whether the shell starts a command on many hosts with one process here ({@link #buildTogether}): srun. */
    public static boolean startsTogether(RunSettings s, String allocationShell) {
        return remoteShell(s, allocationShell).equals("srun");
    }

    /**
     * The argv that starts {@code words} once on each of {@code hosts} hosts with one process on this machine, or
     * {@code null} when the shell starts one host at a time (everything but {@code srun}): {@code srun --nodes=K
     * --ntasks=K --ntasks-per-node=1 --overlap --kill-on-bad-exit=0 --input=all --nodelist=LIST words...}. One task
     * that fails does not end the others; every task reads the same stdin (the secret line).
     *
     * @param nodeList the hosts joined with commas, or a file that lists them (srun reads a value with a '/' as a file)
     */
    public static List<String> buildTogether(RunSettings s, String allocationShell, int hosts, String nodeList,
            List<String> words) {
        if (!startsTogether(s, allocationShell)) {
            return null;
        }
        List<String> argv = new ArrayList<>(List.of("srun", "--nodes=" + hosts, "--ntasks=" + hosts,
                "--ntasks-per-node=1", "--overlap", "--kill-on-bad-exit=0", "--input=all", "--nodelist=" + nodeList));
        argv.addAll(words);
        return argv;
    }

    /**
     * The argv that starts {@code serviceWords} on {@code host}.
     *
     * @param allocationShell the allocation's remote shell ({@code srun}, {@code blaunch}), or {@code null}
     * @throws UsageException for a template without {@code {host}} or with an unterminated quote
     */
    public static List<String> build(RunSettings s, String allocationShell, String host, List<String> serviceWords) {
        String shell = remoteShell(s, allocationShell);
        List<String> argv = new ArrayList<>();
        switch (shell) {
            case "ssh" -> {
                argv.add("ssh");
                if (s.remote().sshPort() != null) {
                    argv.addAll(List.of("-p", Integer.toString(s.remote().sshPort())));
                }
                if (s.remote().sshIdentityFile() != null) {
                    argv.addAll(List.of("-i", s.remote().sshIdentityFile().toString()));
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
                List<String> words;
                try {
                    words = ShellQuote.split(shell);
                } catch (IllegalArgumentException e) {
                    throw new UsageException("--remote-shell '" + shell + "' cannot be split into words (" + e.getMessage()
                            + "); close the quote");
                }
                for (String w : words) {
                    argv.add(w.replace("{host}", host));
                }
                argv.addAll(serviceWords);
            }
        }
        return argv;
    }
}
