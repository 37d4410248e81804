package org.troika.wire;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The relay protocol ({@link Protocol#RELAY}): small immutable records, encoded as data by {@link RelayCodec} (never
 * Java serialization). Each record names its direction. Parties: the <b>driver</b> service (inside {@code troika run}),
 * one <b>task</b> service per host, and the launch <b>agent</b> ({@code troika-rsh HOST words...}).
 */
public sealed interface RelayMessage {

    /** task → driver, first frame of the task's long-lived control connection. */
    record Register(String host, String hostname, List<Endpoint> endpoints, List<NicAddress> nics) implements RelayMessage {
        public Register {
            endpoints = List.copyOf(endpoints);
            nics = List.copyOf(nics);
        }
    }

    /**
     * driver → task, the first frame on the control connection: the {@link Register} took effect. A task service that
     * reads the end of the connection (or nothing) instead has not registered: the driver dropped the connection
     * before it read the Register (a hello later than the driver's hello deadline while thousands of hosts register
     * at once), and the service connects and registers again. A {@link Failure} instead is a refusal (host not
     * expected, or registered already).
     */
    record Registered() implements RelayMessage {}

    /** task → driver, every heartbeat interval on the control connection; driver → agent relays nothing. */
    record Heartbeat(long sentMillis) implements RelayMessage {}

    /** driver → task on the control connection: probe these peers and report which addresses answered. */
    record ProbeRequest(Map<String, List<Endpoint>> peers, int timeoutMillis) implements RelayMessage {
        public ProbeRequest {
            Map<String, List<Endpoint>> copy = new java.util.LinkedHashMap<>();
            peers.forEach((k, v) -> copy.put(k, List.copyOf(v)));
            peers = java.util.Collections.unmodifiableMap(copy);
        }
    }

    /** task → driver: the peer addresses whose service answered with the expected host name. */
    record ProbeReport(String host, Map<String, List<String>> reachable) implements RelayMessage {
        public ProbeReport {
            Map<String, List<String>> copy = new java.util.LinkedHashMap<>();
            reachable.forEach((k, v) -> copy.put(k, List.copyOf(v)));
            reachable = java.util.Collections.unmodifiableMap(copy);
        }
    }

    /**
     * driver → task: run commands in a private UTS namespace with this hostname (sent when several hosts share one
     * kernel hostname, so Open MPI's per-node session directories would collide).
     */
    record Configure(String hostname) implements RelayMessage {}

    /**
     * driver → task: the interface names of this host in the networks chosen for the job; commands get them as
     * {@code NCCL_SOCKET_IFNAME} (unless already set), so each host uses its own names for the same subnet.
     */
    record Networks(String ncclSocketIfname) implements RelayMessage {}

    /**
     * driver → task on the control connection: key material a command on the host must read (e.g. the elastic worker
     * key). The service writes {@code content} to a new file, mode 0600, in its private directory (removed when it
     * stops) and gives its commands {@code envName} = that file's path; it answers {@link FileStored}. Only names of
     * the form {@code TROIKA_..._FILE} are accepted. Nothing a host needs comes from a file on the launcher's machine.
     */
    record PrivateFile(String envName, byte[] content) implements RelayMessage {
        public PrivateFile {
            content = content.clone();
        }

        @Override
        public byte[] content() {
            return content.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof PrivateFile x && x.envName.equals(envName) && Arrays.equals(x.content, content);
        }

        @Override
        public int hashCode() {
            return 31 * envName.hashCode() + Arrays.hashCode(content);
        }

        @Override
        public String toString() {
            return "PrivateFile[" + envName + ", " + content.length + " bytes]";
        }
    }

    /**
     * task → driver: the answer to {@link PrivateFile} (and to {@link AgentKeyOpen}, as {@code TROIKA_SECRET_FILE});
     * {@code problem} is empty when the file was written (the key is in effect).
     */
    record FileStored(String envName, String problem) implements RelayMessage {}

    /**
     * driver → task: this host holds the committed-state store of elastic job {@code jobId} ({@code
     * /dev/shm/troika-<jobId>}), kept between generations. If the service stops without a {@link Shutdown} (launcher
     * killed, host cut off), the job will not come back for this host's copy, so the service removes it.
     */
    record NodeStore(String jobId) implements RelayMessage {}

    /**
     * driver → task: stop every command and exit ({@link #JOB_FINISHED} at the job's end, which also ends the job's
     * node store on the host; another reason, e.g. the host left the job, keeps it for the end-of-job cleanup).
     */
    record Shutdown(String reason) implements RelayMessage {
        /** The reason of the Shutdown the driver sends every service when the whole job is over. */
        public static final String JOB_FINISHED = "job finished";
    }

    /**
     * driver → task: every daemon of this launch has been looked up with the launch agent key, so no agent will read
     * it again: delete the agent key file now, before any rank starts (see docs/launch-agent.md, Security).
     */
    record AgentKeySpent() implements RelayMessage {}

    /**
     * driver → task: a new launch of a warm relay session (an elastic job's next generation) begins: from now on accept
     * the launch agent key derived from the job secret with {@code label} (not a secret) for one {@link Exec} (this
     * host's daemon), instead of the previous launch's key; tree-spawned agents get the new key's file at the next
     * command. Answered by {@link FileStored} with {@code envName} {@code TROIKA_SECRET_FILE} once in effect.
     */
    record AgentKeyOpen(String label) implements RelayMessage {}

    /**
     * task → driver, on the control connection: the process of rank {@code rank} of elastic generation {@code
     * generation} that a daemon of this service started (a fault-tolerant generation's rank, watched by the service)
     * has ended. Sent whatever the MPI's own runtime says: the launcher acts on it when the survivors do not report
     * the rank's death themselves in time.
     */
    record RankEnded(int generation, int rank) implements RelayMessage {}

    /** agent → driver: where is the task service of this host word? */
    record Lookup(String host) implements RelayMessage {}

    /** driver → agent: the task endpoints of {@code host}; empty when the host never registered. */
    record LookupReply(String host, List<Endpoint> endpoints) implements RelayMessage {
        public LookupReply {
            endpoints = List.copyOf(endpoints);
        }
    }

    /**
     * agent → task: run {@code commandLine} with {@code /bin/sh -c} (the words Open MPI meant for a remote shell), at most
     * once per {@code requestId}. The command line is bytes (the agent's argv as given): on the wire its exact bytes,
     * in each JVM its {@link org.troika.common.exec.NativeText} form, so no byte is lost whatever the locales.
     */
    record Exec(long requestId, String commandLine) implements RelayMessage {}

    /**
     * agent → task: start an MPI daemon: like {@link Exec} (output and an early exit code are relayed), but once the
     * command has run {@code startMillis} without ending the service answers {@link Started} and keeps the daemon
     * itself: it still supervises it (ended when the service stops), writes its later output to the service's own
     * stderr and says there how it ended. The agent then exits 0, which frees Open MPI's launch slot as ssh does for
     * {@code orted --daemonize}. Opened by the launch agent key once, like Exec.
     */
    record Launch(long requestId, String commandLine, int startMillis) implements RelayMessage {}

    /** task → agent: the daemon of a {@link Launch} still runs after its start window and is now the service's. */
    record Started() implements RelayMessage {}

    /** agent → task: stop the command of {@code requestId} (process tree: TERM, grace, KILL). */
    record Abort(long requestId) implements RelayMessage {}

    /**
     * task → agent: a chunk of the command's output; stream 1 = stdout, 2 = stderr. Also task → driver on the control
     * connection: a line of what a detached service itself prints (its remote shell has gone).
     */
    record Output(int stream, byte[] data) implements RelayMessage {
        public Output {
            data = data.clone();
        }

        @Override
        public byte[] data() {
            return data.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Output x && x.stream == stream && Arrays.equals(x.data, data);
        }

        @Override
        public int hashCode() {
            return 31 * stream + Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "Output[stream=" + stream + ", " + data.length + " bytes]";
        }
    }

    /** task → agent: the command ended with this exit code (128 + N for signal N). */
    record Exited(int exitCode) implements RelayMessage {}

    /** any → any: liveness/identity probe; answered with {@link Pong}. */
    record Ping(String from) implements RelayMessage {}

    /** reply to {@link Ping}: who answered. */
    record Pong(String host) implements RelayMessage {}

    /** any reply: the request was refused or failed; one line. */
    record Failure(String message) implements RelayMessage {}
}
