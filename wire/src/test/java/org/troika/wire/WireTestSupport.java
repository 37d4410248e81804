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

    private WireTestSupport() {}

    static byte[] nonce(int fill) {
        byte[] b = new byte[WireChannel.NONCE_LEN];
        java.util.Arrays.fill(b, (byte) fill);
        return b;
    }

    /** The bytes a client writes for {@code messages} on a connection with the default nonces. */
    static byte[] clientFrames(Secret secret, Message... messages) throws IOException {
        return framesWith(secret, SERVER_NONCE, CLIENT_NONCE, messages);
    }

    static byte[] framesWith(Secret secret, byte[] serverNonce, byte[] clientNonce, Message... messages)
            throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        WireChannel c = WireChannel.ofStreams(new ByteArrayInputStream(new byte[0]), out, secret, false, serverNonce,
                clientNonce, WireChannel.DEFAULT_MAX_BODY);
        for (Message m : messages) {
            c.send(m);
        }
        return out.toByteArray();
    }

    /** A server-side channel reading {@code bytes}. */
    static WireChannel serverReading(byte[] bytes, int maxBody) {
        return WireChannel.ofStreams(new ByteArrayInputStream(bytes), new ByteArrayOutputStream(), SECRET, true,
                SERVER_NONCE, CLIENT_NONCE, maxBody);
    }

    /** One instance of every message type. */
    static List<Message> everyMessage() {
        return List.of(
                new Message.Register("node1", "node1.example", List.of(new Endpoint("10.0.0.1", 4000)),
                        List.of(new NicAddress("eth0", "10.0.0.1", 24, false), new NicAddress("lo", "127.0.0.1", 8, true))),
                new Message.Heartbeat(123456789L),
                new Message.ProbeRequest(Map.of("node2", List.of(new Endpoint("10.0.0.2", 4001))), 2000),
                new Message.ProbeReport("node1", Map.of("node2", List.of("10.0.0.2"))),
                new Message.Shutdown("job finished"),
                new Message.Lookup("node2"),
                new Message.LookupReply("node2", List.of(new Endpoint("fd00::2", 4002))),
                new Message.Exec(42L, " orted -mca ess \"env\""),
                new Message.Abort(42L),
                new Message.Output(2, "héllo\n".getBytes(StandardCharsets.UTF_8)),
                new Message.Exited(143),
                new Message.Ping("driver"),
                new Message.Pong("node2"),
                new Message.Failure("no such request"),
                new Message.Configure("node1"),
                new Message.Networks("eth0,ib0"),
                new Message.SparkTask(3, "spark-0123456789ab", "10.0.0.3"),
                new Message.SparkAssign("spark-0123456789ab", List.of(new Endpoint("10.0.0.1", 4003))),
                new Message.FetchFunction(2),
                new Message.FunctionBytes("java.lang.*;!*", new byte[] {(byte) 0xac, (byte) 0xed, 0, 5}),
                new Message.RankResult(2, true, new byte[] {1, 2, 3}),
                new Message.HostsChanged(1700000000000L, 3));
    }
}
