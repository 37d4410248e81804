package org.troika.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.wire.WireTestSupport.SECRET;

import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The service base in event mode ({@link WireServer#startEvents}): frames read and opened on the selector thread,
 * sends that never block, and what that must still refuse. Over loopback.
 */
@Timeout(120)
class WireConnectionTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private final List<WireServer<?>> servers = new ArrayList<>();
    private final BlockingQueue<RelayMessage> received = new LinkedBlockingQueue<>();
    private final Map<WireConnection<RelayMessage>, IOException> closedWith = new ConcurrentHashMap<>();
    private final AtomicInteger closedCalls = new AtomicInteger();
    private final CountDownLatch anyClosed = new CountDownLatch(1);

    @AfterEach
    void close() {
        servers.forEach(WireServer::close);
    }

    /** Answers a Ping with a Pong; a Lookup with 3 Outputs of 1 MB each and a close; records everything. */
    private WireServer<RelayMessage> echo(String name, WireServer.Limits limits) throws IOException {
        WireServer<RelayMessage> s = WireServer.startEvents(name, Protocol.RELAY, SECRET, List.of(LOOPBACK), limits,
                new WireServer.Events<>() {
                    @Override
                    public void received(WireConnection<RelayMessage> c, RelayMessage m) throws IOException {
                        received.add(m);
                        if (m instanceof RelayMessage.Ping p) {
                            c.send(new RelayMessage.Pong(p.from()));
                        } else if (m instanceof RelayMessage.Lookup) {
                            for (int i = 0; i < 3; i++) {
                                c.send(new RelayMessage.Output(1, big(1_000_000, i)));
                            }
                            c.close();
                        }
                    }

                    @Override
                    public void closed(WireConnection<RelayMessage> c, IOException cause) {
                        closedCalls.incrementAndGet();
                        closedWith.put(c, cause == null ? new IOException("none") : cause);
                        anyClosed.countDown();
                    }
                });
        servers.add(s);
        return s;
    }

    private static byte[] big(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    private static WireChannel<RelayMessage> connect(WireServer<RelayMessage> s) throws IOException {
        return WireChannel.connectAny(s.endpoints(), Protocol.RELAY, SECRET, 30_000);
    }

    private static long threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix)).count();
    }

    @Test
    void manyFramesEachWayIncludingOnesLargerThanTheReadBufferArriveInOrder() throws Exception {
        WireServer<RelayMessage> s = echo("wc-echo", WireServer.Limits.DEFAULT);
        try (WireChannel<RelayMessage> c = connect(s)) {
            for (int i = 0; i < 200; i++) {
                c.send(new RelayMessage.Ping("p" + i));
            }
            byte[] payload = big(300_000, 7);
            c.send(new RelayMessage.Output(2, payload));
            c.send(new RelayMessage.Ping("last"));
            for (int i = 0; i < 200; i++) {
                assertEquals(new RelayMessage.Pong("p" + i), c.receive());
            }
            assertEquals(new RelayMessage.Pong("last"), c.receive());
            for (int i = 0; i < 200; i++) {
                assertEquals(new RelayMessage.Ping("p" + i), received.poll(30, TimeUnit.SECONDS));
            }
            RelayMessage.Output o = (RelayMessage.Output) received.poll(30, TimeUnit.SECONDS);
            assertArrayEquals(payload, o.data());
        }
    }

    @Test
    void closeSendsWhatIsQueuedFirst() throws Exception {
        WireServer<RelayMessage> s = echo("wc-linger", WireServer.Limits.DEFAULT);
        Socket sock = new Socket();
        sock.setReceiveBufferSize(8192); // a small window: most of the 3 MB waits in the server's queue
        sock.connect(new InetSocketAddress(LOOPBACK, s.endpoints().get(0).port()), 30_000);
        sock.setSoTimeout(30_000);
        try (WireChannel<RelayMessage> c = WireChannel.connect(sock, Protocol.RELAY, SECRET,
                WireChannel.DEFAULT_MAX_BODY)) {
            c.send(new RelayMessage.Lookup("x"));
            Thread.sleep(300); // the server has closed by now, but not yet sent everything
            for (int i = 0; i < 3; i++) {
                assertArrayEquals(big(1_000_000, i), ((RelayMessage.Output) c.receive()).data());
            }
            assertThrows(EOFException.class, c::receive);
        }
        assertTrue(anyClosed.await(30, TimeUnit.SECONDS));
        assertEquals("none", closedWith.values().iterator().next().getMessage(), "closed by this side: no cause");
    }

    @Test
    void aTamperedFrameEndsTheConnectionAndIsNotDelivered() throws Exception {
        WireServer<RelayMessage> s = echo("wc-tamper", WireServer.Limits.DEFAULT);
        try (Socket raw = new Socket(LOOPBACK, s.endpoints().get(0).port())) {
            raw.setSoTimeout(30_000);
            byte[] serverNonce = Handshake.parseServerHello(Protocol.RELAY,
                    raw.getInputStream().readNBytes(Handshake.SERVER_HELLO_LEN));
            byte[] clientNonce = WireTestSupport.nonce(9);
            OutputStream out = raw.getOutputStream();
            out.write(Handshake.clientHello(Protocol.RELAY, SECRET, serverNonce, clientNonce));
            byte[] frames = WireTestSupport.framesWith(Protocol.RELAY, SECRET, serverNonce, clientNonce,
                    List.of(new RelayMessage.Ping("ok"), new RelayMessage.Ping("evil")));
            frames[frames.length - 40] ^= 1; // a body byte of the second frame
            out.write(frames);
            out.flush();
            assertEquals(new RelayMessage.Ping("ok"), received.poll(30, TimeUnit.SECONDS));
            assertTrue(anyClosed.await(30, TimeUnit.SECONDS));
        }
        assertInstanceOf(WireException.class, closedWith.values().iterator().next());
        assertNull(received.poll(200, TimeUnit.MILLISECONDS), "the tampered frame was delivered");
    }

    @Test
    void anAuthenticatedClientWithoutAFrameIsClosedAtTheFirstFrameDeadlineAndThePeersCloseIsReported()
            throws Exception {
        WireServer<RelayMessage> s = echo("wc-first",
                WireServer.Limits.DEFAULT.withFirstFrameDeadline(Duration.ofMillis(500)));
        try (Socket raw = new Socket(LOOPBACK, s.endpoints().get(0).port())) {
            raw.setSoTimeout(30_000);
            byte[] serverNonce = Handshake.parseServerHello(Protocol.RELAY,
                    raw.getInputStream().readNBytes(Handshake.SERVER_HELLO_LEN));
            raw.getOutputStream().write(Handshake.clientHello(Protocol.RELAY, SECRET, serverNonce,
                    WireTestSupport.nonce(4)));
            raw.getOutputStream().flush();
            assertEquals(-1, raw.getInputStream().read(), "closed without a frame");
        }
        assertTrue(anyClosed.await(30, TimeUnit.SECONDS));
        assertInstanceOf(SocketTimeoutException.class, closedWith.values().iterator().next());
        assertEquals(1, s.stats().timedOut(), s.stats().toString());

        WireChannel<RelayMessage> c = connect(s);
        c.send(new RelayMessage.Ping("bye"));
        assertEquals(new RelayMessage.Pong("bye"), c.receive());
        c.close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (closedCalls.get() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(2, closedCalls.get());
        assertTrue(closedWith.values().stream().anyMatch(e -> e instanceof EOFException), closedWith.toString());
    }

    @Test
    void aPeerThatStopsReadingIsDroppedOnceTooMuchIsQueuedAndSendsNeverBlock() throws Exception {
        List<WireConnection<RelayMessage>> conns = new ArrayList<>();
        WireServer<RelayMessage> s = WireServer.startEvents("wc-slow", Protocol.RELAY, SECRET, List.of(LOOPBACK),
                WireServer.Limits.DEFAULT, new WireServer.Events<>() {
                    @Override
                    public void received(WireConnection<RelayMessage> c, RelayMessage m) {
                        synchronized (conns) {
                            conns.add(c);
                            conns.notifyAll();
                        }
                    }

                    @Override
                    public void closed(WireConnection<RelayMessage> c, IOException cause) {
                        closedWith.put(c, cause == null ? new IOException("none") : cause);
                    }
                });
        servers.add(s);
        try (WireChannel<RelayMessage> c = connect(s)) {
            c.send(new RelayMessage.Ping("then I sleep"));
            WireConnection<RelayMessage> conn;
            synchronized (conns) {
                while (conns.isEmpty()) {
                    conns.wait();
                }
                conn = conns.get(0);
            }
            byte[] chunk = new byte[64 * 1024];
            long start = System.nanoTime();
            IOException failed = null;
            int sent = 0;
            try {
                while (sent < 10_000) {
                    conn.send(new RelayMessage.Output(1, chunk));
                    sent++;
                }
            } catch (IOException e) {
                failed = e;
            }
            assertTrue(failed != null, "never dropped after " + sent + " frames");
            assertTrue(failed.getMessage().contains("does not read"), failed.toString());
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20), "sends blocked");
            assertTrue(conn.isClosed());
            assertThrows(IOException.class, () -> conn.send(new RelayMessage.Ping("late")));
        }
    }

    @Test
    void twoThousandConnectionsThatAllConnectAtOnceGetInWithoutBusyAndWithoutAThreadEach() throws Exception {
        // bounds far below the burst: reserve() makes room for the expected peers
        WireServer<RelayMessage> s = echo("wc-many", WireServer.Limits.DEFAULT.withPending(8, 8).withMaxConnections(8)
                .withHelloDeadline(Duration.ofSeconds(60)));
        int n = 2000;
        s.reserve(n);
        List<Socket> raw = new ArrayList<>();
        List<WireChannel<RelayMessage>> clients = new ArrayList<>();
        try {
            // open every connection before any hello is answered, as task services starting together would
            for (int i = 0; i < n; i++) {
                Socket sock = new Socket();
                sock.bind(new InetSocketAddress(InetAddress.getByName("127.0." + (1 + i / 250) + "." + (1 + i % 250)),
                        0));
                sock.connect(new InetSocketAddress(LOOPBACK, s.endpoints().get(0).port()), 30_000);
                sock.setSoTimeout(30_000);
                raw.add(sock);
            }
            for (Socket sock : raw) {
                WireChannel<RelayMessage> c = WireChannel.connect(sock, Protocol.RELAY, SECRET,
                        WireChannel.DEFAULT_MAX_BODY);
                c.send(new RelayMessage.Ping("h"));
                clients.add(c);
            }
            for (WireChannel<RelayMessage> c : clients) {
                assertEquals(new RelayMessage.Pong("h"), c.receive());
            }
            assertEquals(n, s.stats().connections(), s.stats().toString());
            assertEquals(0, s.stats().busy(), s.stats().toString());
            assertEquals(2, threadsNamed("wc-many"), "threads of the server: only its selector and its listener");
            // reserve() can be lowered again: from then on the base bounds hold
            s.reserve(0);
            assertThrows(ServiceBusyException.class,
                    () -> WireChannel.connectAny(s.endpoints(), Protocol.RELAY, SECRET, 200));
        } finally {
            for (WireChannel<RelayMessage> c : clients) {
                c.close();
            }
            for (Socket sock : raw) {
                sock.close();
            }
        }
    }

    @Test
    void stopAcceptingReleasesThePortAndKeepsLiveConnectionsServed() throws Exception {
        WireServer<RelayMessage> s = echo("wc-stop", WireServer.Limits.DEFAULT);
        try (WireChannel<RelayMessage> c = connect(s)) {
            c.send(new RelayMessage.Ping("a"));
            assertEquals(new RelayMessage.Pong("a"), c.receive());
            s.stopAccepting();
            assertThrows(IOException.class, () -> new Socket(LOOPBACK, s.endpoints().get(0).port()).close());
            c.send(new RelayMessage.Ping("b"));
            assertEquals(new RelayMessage.Pong("b"), c.receive());
            s.close();
            assertThrows(IOException.class, c::receive);
        }
        assertFalse(closedWith.isEmpty());
    }
}
