package org.troika.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.wire.WireTestSupport.CLIENT_NONCE;
import static org.troika.wire.WireTestSupport.OTHER;
import static org.troika.wire.WireTestSupport.PROTOCOLS;
import static org.troika.wire.WireTestSupport.SECRET;
import static org.troika.wire.WireTestSupport.SERVER_NONCE;
import static org.troika.wire.WireTestSupport.clientFrames;
import static org.troika.wire.WireTestSupport.framesWith;
import static org.troika.wire.WireTestSupport.nonce;
import static org.troika.wire.WireTestSupport.serverReading;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WireChannelTest {

    @Test
    void everyMessageOfEveryProtocolRoundTripsThroughAFrame() throws IOException {
        for (Protocol<?> p : PROTOCOLS) {
            roundTrip(p);
        }
    }

    private static <M> void roundTrip(Protocol<M> p) throws IOException {
        List<M> all = WireTestSupport.everyMessage(p);
        WireChannel<M> server = serverReading(p, clientFrames(p, SECRET, all), WireChannel.DEFAULT_MAX_BODY);
        for (M m : all) {
            assertEquals(m, server.receive());
        }
        assertThrows(EOFException.class, server::receive);
    }

    @Test
    void everyRecordOfEachSealedMessageSetHasAWireType() {
        for (Protocol<?> p : PROTOCOLS) {
            Class<?>[] permitted = p.type().getPermittedSubclasses();
            assertEquals(permitted.length, WireTestSupport.everyMessage(p).stream().map(Object::getClass).distinct().count(),
                    "everyMessage(" + p + ") must cover every message record");
        }
    }

    @Test
    void aFrameWithAnyByteFlippedIsRejected() throws IOException {
        byte[] good = clientFrames(SECRET, new RelayMessage.Exec(7, "orted"));
        for (int i = 0; i < good.length; i++) {
            byte[] bad = good.clone();
            bad[i] ^= 0x01;
            WireChannel<RelayMessage> server = serverReading(bad, WireChannel.DEFAULT_MAX_BODY);
            int at = i;
            assertThrows(WireException.class, server::receive, () -> "flipped byte " + at + " was accepted");
        }
    }

    @Test
    void aFrameOfAnyMessageOfAnyProtocolWithAnyByteFlippedIsRejected() throws IOException {
        for (Protocol<?> p : PROTOCOLS) {
            flipEveryByte(p);
        }
    }

    private static <M> void flipEveryByte(Protocol<M> p) throws IOException {
        for (M m : WireTestSupport.everyMessage(p)) {
            byte[] good = clientFrames(p, SECRET, List.of(m));
            assertEquals(m, serverReading(p, good, WireChannel.DEFAULT_MAX_BODY).receive());
            for (int i = 0; i < good.length; i++) {
                byte[] bad = good.clone();
                bad[i] ^= 0x01;
                int at = i;
                assertThrows(WireException.class, () -> serverReading(p, bad, WireChannel.DEFAULT_MAX_BODY).receive(),
                        () -> p + " " + m + ": flipped byte " + at + " was accepted");
            }
        }
    }

    @Test
    void aSparkFunctionFrameWithAnyByteFlippedIsRejected() throws IOException {
        byte[] good = clientFrames(Protocol.SPARK, SECRET,
                List.of(new SparkMessage.FunctionBytes("org.example.*;!*", new byte[] {1, 2, 3, 4})));
        for (int i = 0; i < good.length; i++) {
            byte[] bad = good.clone();
            bad[i] ^= 0x01;
            WireChannel<SparkMessage> server = serverReading(Protocol.SPARK, bad, WireChannel.DEFAULT_MAX_BODY);
            int at = i;
            assertThrows(WireException.class, server::receive, () -> "flipped byte " + at + " was accepted");
        }
    }

    @Test
    void aHostsChangedFrameWithAnyByteFlippedOrMadeWithTheJobSecretIsRejectedByAWorkerKeyedChannel() throws IOException {
        Secret worker = SECRET.derive("troika-worker-v1");
        assertFalse(worker.equals(SECRET), "the derived key equals the job secret");
        assertEquals(worker, SECRET.derive("troika-worker-v1"), "derivation is not deterministic");
        ElasticMessage m = new ElasticMessage.HostsChanged(1700000000000L, 2);
        byte[] good = framesWith(Protocol.ELASTIC, worker, SERVER_NONCE, CLIENT_NONCE, List.of(m));
        assertEquals(m, workerKeyed(worker, good).receive());
        for (int i = 0; i < good.length; i++) {
            byte[] bad = good.clone();
            bad[i] ^= 0x01;
            WireChannel<ElasticMessage> server = workerKeyed(worker, bad);
            int at = i;
            assertThrows(WireException.class, server::receive, () -> "flipped byte " + at + " was accepted");
        }
        WireChannel<ElasticMessage> jobKeyed = workerKeyed(worker,
                framesWith(Protocol.ELASTIC, SECRET, SERVER_NONCE, CLIENT_NONCE, List.of(m)));
        assertThrows(WireException.class, jobKeyed::receive);
    }

    private static WireChannel<ElasticMessage> workerKeyed(Secret worker, byte[] bytes) {
        return WireChannel.ofStreams(new ByteArrayInputStream(bytes), new ByteArrayOutputStream(), Protocol.ELASTIC,
                worker, true, SERVER_NONCE, CLIENT_NONCE, 64);
    }

    @Test
    void aFrameOfOneProtocolIsRejectedByAnotherUnderTheSameKey() throws IOException {
        // Failure is type 14 with one string in both relay and spark: only the protocol id in the MAC tells them apart
        byte[] relayFailure = clientFrames(SECRET, new RelayMessage.Failure("x"));
        WireException e = assertThrows(WireException.class,
                () -> serverReading(Protocol.SPARK, relayFailure, WireChannel.DEFAULT_MAX_BODY).receive());
        assertTrue(e.getMessage().contains("MAC"), e.getMessage());
        byte[] sparkFailure = clientFrames(Protocol.SPARK, SECRET, List.of(new SparkMessage.Failure("x")));
        assertThrows(WireException.class,
                () -> serverReading(Protocol.RELAY, sparkFailure, WireChannel.DEFAULT_MAX_BODY).receive());
    }

    @Test
    void aFrameMadeWithAnotherSecretIsRejected() throws IOException {
        WireChannel<RelayMessage> server = serverReading(clientFrames(OTHER, new RelayMessage.Exec(7, "touch /tmp/pwned")),
                WireChannel.DEFAULT_MAX_BODY);
        WireException e = assertThrows(WireException.class, server::receive);
        assertTrue(e.getMessage().contains("MAC"), e.getMessage());
    }

    @Test
    void aTruncatedFrameIsRejected() throws IOException {
        byte[] good = clientFrames(SECRET, new RelayMessage.Lookup("node1"));
        for (int len = 1; len < good.length; len++) {
            WireChannel<RelayMessage> server = serverReading(Arrays.copyOf(good, len), WireChannel.DEFAULT_MAX_BODY);
            assertThrows(WireException.class, server::receive);
        }
    }

    @Test
    void anOversizedLengthIsRejectedBeforeTheBodyIsRead() throws IOException {
        // a header announcing 2 GiB, followed by nothing: must fail on the length, not try to allocate or read it
        byte[] header = WireChannel.header(RelayCodec.EXEC, 0, Integer.MAX_VALUE);
        WireException e = assertThrows(WireException.class, () -> serverReading(header, 1024).receive());
        assertTrue(e.getMessage().contains("exceeds"), e.getMessage());
    }

    @Test
    void aMessageLargerThanTheLimitIsNotSent() {
        WireChannel<RelayMessage> c = WireChannel.ofStreams(new ByteArrayInputStream(new byte[0]),
                new ByteArrayOutputStream(), Protocol.RELAY, SECRET, false, SERVER_NONCE, CLIENT_NONCE, 100);
        assertThrows(WireException.class, () -> c.send(new RelayMessage.Exec(1, "x".repeat(200))));
    }

    @Test
    void aFrameReplayedWithinTheConnectionIsRejected() throws IOException {
        byte[] one = clientFrames(SECRET, new RelayMessage.Exec(7, "orted"));
        byte[] twice = new byte[one.length * 2];
        System.arraycopy(one, 0, twice, 0, one.length);
        System.arraycopy(one, 0, twice, one.length, one.length);
        WireChannel<RelayMessage> server = serverReading(twice, WireChannel.DEFAULT_MAX_BODY);
        assertEquals(new RelayMessage.Exec(7, "orted"), server.receive());
        WireException e = assertThrows(WireException.class, server::receive);
        assertTrue(e.getMessage().contains("replay"), e.getMessage());
    }

    @Test
    void aFrameRecordedOnAnotherConnectionIsRejected() throws IOException {
        byte[] recorded = framesWith(Protocol.RELAY, SECRET, nonce(9), CLIENT_NONCE,
                List.of(new RelayMessage.Exec(7, "orted")));
        WireException e = assertThrows(WireException.class,
                () -> serverReading(recorded, WireChannel.DEFAULT_MAX_BODY).receive());
        assertTrue(e.getMessage().contains("MAC"), e.getMessage());
    }

    @Test
    void aFrameReflectedBackToItsSenderIsRejected() throws IOException {
        byte[] fromClient = clientFrames(SECRET, new RelayMessage.Ping("x"));
        WireChannel<RelayMessage> client = WireChannel.ofStreams(new ByteArrayInputStream(fromClient),
                new ByteArrayOutputStream(), Protocol.RELAY, SECRET, false, SERVER_NONCE, CLIENT_NONCE,
                WireChannel.DEFAULT_MAX_BODY);
        assertThrows(WireException.class, client::receive);
    }

    @Test
    void randomBytesAreRejected() {
        java.util.Random r = new java.util.Random(1);
        for (int i = 0; i < 200; i++) {
            byte[] junk = new byte[1 + r.nextInt(200)];
            r.nextBytes(junk);
            assertThrows(IOException.class, () -> serverReading(junk, WireChannel.DEFAULT_MAX_BODY).receive());
        }
    }

    @Test
    void aClientHelloProvesTheKeyForThisConnectionAndProtocolOnly() throws IOException {
        byte[] hello = Handshake.clientHello(Protocol.RELAY, SECRET, SERVER_NONCE, CLIENT_NONCE);
        assertEquals(Handshake.CLIENT_HELLO_LEN, hello.length);
        assertArrayEquals(CLIENT_NONCE, Handshake.checkClientHello(Protocol.RELAY, SECRET, SERVER_NONCE, hello));
        for (int i = 0; i < hello.length; i++) {
            byte[] bad = hello.clone();
            bad[i] ^= 0x01;
            int at = i;
            assertThrows(WireException.class, () -> Handshake.checkClientHello(Protocol.RELAY, SECRET, SERVER_NONCE, bad),
                    () -> "hello with byte " + at + " flipped was accepted");
        }
        assertThrows(WireException.class, () -> Handshake.checkClientHello(Protocol.RELAY, OTHER, SERVER_NONCE, hello),
                "another key");
        assertThrows(WireException.class, () -> Handshake.checkClientHello(Protocol.RELAY, SECRET, nonce(9), hello),
                "a hello recorded on another connection");
        WireException e = assertThrows(WireException.class,
                () -> Handshake.checkClientHello(Protocol.SPARK, SECRET, SERVER_NONCE, hello));
        assertTrue(e.getMessage().contains("relay protocol"), e.getMessage());
        byte[] sparkHello = Handshake.clientHello(Protocol.SPARK, SECRET, SERVER_NONCE, CLIENT_NONCE);
        sparkHello[3] = (byte) Protocol.RELAY.id(); // relabelled: the proof still names spark
        assertThrows(WireException.class, () -> Handshake.checkClientHello(Protocol.RELAY, SECRET, SERVER_NONCE, sparkHello));
    }

    @Test
    void aBusyHelloIsReportedAsBusy() {
        assertThrows(ServiceBusyException.class, () -> Handshake.parseServerHello(Protocol.RELAY, Handshake.busyHello()));
    }

    @Test
    void handshakeOverLoopbackConnectsBothWaysAndRejectsAWrongSecret() throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            CompletableFuture<RelayMessage> got = CompletableFuture.supplyAsync(() -> {
                try (Socket s = ss.accept(); WireChannel<RelayMessage> c = WireChannel.accept(s, Protocol.RELAY, SECRET, 4096)) {
                    RelayMessage m = c.receive();
                    c.send(new RelayMessage.Pong("server"));
                    return m;
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            try (Socket s = new Socket(ss.getInetAddress(), ss.getLocalPort());
                    WireChannel<RelayMessage> c = WireChannel.connect(s, Protocol.RELAY, SECRET, 4096)) {
                c.send(new RelayMessage.Ping("client"));
                assertEquals(new RelayMessage.Pong("server"), c.receive());
            }
            assertEquals(new RelayMessage.Ping("client"), got.get(30, TimeUnit.SECONDS));

            CompletableFuture<Exception> refused = CompletableFuture.supplyAsync(() -> {
                try (Socket s = ss.accept(); WireChannel<RelayMessage> c = WireChannel.accept(s, Protocol.RELAY, SECRET, 4096)) {
                    c.receive();
                    return null;
                } catch (Exception e) {
                    return e;
                }
            });
            try (Socket s = new Socket(ss.getInetAddress(), ss.getLocalPort());
                    WireChannel<RelayMessage> c = WireChannel.connect(s, Protocol.RELAY, OTHER, 4096)) {
                c.send(new RelayMessage.Exec(1, "touch /tmp/pwned"));
            }
            Exception e = refused.get(30, TimeUnit.SECONDS);
            assertTrue(e instanceof WireException, String.valueOf(e));
        }
    }

    @Test
    void theSecretIsNeverPrinted() {
        Secret s = Secret.generate();
        assertEquals("Secret[redacted]", s.toString());
        assertArrayEquals(Secret.decode(s.encode()).bytes(), s.bytes());
    }

    @Test
    void aShortOrMalformedSecretFromTheEnvironmentIsAUsageError() {
        assertThrows(org.troika.common.UsageException.class, () -> Secret.decode("c2hvcnQ="));
        assertThrows(org.troika.common.UsageException.class, () -> Secret.decode("not base64!!"));
        assertThrows(org.troika.common.UsageException.class, () -> Secret.fromEnv(java.util.Map.of()));
    }
}
