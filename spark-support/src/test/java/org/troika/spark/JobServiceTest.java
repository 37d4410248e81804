package org.troika.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.troika.wire.Endpoint;
import org.troika.wire.Protocol;
import org.troika.wire.RelayMessage;
import org.troika.wire.SparkMessage;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;

/** The wire protocol's security checks applied to the Spark job service (loopback sockets, no Spark). */
@Timeout(60)
class JobServiceTest {
    private static final Secret SECRET = Secret.generate();
    /** What ranks hold instead of the job secret. */
    private static final Secret RANK = JobService.rankKey(SECRET);
    private static final byte[] FUNCTION = {(byte) 0xac, (byte) 0xed, 0, 5, 1, 2, 3};
    private final JobService service;

    JobServiceTest() throws IOException {
        service = new JobService(SECRET, InetAddress.getLoopbackAddress(), 4, FUNCTION, "java.lang.*;!*");
    }

    @AfterEach
    void close() {
        service.close();
    }

    private SparkMessage ask(Secret secret, SparkMessage m) throws IOException {
        try (WireChannel<SparkMessage> c = WireChannel.connectAny(List.of(service.endpoint()), Protocol.SPARK, secret,
                10_000)) {
            c.send(m);
            return c.receive();
        }
    }

    @Test
    void aRankWithTheRankKeyGetsTheFunctionAndItsFilter() throws IOException {
        SparkMessage.FunctionBytes f = assertInstanceOf(SparkMessage.FunctionBytes.class, ask(RANK, new SparkMessage.FetchFunction(2)));
        assertArrayEquals(FUNCTION, f.data());
        assertEquals("java.lang.*;!*", f.classFilter());
    }

    @Test
    void eachKeyOpensOneDoorTheJobSecretRegistersTasksTheRankKeyFetchesAndReports() throws IOException {
        assertTrue(!RANK.equals(SECRET));
        assertInstanceOf(SparkMessage.Failure.class, ask(SECRET, new SparkMessage.FetchFunction(0)));
        assertInstanceOf(SparkMessage.Failure.class, ask(SECRET, new SparkMessage.RankResult(0, true, new byte[] {1})));
        assertInstanceOf(SparkMessage.Failure.class, ask(RANK, new SparkMessage.Task(0, "spark-x", "e")));
        assertEquals(Map.of(), service.outcomes());
        assertEquals(Map.of(), service.tasks());
        // and a relay client with the rank key is refused at its hello (another protocol)
        assertThrows(IOException.class, () -> {
            try (WireChannel<RelayMessage> c = WireChannel.connectAny(List.of(service.endpoint()), Protocol.RELAY, RANK,
                    10_000)) {
                c.send(new RelayMessage.Lookup("spark-x"));
                c.receive();
            }
        });
    }

    @Test
    void aClientWithAnotherSecretGetsNothingAndStoresNothing() {
        assertThrows(IOException.class, () -> ask(Secret.generate(), new SparkMessage.FetchFunction(0)));
        assertThrows(IOException.class, () -> ask(Secret.generate(), new SparkMessage.RankResult(0, true, new byte[] {1})));
        assertThrows(IOException.class, () -> ask(Secret.generate(), new SparkMessage.Task(0, "spark-x", "e")));
        assertEquals(Map.of(), service.outcomes());
        assertEquals(Map.of(), service.tasks());
    }

    @Test
    void ranksAndTasksOutsideTheJobAreRefused() throws IOException {
        assertInstanceOf(SparkMessage.Failure.class, ask(RANK, new SparkMessage.FetchFunction(4)));
        assertInstanceOf(SparkMessage.Failure.class, ask(RANK, new SparkMessage.FetchFunction(-1)));
        assertInstanceOf(SparkMessage.Failure.class, ask(RANK, new SparkMessage.RankResult(9, true, new byte[0])));
        assertInstanceOf(SparkMessage.Failure.class, ask(SECRET, new SparkMessage.Task(4, "spark-x", "e")));
        // a relay client (same secret, another protocol) is refused at its hello, before any message
        assertThrows(IOException.class, () -> {
            try (WireChannel<RelayMessage> c = WireChannel.connectAny(List.of(service.endpoint()), Protocol.RELAY, SECRET,
                    10_000)) {
                c.send(new RelayMessage.Lookup("spark-x"));
                c.receive();
            }
        });
        assertEquals(Map.of(), service.outcomes());
    }

    @Test
    void aRankReportsOnceOnly() throws IOException {
        assertInstanceOf(SparkMessage.Stored.class, ask(RANK, new SparkMessage.RankResult(1, true, new byte[] {7})));
        assertInstanceOf(SparkMessage.Failure.class, ask(RANK, new SparkMessage.RankResult(1, true, new byte[] {8})));
        assertArrayEquals(new byte[] {7}, service.outcomes().get(1).data());
    }

