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
    record Started(ProcessSupervisor shell, Path secretFile, Path hostFile, boolean detaches) {
        /** Started by someone else: nothing to watch or clean up here. */
        public static final Started ELSEWHERE = new Started(null, null);

        /** One host's start in the foreground of its shell: no host-list file. */
        public Started(ProcessSupervisor shell, Path secretFile) {
            this(shell, secretFile, null, false);
        }
    }

    /**
     * A line a detached service printed (it reached the driver: its remote shell has gone), written where that host's
     * shell output went.
     */
    default void detachedOutput(String host, byte[] line) {
    }

    /**
     * Starts {@code host}'s service, told to register at {@code driver}.
     *
     * @param agentLabel the launch agent key label its tree-spawned agents get, or {@code null}
     * @param secret the job secret (handed over on stdin, never in argv)
     */
    Started start(String host, Endpoint driver, String agentLabel, Secret secret) throws IOException;

    /**
     * Starts the services of all of {@code hosts} (two or more) with one process here, all registering at {@code
     * driver} with {@code agentLabel}, when this start can ({@code srun}: one step); {@code null} when it starts one
     * host at a time: the pool then calls {@link #start} for each. The result is shared: its process runs every one of
     * the services, and the files go once all of them registered.
     */
    default Started startTogether(List<String> hosts, Endpoint driver, String agentLabel, Secret secret)
            throws IOException {
        return null;
    }

    /** This start, one host at a time even where its shell could start many together. */
    default ServiceStart oneByOne() {
        ServiceStart self = this;
        return new ServiceStart() {
            @Override
            public Started start(String host, Endpoint driver, String agentLabel, Secret secret) throws IOException {
                return self.start(host, driver, agentLabel, secret);
            }

            @Override
            public void detachedOutput(String host, byte[] line) {
                self.detachedOutput(host, line);
            }
        };
    }

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
        return new ServiceStart() {
            @Override
            public Started start(String host, Endpoint driver, String label, Secret secret) throws IOException {
                boolean detaches = shell.detaches();
                List<String> words = RemoteShellCommandBuilder.serviceWords(troikaRsh, host, driver, label, detaches);
                if (verbose != null) {
                    verbose.println("troika: starting the task service of " + host + ": "
                            + String.join(" ", shell.argv(host, words)));
                }
                Path stdin = secret.writeToPrivateFile(tmp);
                try {
                    LineSink out = output.apply(host);
                    return new Started(shell.start(host, words, out, out, stdin), stdin, null, detaches);
                } catch (IOException | RuntimeException e) {
                    Secret.deleteFile(stdin);
                    throw e;
                }
            }

            @Override
            public void detachedOutput(String host, byte[] line) {
                output.apply(host).accept(new String(line, java.nio.charset.StandardCharsets.UTF_8));
            }

            /** One srun step: the launch node keeps one process for all of these hosts, not one each. */
            @Override
            public Started startTogether(List<String> hosts, Endpoint driver, String label, Secret secret)
                    throws IOException {
                if (!shell.startsTogether()) {
                    return null;
                }
                List<String> words = RemoteShellCommandBuilder.stepServiceWords(troikaRsh, driver, label);
                String name = togetherName(hosts);
                Path stdin = secret.writeToPrivateFile(tmp);
                try {
                    LineSink out = output.apply(name);
                    RemoteShell.Together t = shell.startTogether(hosts, words, out, out, stdin, tmp);
                    if (verbose != null) {
                        verbose.println("troika: starting the task services of " + name + ": "
                                + String.join(" ", t.argv()));
                    }
                    return new Started(t.process(), stdin, t.hostFile(), false);
                } catch (IOException | RuntimeException e) {
                    Secret.deleteFile(stdin);
                    throw e;
                }
            }
        };
    }

    /** How the output of services started together is tagged: {@code FIRST..LAST (N hosts)}. */
    static String togetherName(List<String> hosts) {
        return hosts.get(0) + ".." + hosts.get(hosts.size() - 1) + " (" + hosts.size() + " hosts)";
    }

    /** Each host's service output on {@code err}, every segment tagged {@code [task-service HOST]}. */
    static Function<String, LineSink> tagged(PrintStream err) {
        return host -> seg -> err.print("[task-service " + host + "] " + seg);
    }
}
