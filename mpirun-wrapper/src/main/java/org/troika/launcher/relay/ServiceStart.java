package org.troika.launcher.relay;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import org.troika.common.exec.LineSink;
import org.troika.common.exec.ProcessSupervisor;
import org.troika.wire.Endpoint;
import org.troika.wire.Secret;

/**
 * How the {@link TaskServicePool} gets a host's task service started: through the job's {@link RemoteShell}
 * ({@link #throughShell}), or by someone else ({@link #elsewhere}: Spark's barrier tasks start theirs, told the driver's
 * address by the job service).
 */
@FunctionalInterface
public interface ServiceStart {
    /**
     * A started service: the remote shell that runs it and the file its stdin reads the job secret from (deleted once
     * it registered), both {@code null} when it was started elsewhere.
     */
    record Started(ProcessSupervisor shell, Path secretFile) {
        /** Started by someone else: nothing to watch or clean up here. */
        public static final Started ELSEWHERE = new Started(null, null);
    }

    /**
     * Starts {@code host}'s service, told to register at {@code driver}.
     *
     * @param agentLabel the launch agent key label its tree-spawned agents get, or {@code null}
     * @param secret the job secret (handed over on stdin, never in argv)
     */
    Started start(String host, Endpoint driver, String agentLabel, Secret secret) throws IOException;

    /** Services started by others ({@link Started#ELSEWHERE}); the pool only expects them. */
    static ServiceStart elsewhere() {
        return (host, driver, label, secret) -> Started.ELSEWHERE;
    }

    /**
     * {@code troikaRsh task-service ...} on the host through {@code shell}.
     *
     * @param tmp where the job secret's 0600 stdin file is written
     * @param output where each host's service output goes (both streams)
     * @param verbose where each start's command is printed first, or {@code null}
     */
    static ServiceStart throughShell(RemoteShell shell, Path troikaRsh, Path tmp, Function<String, LineSink> output,
            PrintStream verbose) {
        return (host, driver, label, secret) -> {
            List<String> words = RemoteShellCommandBuilder.serviceWords(troikaRsh, host, driver, label);
            if (verbose != null) {
                verbose.println("troika: starting the task service of " + host + ": "
                        + String.join(" ", shell.argv(host, words)));
            }
            Path stdin = secret.writeToPrivateFile(tmp);
            try {
                LineSink out = output.apply(host);
                return new Started(shell.start(host, words, out, out, stdin), stdin);
            } catch (IOException | RuntimeException e) {
                Secret.deleteFile(stdin);
                throw e;
            }
        };
    }

    /** Each host's service output on {@code err}, every segment tagged {@code [task-service HOST]}. */
    static Function<String, LineSink> tagged(PrintStream err) {
        return host -> seg -> err.print("[task-service " + host + "] " + seg);
    }
}
