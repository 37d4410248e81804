package org.troika.rsh.agent;

import java.io.EOFException;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import org.troika.common.TroikaEnv;
import org.troika.common.UsageException;
import org.troika.common.exec.NativeText;
import org.troika.rsh.task.CleanupMain;
import org.troika.rsh.task.TaskServiceMain;
import org.troika.wire.Endpoint;
import org.troika.wire.Nonces;
import org.troika.wire.Protocol;
import org.troika.wire.RelayMessage;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;

/**
 * Lean entry point of {@code bin/troika-rsh} (kept small for start-up time: only troika-rsh, troika-wire and troika-common on the
 * class path).
 *
 * <ul>
 *   <li>{@code troika-rsh HOST WORD...}: the launch agent (Open MPI's {@code plm_rsh_agent} / {@code plm_ssh_agent}).
 *       Looks the host's task service up at the driver ({@link TroikaEnv#DRIVER_ADDR}), has it run the words, relays
 *       its output, and exits with the command's exit code. It lives as long as the remote command (ssh style), so a
 *       lost host ends it: 255 when the task service disconnects or is silent for the liveness timeout (partition).
 *       An Open MPI daemon ({@link AgentRequest#daemon()}) is the exception: once it has run {@link #DAEMON_START_MS}
 *       the task service keeps it and the agent exits 0, so no agent stays alive for a daemon's whole life.</li>
 *   <li>{@code troika-rsh task-service ...}: see {@link TaskServiceMain}.</li>
 *   <li>{@code troika-rsh cleanup --job ID}: see {@link CleanupMain}.</li>
 * </ul>
 * Exit codes: the remote command's; 255 for connection failures (like ssh); 2 for bad input.
 */
public final class RshMain {
    /** Like ssh: the connection failed. */
    public static final int CONNECTION_FAILED = 255;
    static final int DEFAULT_LIVENESS_MS = (int) org.troika.rsh.Liveness.AGENT_TIMEOUT.toMillis();
    /**
     * How long an Open MPI daemon must run before its agent exits 0 ({@link AgentRequest#daemon()}): a daemon that
     * fails at once (not found, a library or an option missing, a bad MCA value) does so well within it, and its
     * output and exit code reach Open MPI as with ssh. Longer costs only agent lifetime: Open MPI does not wait for an
     * agent's exit to go on with the launch.
     */
    static final int DAEMON_START_MS = 1000;

    private RshMain() {}

    public static void main(String[] args) {
        // the bytes given: Open MPI's words reach the remote shell exactly, whatever the locale
        System.exit(run(NativeText.arguments(args), NativeText.environment(), System.out, System.err));
    }

    /** Runs the agent (or {@code task-service ...}) in-process; returns the exit code. */
    public static int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
        try {
            if (!args.isEmpty() && args.get(0).equals("task-service")) {
                return TaskServiceMain.run(args.subList(1, args.size()), env);
            }
            if (!args.isEmpty() && args.get(0).equals("cleanup")) {
                return CleanupMain.run(args.subList(1, args.size()), err);
            }
            return relay(AgentRequest.parse(args), env, out, err);
        } catch (UsageException e) {
            err.println("troika-rsh: error: " + e.getMessage());
            return UsageException.EXIT_CODE;
        }
    }

    /** Relays one request; output of the remote command goes to {@code out}/{@code err}. */
    public static int relay(AgentRequest req, Map<String, String> env, PrintStream out, PrintStream err) {
        Secret secret = Secret.fromEnv(env);
        String driverText = env.get(TroikaEnv.DRIVER_ADDR);
        if (driverText == null || driverText.isBlank()) {
            throw new UsageException(TroikaEnv.DRIVER_ADDR + " is not set; troika-rsh runs under troika run, which sets it");
        }
        List<Endpoint> driver = Endpoint.parseList(driverText, TroikaEnv.DRIVER_ADDR);
        int liveness = parseMillis(env.get(TroikaEnv.LIVENESS_TIMEOUT_MS));
        List<Endpoint> task;
        // patient: a driver whose port is open but which does not answer is troika stopped (Ctrl-Z) or busy; the
        // agent waits for it as ssh waits for a server's banner, while its machine answers keepalive probes
        try (WireChannel<RelayMessage> d = WireChannel.connectAnyPatient(driver, Protocol.RELAY, secret, liveness)) {
            d.send(new RelayMessage.Lookup(req.host()));
            RelayMessage reply = d.receive();
            if (!(reply instanceof RelayMessage.LookupReply r) || r.endpoints().isEmpty()) {
                err.println("troika-rsh: host " + req.host() + " has no task service registered with the driver");
                return CONNECTION_FAILED;
            }
            task = r.endpoints();
        } catch (IOException e) {
            err.println("troika-rsh: cannot reach the troika driver at " + driverText + ": " + e.getMessage());
            return CONNECTION_FAILED;
        }
        long requestId = java.nio.ByteBuffer.wrap(Nonces.random(8)).getLong();
        try (WireChannel<RelayMessage> t = WireChannel.connectAny(task, Protocol.RELAY, secret, liveness)) {
            t.send(req.daemon() ? new RelayMessage.Launch(requestId, req.commandLine(), DAEMON_START_MS)
                    : new RelayMessage.Exec(requestId, req.commandLine()));
            while (true) {
                RelayMessage m = t.receive();
                if (m instanceof RelayMessage.Output o) {
                    PrintStream to = o.stream() == 2 ? err : out;
                    to.write(o.data());
                    to.flush();
                } else if (m instanceof RelayMessage.Exited x) {
                    return x.exitCode();
                } else if (m instanceof RelayMessage.Started) {
                    return 0; // the daemon runs and is the task service's now: Open MPI's launch slot is free again
                } else if (m instanceof RelayMessage.Failure f) {
                    err.println("troika-rsh: " + req.host() + ": " + f.message());
                    return CONNECTION_FAILED;
                }
                // Heartbeat: the host is alive
            }
        } catch (EOFException e) {
            err.println("troika-rsh: connection to the task service of " + req.host() + " closed");
            return CONNECTION_FAILED;
        } catch (IOException e) {
            err.println("troika-rsh: lost the task service of " + req.host() + ": "
                    + (WireChannel.isTimeout(e) ? "no heartbeat for " + liveness + " ms" : e.getMessage()));
            return CONNECTION_FAILED;
        }
    }

    private static int parseMillis(String v) {
        if (v == null || v.isBlank()) {
            return DEFAULT_LIVENESS_MS;
        }
        try {
            int ms = Integer.parseInt(v.trim());
            if (ms > 0) {
                return ms;
            }
        } catch (NumberFormatException ignored) {
            // fall through
        }
        throw new UsageException(TroikaEnv.LIVENESS_TIMEOUT_MS + "='" + v + "' is not a positive number of milliseconds");
    }
}
