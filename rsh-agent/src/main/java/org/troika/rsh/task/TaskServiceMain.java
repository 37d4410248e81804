package org.troika.rsh.task;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.troika.rsh.Liveness;
import org.troika.common.TroikaEnv;
import org.troika.common.UsageException;
import org.troika.rsh.agent.AgentKey;
import org.troika.wire.Endpoint;
import org.troika.wire.Secret;

/**
 * {@code troika-rsh task-service (--host HOST | --host-from-env NAME) [--driver ADDR:PORT[,...]] [--secret-stdin]
 * [--detach] [--agent-label HEX] [--heartbeat-ms N] [--liveness-ms N]}: runs the task service of one host until the
 * driver goes away. {@code --host-from-env} takes the host word from the service's environment (one {@code srun} step
 * starts the services of many hosts with one command line; each reads {@code SLURMD_NODENAME}). With
 * {@code --detach} it leaves its remote shell once registered ({@link #detach}). With
 * {@code --agent-label}, tree-spawned agents get the launch agent key derived with that label ({@link AgentKey}),
 * never the job secret. The driver address defaults to
 * {@link TroikaEnv#DRIVER_ADDR}; the secret comes from the environment, or with {@code --secret-stdin} from the first
 * line of stdin (how {@code troika run} passes it through ssh/srun/blaunch without a command line). Prints nothing on
 * success; exit 0 when told to stop, 1 when the driver was lost, 2 for bad input. {@code --liveness-ms} is how long the
 * service waits for a silent driver before it asks whether the driver's machine still acknowledges (default {@link
 * Liveness#DRIVER_TIMEOUT}: the driver sends its heartbeats every {@link Liveness#DRIVER_HEARTBEAT}).
 */
public final class TaskServiceMain {
    private TaskServiceMain() {}

    public static int run(List<String> args, Map<String, String> env) {
        String host = null;
        String hostVariable = null;
        String driver = env.get(TroikaEnv.DRIVER_ADDR);
        boolean secretStdin = false;
        boolean detach = false;
        String agentLabel = null;
        long heartbeat = Liveness.HEARTBEAT.toMillis();
        long liveness = Liveness.DRIVER_TIMEOUT.toMillis();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            switch (a) {
                case "--host" -> host = value(args, ++i, a);
                case "--host-from-env" -> hostVariable = value(args, ++i, a);
                case "--driver" -> driver = value(args, ++i, a);
                case "--secret-stdin" -> secretStdin = true;
                case "--detach" -> detach = true;
                case "--agent-label" -> agentLabel = AgentKey.checkLabel(value(args, ++i, a));
                case "--heartbeat-ms" -> heartbeat = millis(value(args, ++i, a), a);
                case "--liveness-ms" -> liveness = millis(value(args, ++i, a), a);
                default -> throw new UsageException("task-service: unknown option '" + a
                        + "'; expected --host, --host-from-env, --driver, --secret-stdin, --detach, --agent-label,"
                        + " --heartbeat-ms, --liveness-ms");
            }
        }
        if (hostVariable != null) {
            if (host != null) {
                throw new UsageException("task-service: give --host or --host-from-env, not both");
            }
            host = env.get(hostVariable);
            if (host == null || host.isBlank()) {
                throw new UsageException("task-service --host-from-env " + hostVariable + ": the variable is not set"
                        + " here (it names this host inside an srun step; run the service there, or give --host)");
            }
        }
        if (host == null || host.isBlank()) {
            throw new UsageException("task-service needs --host HOST (the host word mpirun uses for this machine)");
        }
        if (driver == null) {
            throw new UsageException("task-service needs --driver ADDR:PORT or " + TroikaEnv.DRIVER_ADDR);
        }
        Secret secret = secretStdin ? readSecretLine() : Secret.fromEnv(env);
        TaskService.Config config = new TaskService.Config(host, Endpoint.parseList(driver, "--driver"), secret,
                Duration.ofMillis(heartbeat), Duration.ofMillis(liveness), env, stateParent(env),
                agentLabel == null ? null : AgentKey.derive(secret, agentLabel),
                // bin/troika-rsh names the installation; a service run from bare jars (Spark's) has none
                org.troika.common.exec.PrtedGuard.installed(installation(), env));
        try (TaskService service = new TaskService(config).start()) {
            // SIGTERM/SIGINT/SIGHUP: stop the commands and remove the secret file before the JVM exits
            // the hook waits for the stop to finish even when another thread began it (the driver's connection dropped
            // at the same moment): the JVM halts when the hooks return, daemon threads and all
            Thread hook = new Thread(() -> {
                service.stop("signal");
                try {
                    service.awaitStop();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "troika-task-service-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            if (detach) {
                detach(service);
            }
            String reason = service.awaitStop();
            return reason != null && reason.startsWith("driver: ") ? 0 : 1;
        } catch (IOException e) {
            System.err.println("troika task-service " + host + ": cannot register with the driver at " + driver + ": "
                    + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    /** What a detaching service writes on its stdout once registered: its remote shell may end now. */
    public static final String DETACHED = "troika-task-service-detached";

    /**
     * Leaves the remote shell that started this service (registered by now): says {@link #DETACHED} on stdout, from now
     * on sends what it prints to the driver ({@link TaskService#toDriver}), and closes its stdin, stdout and stderr
     * (the JDK puts {@code /dev/null} in their place), so the remote shell's connection ends: no process for this host
     * stays on the launch node. {@code bin/troika-rsh} started this JVM in the background for it and exits with the
     * line. The service still ends with the driver: its Shutdown, its connection's end, or its silence while
     * unreachable.
     */
    private static void detach(TaskService service) {
        java.io.PrintStream out = System.out;
        java.io.PrintStream err = System.err;
        java.io.InputStream in = System.in;
        out.print(DETACHED + "\n");
        out.flush();
        System.setOut(new java.io.PrintStream(service.toDriver(1), true));
        System.setErr(new java.io.PrintStream(service.toDriver(2), true));
        try {
            in.close();
        } catch (IOException ignored) {
            // already gone
        }
        out.close();
        err.close();
    }

    /** The troika installation this service runs from ({@code -Dtroika.home}, given by bin/troika-rsh), or {@code null}. */
    static Path installation() {
        String home = System.getProperty("troika.home");
        return home == null || home.isBlank() ? null : Path.of(home);
    }

    /** Where the service keeps its private files: {@code $TMPDIR} when set (as for the rest of the job), else /tmp. */
    static Path stateParent(Map<String, String> env) {
        String t = env.get("TMPDIR");
        return t != null && !t.isBlank() && java.nio.file.Files.isDirectory(Path.of(t))
                ? Path.of(t) : Path.of(System.getProperty("java.io.tmpdir"));
    }

    private static Secret readSecretLine() {
        try {
            String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII)).readLine();
            if (line == null) {
                throw new UsageException("--secret-stdin: stdin ended before the secret line");
            }
            return Secret.decode(line);
        } catch (IOException e) {
            throw new UsageException("--secret-stdin: cannot read stdin: " + e.getMessage());
        }
    }

    private static String value(List<String> args, int i, String flag) {
        if (i >= args.size()) {
            throw new UsageException(flag + " needs a value");
        }
        return args.get(i);
    }

    private static long millis(String v, String flag) {
        try {
            long ms = Long.parseLong(v);
            if (ms > 0) {
                return ms;
            }
        } catch (NumberFormatException ignored) {
            // fall through
        }
        throw new UsageException(flag + " '" + v + "' is not a positive number of milliseconds");
    }
}
