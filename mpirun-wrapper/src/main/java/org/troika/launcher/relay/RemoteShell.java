package org.troika.launcher.relay;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.troika.common.TroikaEnv;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner.ProbeResult;
import org.troika.common.exec.LaunchPlan;
import org.troika.common.exec.LineSink;
import org.troika.common.exec.ProcessSupervisor;
import org.troika.common.exec.SystemCommandRunner;
import org.troika.launcher.spi.RunSettings;

/**
 * The job's remote shell, the one place that knows it: {@code --remote-shell} when given, else the allocation's own
 * launcher ({@code srun} inside Slurm, {@code blaunch} inside LSF), else {@code ssh}
 * ({@link RemoteShellCommandBuilder#remoteShell}). Runs words on a host through it: a task service
 * ({@link #start}), the doctor's probe and the end-of-job cleanup ({@link #runOnAll}). The commands run with the
 * caller's environment without the job secret.
 */
public final class RemoteShell {
    /** At most this many remote shells run at once in {@link #runOnAll}. */
    static final int MAX_PARALLEL = 64;

    private final RunSettings settings;
    private final String allocationShell;
    private final Map<String, String> env;

    /**
     * @param settings {@code --remote-shell}, {@code -p}/{@code -i} for ssh
     * @param allocationShell the batch allocation's own remote shell ({@code srun}, {@code blaunch}) or {@code null}
     * @param env the caller's environment (the job secret is removed from it)
     */
    public RemoteShell(RunSettings settings, String allocationShell, Map<String, String> env) {
        this.settings = settings;
        this.allocationShell = allocationShell;
        Map<String, String> e = new LinkedHashMap<>(env);
        TroikaEnv.stripJobSecret(e);
        this.env = Map.copyOf(e);
    }

    /** The shell's name: {@code ssh}, {@code srun}, {@code blaunch} or the {@code --remote-shell} template. */
    public String name() {
        return RemoteShellCommandBuilder.remoteShell(settings, allocationShell);
    }

    /**
     * The argv that runs {@code words} on {@code host} (pure).
     *
     * @throws UsageException for a template without {@code {host}} or with an unterminated quote
     */
    public List<String> argv(String host, List<String> words) {
        return RemoteShellCommandBuilder.build(settings, allocationShell, host, words);
    }

    /**
     * Checks that the shell can be planned at all (a template names {@code {host}} and splits into words).
     *
     * @throws UsageException naming the problem and the fix
     */
    public RemoteShell check() {
        argv("host", List.of("true"));
        return this;
    }

    /** Whether the job runs inside a batch allocation whose own launcher starts commands on its hosts. */
    public boolean inAllocation() {
        return allocationShell != null;
    }

    /** What to try by hand when {@code host} cannot be reached through this shell. */
    public String howToCheck(String host) {
        return switch (name()) {
            case "ssh" -> "check that 'ssh " + host + " true' works without a password (keys, host name, -p/-i)";
            case "srun" -> "check that 'srun --nodes=1 --ntasks=1 --overlap --nodelist=" + host + " true' works inside"
                    + " the allocation";
            case "blaunch" -> "check that 'blaunch " + host + " true' works inside the allocation";
            default -> "check --remote-shell '" + name() + "' by hand for this host";
        };
    }

    /**
     * Starts {@code words} on {@code host} under a {@link ProcessSupervisor}, its output to {@code out}/{@code err}.
     *
     * @param stdin a file fed to the command's stdin (a task service's secret line), or {@code null}
     */
    public ProcessSupervisor start(String host, List<String> words, LineSink out, LineSink err, Path stdin)
            throws IOException {
        ProcessSupervisor.Options o = ProcessSupervisor.Options.of(out, err);
        return ProcessSupervisor.start(new LaunchPlan(argv(host, words), env), stdin == null ? o : o.withStdin(stdin));
    }

    /** A command started on several hosts by one process here, and the host-list file it read (or {@code null}). */
    public record Together(ProcessSupervisor process, List<String> argv, Path hostFile) {}

    /**
     * Whether task services started through this shell leave it once registered ({@code --detach}), so that its
     * process here ends: ssh and templates. Not srun and blaunch: a batch system ends what its task leaves behind when
     * the task exits (Slurm's step, LSF's RES), and srun starts many hosts with one process anyway.
     */
    public boolean detaches() {
        return !name().equals("srun") && !name().equals("blaunch");
    }

