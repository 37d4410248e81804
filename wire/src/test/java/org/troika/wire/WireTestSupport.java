package org.troika.wire;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** Builds raw frames and reading channels in memory, with fixed nonces, so tests can tamper with bytes. */
final class WireTestSupport {
    static final Secret SECRET = Secret.of("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
    static final Secret OTHER = Secret.of("fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII));
    static final byte[] SERVER_NONCE = nonce(1);
    static final byte[] CLIENT_NONCE = nonce(2);
    static final List<Protocol<?>> PROTOCOLS = List.of(Protocol.RELAY, Protocol.ELASTIC, Protocol.SPARK,
            Protocol.PROGRESS);

    private WireTestSupport() {}

    static byte[] nonce(int fill) {
        byte[] b = new byte[WireChannel.NONCE_LEN];
        java.util.Arrays.fill(b, (byte) fill);
        return b;
    }

    /** The bytes a relay client writes for {@code messages} on a connection with the default nonces. */
    static byte[] clientFrames(Secret secret, RelayMessage... messages) throws IOException {
        return framesWith(Protocol.RELAY, secret, SERVER_NONCE, CLIENT_NONCE, List.of(messages));
    }

    /** The bytes a client of {@code protocol} writes for {@code messages} on a connection with the default nonces. */
    static <M> byte[] clientFrames(Protocol<M> protocol, Secret secret, List<M> messages) throws IOException {
        return framesWith(protocol, secret, SERVER_NONCE, CLIENT_NONCE, messages);
    }

    static <M> byte[] framesWith(Protocol<M> protocol, Secret secret, byte[] serverNonce, byte[] clientNonce,
            List<M> messages) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        WireChannel<M> c = WireChannel.ofStreams(new ByteArrayInputStream(new byte[0]), out, protocol, secret, false,
                serverNonce, clientNonce, WireChannel.DEFAULT_MAX_BODY);
        for (M m : messages) {
            c.send(m);
        }
        return out.toByteArray();
    }

    /** A relay server-side channel reading {@code bytes}. */
    static WireChannel<RelayMessage> serverReading(byte[] bytes, int maxBody) {
        return serverReading(Protocol.RELAY, bytes, maxBody);
    }

    static <M> WireChannel<M> serverReading(Protocol<M> protocol, byte[] bytes, int maxBody) {
        return WireChannel.ofStreams(new ByteArrayInputStream(bytes), new ByteArrayOutputStream(), protocol, SECRET, true,
                SERVER_NONCE, CLIENT_NONCE, maxBody);
    }

    /** One instance of every message type of {@code protocol}. */
    @SuppressWarnings("unchecked")
    static <M> List<M> everyMessage(Protocol<M> protocol) {
        if (protocol == Protocol.RELAY) {
            return (List<M>) relayMessages();
        }
        if (protocol == Protocol.SPARK) {
            return (List<M>) sparkMessages();
        }
        if (protocol == Protocol.PROGRESS) {
            return (List<M>) List.of(new ProgressMessage.Report(
                    "progress 1 rank=3 gen=1 beats=7 commits=2 in=57 out=56 at=allreduce where=epoch 1 step 7"));
        }
        return (List<M>) elasticMessages();
    }

    static List<RelayMessage> relayMessages() {
        return List.of(
                new RelayMessage.Register("node1", "node1.example", List.of(new Endpoint("10.0.0.1", 4000)),
                        List.of(new NicAddress("eth0", "10.0.0.1", 24, false), new NicAddress("lo", "127.0.0.1", 8, true))),
                new RelayMessage.Heartbeat(123456789L),
                new RelayMessage.ProbeRequest(Map.of("node2", List.of(new Endpoint("10.0.0.2", 4001))), 2000),
                new RelayMessage.ProbeReport("node1", Map.of("node2", List.of("10.0.0.2"))),
                new RelayMessage.Shutdown("job finished"),
                new RelayMessage.Lookup("node2"),
                new RelayMessage.LookupReply("node2", List.of(new Endpoint("fd00::2", 4002))),
                new RelayMessage.Exec(42L, " orted -mca ess \"env\""),
                // bytes that are not text in any locale (a Latin-1 file name, 0xff): kept as they are
                new RelayMessage.Exec(43L, "cat caf\udce9.txt \udcff"),
                new RelayMessage.Abort(42L),
                new RelayMessage.Output(2, "héllo\n".getBytes(StandardCharsets.UTF_8)),
                new RelayMessage.Exited(143),
                new RelayMessage.Ping("driver"),
                new RelayMessage.Pong("node2"),
                new RelayMessage.Failure("no such request"),
                new RelayMessage.Configure("node1"),
                new RelayMessage.Networks("eth0,ib0"),
                new RelayMessage.AgentKeySpent(),
                new RelayMessage.PrivateFile("TROIKA_WORKER_SECRET_FILE", "a2V5".getBytes(StandardCharsets.US_ASCII)),
                new RelayMessage.FileStored("TROIKA_WORKER_SECRET_FILE", ""),
                new RelayMessage.NodeStore("e123-ab"),
                new RelayMessage.AgentKeyOpen("00112233445566778899aabbccddeeff"),
                new RelayMessage.RankEnded(3, 2),
                new RelayMessage.Registered(),
                new RelayMessage.Launch(44L, " orted --tree-spawn -mca ess \"env\"", 1000),
                new RelayMessage.Started());
    }

    static List<SparkMessage> sparkMessages() {
        return List.of(
                new SparkMessage.Task(3, "spark-0123456789ab", "10.0.0.3"),
                new SparkMessage.Assign("spark-0123456789ab", List.of(new Endpoint("10.0.0.1", 4003))),
                new SparkMessage.FetchFunction(2),
                new SparkMessage.FunctionBytes("java.lang.*;!*", new byte[] {(byte) 0xac, (byte) 0xed, 0, 5}),
                new SparkMessage.RankResult(2, true, new byte[] {1, 2, 3}),
                new SparkMessage.Stored(2),
                new SparkMessage.Shutdown("job finished"),
                new SparkMessage.Failure("rank 1 failed"));
    }

    static List<ElasticMessage> elasticMessages() {
        return List.of(
                new ElasticMessage.Subscribe(4, 0),
                new ElasticMessage.Subscribe(4, 3),
                new ElasticMessage.Subscribed(),
                new ElasticMessage.Refused("expected the registration of rank 0 of generation 4"),
                new ElasticMessage.HostsChanged(1700000000000L, 3),
                new ElasticMessage.WorldChanged(4, 2, List.of(0, 2, 5), List.of(1),
                        List.of(new ElasticMessage.WorldChanged.Joined(5, "node3"))),
                new ElasticMessage.RankLeft(4, 2, 75),
                new ElasticMessage.Noted(),
                new ElasticMessage.NotedDatagram(-7_000_000_000L, 12),
                new ElasticMessage.ChangeWorld(2, List.of(1, 3), List.of(new ElasticMessage.ChangeWorld.Spawn("node4",
                        2, 2), new ElasticMessage.ChangeWorld.Spawn("node1", 1, 0),
                        new ElasticMessage.ChangeWorld.Spawn("node2", 2, 5, List.of(1, 3), 4)), 6),
                new ElasticMessage.ChangeWorld(3, List.of(), List.of(new ElasticMessage.ChangeWorld.Spawn("node7", 1,
                        3)), 9, List.of(new ElasticMessage.ChangeWorld.Activate("node5", 4),
                        new ElasticMessage.ChangeWorld.Activate("node6", 5))));
    }
}