    @Test
    void aTaskRegistersOnceAndIsToldItsServiceWhenAllAreThere() throws Exception {
        @SuppressWarnings("unchecked")
        WireChannel<SparkMessage>[] tasks = new WireChannel[4];
        try {
            for (int i = 0; i < 4; i++) {
                tasks[i] = WireChannel.connectAny(List.of(service.endpoint()), Protocol.SPARK, SECRET, 10_000);
                tasks[i].send(new SparkMessage.Task(i, i % 2 == 0 ? "spark-a" : "spark-b", "e" + i));
            }
            // all four registered first: the sends above return before the service has read them, and a duplicate
            // read before the real task 1 would register in its place (first one wins) and wait for an Assign
            // (a 10 s read timeout in a CI rehearsal, 2026-12-01, under load)
            assertTrue(service.awaitTasks(Duration.ofSeconds(30), () -> false));
            assertInstanceOf(SparkMessage.Failure.class, ask(SECRET, new SparkMessage.Task(1, "spark-evil", "x")));
            HostLayout layout = HostLayout.of(Map.of(0, "spark-a", 1, "spark-b", 2, "spark-a", 3, "spark-b"));
            Endpoint driver = new Endpoint("127.0.0.1", 4000);
            service.assign(layout, driver);
            assertEquals(new SparkMessage.Assign("spark-a", List.of(driver)), tasks[0].receive());
            assertEquals(new SparkMessage.Assign("spark-b", List.of(driver)), tasks[1].receive());
            assertEquals(new SparkMessage.Assign("", List.of(driver)), tasks[2].receive());
            service.finish("rank 1 failed");
            assertEquals(new SparkMessage.Assign("", List.of(driver)), tasks[3].receive());
            assertEquals(new SparkMessage.Failure("rank 1 failed"), tasks[3].receive());
            assertEquals("spark-b", service.tasks().get(1).hostHash());
        } finally {
            for (WireChannel<SparkMessage> t : tasks) {
                if (t != null) {
                    t.close();
                }
            }
        }
    }

    @Test
    void aTamperedFrameIsDroppedWithoutEffect() throws Exception {
        // a byte of the body (after the 52-byte client hello and the 16-byte header) is flipped on the way
        try (Proxy p = new Proxy(service.endpoint(), 52 + 16 + 5)) {
            assertThrows(IOException.class, () -> {
                try (WireChannel<SparkMessage> c = WireChannel.connectAny(List.of(p.endpoint()), Protocol.SPARK, RANK,
                        10_000)) {
                    c.send(new SparkMessage.RankResult(0, true, new byte[] {1, 2, 3}));
                    c.receive();
                }
            });
        }
        assertEquals(Map.of(), service.outcomes());
    }

    @Test
    void aFrameRecordedOnAnotherConnectionIsNotAcceptedAgain() throws Exception {
        byte[] recorded;
        try (JobService other = new JobService(SECRET, InetAddress.getLoopbackAddress(), 4, FUNCTION, "!*");
                Proxy p = new Proxy(other.endpoint(), -1)) {
            try (WireChannel<SparkMessage> c = WireChannel.connectAny(List.of(p.endpoint()), Protocol.SPARK, RANK,
                    10_000)) {
                c.send(new SparkMessage.RankResult(3, true, new byte[] {4}));
                assertInstanceOf(SparkMessage.Stored.class, c.receive());
            }
            recorded = p.clientBytes();
        }
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), service.endpoint().port())) {
            s.setSoTimeout(10_000);
            s.getInputStream().readNBytes(20); // the service's hello
            s.getOutputStream().write(recorded); // the old hello and frame, replayed
            s.getOutputStream().flush();
            assertEquals(-1, s.getInputStream().read(), "the service closes the connection without a reply");
        }
        assertEquals(Map.of(), service.outcomes());
    }

    @Test
    void connectionsThatNeverSendAByteOrTrickleAreClosedWithinSeconds() throws Exception {
        Endpoint e = service.endpoint();
        org.troika.testkit.Flooder.Report r = org.troika.testkit.Flooder.run(
                new java.net.InetSocketAddress(e.address(), e.port()), 20, 10, Duration.ofSeconds(60), List.of());
        assertEquals(30, r.opened(), r.line());
        assertEquals(0, r.open(), r.line());
        assertTrue(r.maxCloseMillis() < 10_000, r.line());
        assertInstanceOf(SparkMessage.FunctionBytes.class, ask(RANK, new SparkMessage.FetchFunction(0)));
    }

    /** A one-connection TCP relay that records what the client sends and can flip one byte of it. */
    private static final class Proxy implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        private final ByteArrayOutputStream fromClient = new ByteArrayOutputStream();
        private final Thread thread;

        Proxy(Endpoint target, int flipAt) throws IOException {
            thread = new Thread(() -> {
                try (Socket client = server.accept(); Socket up = new Socket(InetAddress.getLoopbackAddress(), target.port())) {
                    Thread down = new Thread(() -> copy(up, client, -1, null));
                    down.setDaemon(true);
                    down.start();
                    copy(client, up, flipAt, fromClient);
                    down.join(10_000);
                } catch (IOException | InterruptedException ignored) {
                    // the test sees the effect
                }
            });
            thread.setDaemon(true);
            thread.start();
        }

        Endpoint endpoint() {
            return new Endpoint("127.0.0.1", server.getLocalPort());
        }

        synchronized byte[] clientBytes() {
            return fromClient.toByteArray();
        }

        private void copy(Socket from, Socket to, int flipAt, ByteArrayOutputStream record) {
            try (InputStream in = from.getInputStream()) {
                OutputStream out = to.getOutputStream();
                int pos = 0;
                int b;
                while ((b = in.read()) >= 0) {
                    if (pos++ == flipAt) {
                        b ^= 0x01;
                    }
                    if (record != null) {
                        synchronized (this) {
                            record.write(b);
                        }
                    }
                    out.write(b);
                    if (in.available() == 0) {
                        out.flush();
                    }
                }
                to.shutdownOutput();
            } catch (IOException ignored) {
                // connection over
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