    /** Whether this shell starts a command on many hosts with one process here ({@link #startTogether}). */
    public boolean startsTogether() {
        return RemoteShellCommandBuilder.startsTogether(settings, allocationShell);
    }

    /**
     * Starts {@code words} once on each of {@code hosts} with one process on this machine (one {@code srun} step), or
     * returns {@code null} when this shell starts one host at a time ({@link RemoteShellCommandBuilder#buildTogether}).
     *
     * @param tmp where a host list too long for the command line is written (delete it once the command runs)
     * @param stdin a file every host's command reads on its stdin, or {@code null}
     */
    public Together startTogether(List<String> hosts, List<String> words, LineSink out, LineSink err, Path stdin,
            Path tmp) throws IOException {
        if (!startsTogether()) {
            return null;
        }
        String joined = String.join(",", hosts);
        Path hostFile = null;
        String nodeList = joined;
        // one argument may not exceed 128 KiB on Linux: a longer list goes through a file, as mpirun's hosts do
        if (joined.length() > org.troika.launcher.mpi.MpirunCommandBuilder.HOST_ARG_LIMIT) {
            hostFile = java.nio.file.Files.createTempFile(tmp, "troika-hosts-", ".txt");
            java.nio.file.Files.write(hostFile, hosts);
            nodeList = hostFile.toString();
        }
        ProcessSupervisor.Options o = ProcessSupervisor.Options.of(out, err);
        List<String> argv = RemoteShellCommandBuilder.buildTogether(settings, allocationShell, hosts.size(), nodeList,
                words);
        try {
            return new Together(ProcessSupervisor.start(new LaunchPlan(argv, env), stdin == null ? o : o.withStdin(stdin)),
                    argv, hostFile);
        } catch (IOException | RuntimeException e) {
            if (hostFile != null) {
                java.nio.file.Files.deleteIfExists(hostFile);
            }
            throw e;
        }
    }

    /** One host's run of {@link #runOnAll}: its result and when it started and ended (epoch milliseconds). */
    public record Ran(ProbeResult result, long startedMillis, long endedMillis) {}

    /** The last non-blank line of a command's output, stripped ({@code "no output"} when there is none). */
    public static String lastLine(String output) {
        List<String> lines = output.lines().filter(l -> !l.isBlank()).toList();
        return lines.isEmpty() ? "no output" : lines.get(lines.size() - 1).strip();
    }

    /**
     * Runs {@code words} on every one of {@code hosts} (at most {@link #MAX_PARALLEL} at once), each bounded by
     * {@code timeout} ({@link ProbeResult#TIMED_OUT} then), stdout and stderr captured together.
     *
     * @return each host's run, in the order of {@code hosts}
     * @throws UsageException before anything runs, when the shell cannot be planned (a bad template)
     */
    public Map<String, Ran> runOnAll(List<String> hosts, List<String> words, Duration timeout) {
        Map<String, List<String>> argvs = new LinkedHashMap<>();
        hosts.forEach(h -> argvs.put(h, argv(h, words)));
        Map<String, Ran> out = new LinkedHashMap<>();
        if (hosts.isEmpty()) {
            return out;
        }
        SystemCommandRunner runner = new SystemCommandRunner(env);
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(MAX_PARALLEL, hosts.size()), r -> {
            Thread t = new Thread(r, "troika-remote-shell");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Ran>> runs = new ArrayList<>();
            for (List<String> argv : argvs.values()) {
                runs.add(pool.submit(() -> {
                    long t0 = System.currentTimeMillis();
                    ProbeResult r = runner.run(argv, timeout);
                    return new Ran(r, t0, System.currentTimeMillis());
                }));
            }
            for (int i = 0; i < hosts.size(); i++) {
                try {
                    out.put(hosts.get(i), runs.get(i).get());
                } catch (ExecutionException e) {
                    long now = System.currentTimeMillis();
                    out.put(hosts.get(i), new Ran(new ProbeResult(ProbeResult.NOT_FOUND, String.valueOf(e.getCause())),
                            now, now));
                }
            }
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return out;
        } finally {
            pool.shutdownNow();
        }
    }
}
