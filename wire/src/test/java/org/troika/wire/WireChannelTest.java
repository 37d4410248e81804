package org.troika.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.wire.WireTestSupport.CLIENT_NONCE;
import static org.troika.wire.WireTestSupport.OTHER;
import static org.troika.wire.WireTestSupport.SECRET;
import static org.troika.wire.WireTestSupport.SERVER_NONCE;
import static org.troika.wire.WireTestSupport.clientFrames;
import static org.troika.wire.WireTestSupport.framesWith;
import static org.troika.wire.WireTestSupport.nonce;
import static org.troika.wire.WireTestSupport.serverReading;

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
    void everyMessageRoundTripsThroughAFrame() throws IOException {
        List<Message> all = WireTestSupport.everyMessage();
        WireChannel server = serverReading(clientFrames(SECRET, all.toArray(Message[]::new)), WireChannel.DEFAULT_MAX_BODY);
        for (Message m : all) {
            assertEquals(m, server.receive());
        }
        assertThrows(EOFException.class, server::receive);
    }

    @Test
    void everyRecordOfTheSealedInterfaceHasAWireType() {
        Class<?>[] permitted = Message.class.getPermittedSubclasses();
        assertEquals(permitted.length, WireTestSupport.everyMessage().stream().map(Object::getClass).distinct().count(),
                "everyMessage() must cover every message record");
    }

    @Test
    void aFrameWithAnyByteFlippedIsRejected() throws IOException {
        byte[] good = clientFrames(SECRET, new Message.Exec(7, "orted"));
        for (int i = 0; i < good.length; i++) {
            byte[] bad = good.clone();
            bad[i] ^= 0x01;
            WireChannel server = serverReading(bad, WireChannel.DEFAULT_MAX_BODY);
            int at = i;
            assertThrows(WireException.class, server::receive, () -> "flipped byte " + at + " was accepted");
        }
    }

    @Test
    void aSparkFunctionFrameWithAnyByteFlippedIsRejected() throws IOException {
        byte[] good = clientFrames(SECRET, new Message.FunctionBytes("org.example.*;!*", new byte[] {1, 2, 3, 4}));
        for (int i = 0; i < good.length; i++) {
            byte[] bad = good.clone();
            bad[i] ^= 0x01;
            WireChannel server = serverReading(bad, WireChannel.DEFAULT_MAX_BODY);
            int at = i;
            assertThrows(WireException.class, server::receive, () -> "flipped byte " + at + " was accepted");
        }
    }

    @Test
    void aHostsChangedFrameWithAnyByteFlippedOrMadeWithTheJobSecretIsRejectedByAWorkerKeyedChannel() throws IOException {
        Secret worker = SECRET.derive("troika-worker-v1");
        assertFalse(worker.equals(SECRET), "the derived key equals the job secret");
        assertEquals(worker, SECRET.derive("troika-worker-v1"), "derivation is not deterministic");
        Message m = new Message.HostsChanged(1700000000000L, 2);
        byte[] good = clientFrames(worker, m);
        assertEquals(m, WireChannel.ofStreams(new java.io.ByteArrayInputStream(good), new java.io.ByteArrayOutputStream(),
                worker, true, SERVER_NONCE, CLIENT_NONCE, 64).receive());
        for (int i = 0; i < good.length; i++) {
            byte[] bad = good.clone();
            bad[i] ^= 0x01;
            WireChannel server = WireChannel.ofStreams(new java.io.ByteArrayInputStream(bad),
                    new java.io.ByteArrayOutputStream(), worker, true, SERVER_NONCE, CLIENT_NONCE, 64);
            int at = i;
            assertThrows(WireException.class, server::receive, () -> "flipped byte " + at + " was accepted");
        }
        WireChannel jobKeyed = WireChannel.ofStreams(new java.io.ByteArrayInputStream(clientFrames(SECRET, m)),
                new java.io.ByteArrayOutputStream(), worker, true, SERVER_NONCE, CLIENT_NONCE, 64);
        assertThrows(WireException.class, jobKeyed::receive);
    }

    @Test
    void aFrameMadeWithAnotherSecretIsRejected() throws IOException {
        WireChannel server = serverReading(clientFrames(OTHER, new Message.Exec(7, "touch /tmp/pwned")),
                WireChannel.DEFAULT_MAX_BODY);
        WireException e = assertThrows(WireException.class, server::receive);
        assertTrue(e.getMessage().contains("MAC"), e.getMessage());
    }

    @Test
    void aTruncatedFrameIsRejected() throws IOException {
        byte[] good = clientFrames(SECRET, new Message.Lookup("node1"));
        for (int len = 1; len < good.length; len++) {
            WireChannel server = serverReading(Arrays.copyOf(good, len), WireChannel.DEFAULT_MAX_BODY);
            assertThrows(WireException.class, server::receive);
        }
    }

    @Test
    void anOversizedLengthIsRejectedBeforeTheBodyIsRead() throws IOException {
        // a header announcing 2 GiB, followed by nothing: must fail on the length, not try to allocate or read it
        byte[] header = WireChannel.header(MessageCodec.EXEC, 0, Integer.MAX_VALUE);
        WireException e = assertThrows(WireException.class, () -> serverReading(header, 1024).receive());
        assertTrue(e.getMessage().contains("exceeds"), e.getMessage());
    }

    @Test
    void aMessageLargerThanTheLimitIsNotSent() {
        WireChannel c = WireChannel.ofStreams(new java.io.ByteArrayInputStream(new byte[0]), new ByteArrayOutputStream(),
                SECRET, false, SERVER_NONCE, CLIENT_NONCE, 100);
        assertThrows(WireException.class, () -> c.send(new Message.Exec(1, "x".repeat(200))));
    }

    @Test
    void aFrameReplayedWithinTheConnectionIsRejected() throws IOException {
        byte[] one = clientFrames(SECRET, new Message.Exec(7, "orted"));
        byte[] twice = new byte[one.length * 2];
        System.arraycopy(one, 0, twice, 0, one.length);
        System.arraycopy(one, 0, twice, one.length, one.length);
        WireChannel server = serverReading(twice, WireChannel.DEFAULT_MAX_BODY);
        assertEquals(new Message.Exec(7, "orted"), server.receive());
        WireException e = assertThrows(WireException.class, server::receive);
        assertTrue(e.getMessage().contains("replay"), e.getMessage());
    }

    @Test
    void aFrameRecordedOnAnotherConnectionIsRejected() throws IOException {
        byte[] recorded = framesWith(SECRET, nonce(9), CLIENT_NONCE, new Message.Exec(7, "orted"));
        WireException e = assertThrows(WireException.class,
                () -> serverReading(recorded, WireChannel.DEFAULT_MAX_BODY).receive());
        assertTrue(e.getMessage().contains("MAC"), e.getMessage());
    }

    @Test
    void aFrameReflectedBackToItsSenderIsRejected() throws IOException {
        byte[] fromClient = clientFrames(SECRET, new Message.Ping("x"));
        WireChannel client = WireChannel.ofStreams(new java.io.ByteArrayInputStream(fromClient),
                new ByteArrayOutputStream(), SECRET, false, SERVER_NONCE, CLIENT_NONCE, WireChannel.DEFAULT_MAX_BODY);
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
    void handshakeOverLoopbackConnectsBothWaysAndRejectsAWrongSecret() throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Message> got = CompletableFuture.supplyAsync(() -> {
                try (Socket s = ss.accept(); WireChannel c = WireChannel.accept(s, SECRET, 4096)) {
                    Message m = c.receive();
                    c.send(new Message.Pong("server"));
                    return m;
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            try (Socket s = new Socket(ss.getInetAddress(), ss.getLocalPort());
                    WireChannel c = WireChannel.connect(s, SECRET, 4096)) {
                c.send(new Message.Ping("client"));
                assertEquals(new Message.Pong("server"), c.receive());
            }
            assertEquals(new Message.Ping("client"), got.get(30, TimeUnit.SECONDS));

            CompletableFuture<Exception> refused = CompletableFuture.supplyAsync(() -> {
                try (Socket s = ss.accept(); WireChannel c = WireChannel.accept(s, SECRET, 4096)) {
                    c.receive();
                    return null;
                } catch (Exception e) {
                    return e;
                }
            });
            try (Socket s = new Socket(ss.getInetAddress(), ss.getLocalPort());
                    WireChannel c = WireChannel.connect(s, OTHER, 4096)) {
                c.send(new Message.Exec(1, "touch /tmp/pwned"));
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
