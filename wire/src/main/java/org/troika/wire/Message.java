package org.troika.wire;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Every message of the troika wire protocol: small immutable records, encoded as data by {@link MessageCodec} (never
 * Java serialization). Each record names its direction. Parties: the <b>driver</b> service (inside {@code troika run}),
 * one <b>task</b> service per host, and the launch <b>agent</b> ({@code troika-rsh HOST words...}).
 */
public sealed interface Message {

    /** task → driver, first frame of the task's long-lived control connection. */
    record Register(String host, String hostname, List<Endpoint> endpoints, List<NicAddress> nics) implements Message {
        public Register {
            endpoints = List.copyOf(endpoints);
            nics = List.copyOf(nics);
        }
    }

    /** task → driver, every heartbeat interval on the control connection; driver → agent relays nothing. */
    record Heartbeat(long sentMillis) implements Message {}

    /** driver → task on the control connection: probe these peers and report which addresses answered. */
    record ProbeRequest(Map<String, List<Endpoint>> peers, int timeoutMillis) implements Message {
        public ProbeRequest {
            Map<String, List<Endpoint>> copy = new java.util.LinkedHashMap<>();
            peers.forEach((k, v) -> copy.put(k, List.copyOf(v)));
            peers = java.util.Collections.unmodifiableMap(copy);
        }
    }

    /** task → driver: the peer addresses whose service answered with the expected host name. */
    record ProbeReport(String host, Map<String, List<String>> reachable) implements Message {
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
    record Configure(String hostname) implements Message {}

    /**
     * driver → task: the interface names of this host in the networks chosen for the job; commands get them as
     * {@code NCCL_SOCKET_IFNAME} (unless already set), so each host uses its own names for the same subnet.
     */
    record Networks(String ncclSocketIfname) implements Message {}

    /** driver → task: the job is over; stop every command and exit. */
    record Shutdown(String reason) implements Message {}

    /** agent → driver: where is the task service of this host word? */
    record Lookup(String host) implements Message {}

    /** driver → agent: the task endpoints of {@code host}; empty when the host never registered. */
    record LookupReply(String host, List<Endpoint> endpoints) implements Message {
        public LookupReply {
            endpoints = List.copyOf(endpoints);
        }
    }

    /**
     * agent → task: run {@code commandLine} with {@code /bin/sh -c} (the words Open MPI meant for a remote shell), at most
     * once per {@code requestId}.
     */
    record Exec(long requestId, String commandLine) implements Message {}

    /** agent → task: stop the command of {@code requestId} (process tree: TERM, grace, KILL). */
    record Abort(long requestId) implements Message {}

    /** task → agent: a chunk of the command's output; stream 1 = stdout, 2 = stderr. */
    record Output(int stream, byte[] data) implements Message {
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
    record Exited(int exitCode) implements Message {}

    /** any → any: liveness/identity probe; answered with {@link Pong}. */
    record Ping(String from) implements Message {}

    /** reply to {@link Ping}: who answered. */
    record Pong(String host) implements Message {}

    /** any reply: the request was refused or failed; one line. */
    record Failure(String message) implements Message {}

    /** Spark task → Spark job service, first frame of the task's connection: task {@code index} runs on {@code hostHash}. */
    record SparkTask(int index, String hostHash, String executor) implements Message {}

    /**
     * Spark job service → task, once every task registered: start the task service of host word {@code serviceHost}
     * registering with {@code driver} (empty host: this task runs no service, it only waits for the job's end).
     */
    record SparkAssign(String serviceHost, List<Endpoint> driver) implements Message {
        public SparkAssign {
            driver = List.copyOf(driver);
        }
    }

    /** rank → Spark job service: send me the function to run. */
    record FetchFunction(int rank) implements Message {}

    /**
     * Spark job service → rank: the Java-serialized function and the {@code ObjectInputFilter} pattern the rank must
     * deserialize it (and the driver its result) with. Only ever sent on an authenticated channel.
     */
    record FunctionBytes(String classFilter, byte[] data) implements Message {
        public FunctionBytes {
            data = data.clone();
        }

        @Override
        public byte[] data() {
            return data.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof FunctionBytes x && x.classFilter.equals(classFilter) && Arrays.equals(x.data, data);
        }

        @Override
        public int hashCode() {
            return 31 * classFilter.hashCode() + Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "FunctionBytes[" + data.length + " bytes]";
        }
    }

    /**
     * rank → Spark job service: the rank's Java-serialized result ({@code ok}) or a one-line error as UTF-8 (not ok);
     * answered with {@link Pong} when stored, {@link Failure} when refused.
     */
    record RankResult(int rank, boolean ok, byte[] data) implements Message {
        public RankResult {
            data = data.clone();
        }

        @Override
        public byte[] data() {
            return data.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof RankResult x && x.rank == rank && x.ok == ok && Arrays.equals(x.data, data);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * rank + Boolean.hashCode(ok)) + Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "RankResult[rank=" + rank + ", ok=" + ok + ", " + data.length + " bytes]";
        }
    }

    /**
     * driver's worker notification service → rank 0 of an elastic generation: the hosts changed ({@code bits}: removed
     * = 1, added = 2), so the ranks leave together at their next commit. Data only.
     */
    record HostsChanged(long timestampMillis, int bits) implements Message {}
}
