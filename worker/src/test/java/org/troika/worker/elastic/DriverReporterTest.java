package org.troika.worker.elastic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.wire.Datagrams;
import org.troika.wire.ElasticMessage;
import org.troika.wire.Protocol;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;
import org.troika.wire.WireServer;

class DriverReporterTest {
    @TempDir
    Path tmp;

    /**
     * A driver's notifier that notes every event after a pause (so an unwaited leave would be seen): connections on a
     * WireServer, datagrams on a UDP socket of the same port number, as troika's WorkerNotifier. It leaves the first
     * {@code ignored} datagrams unanswered (lost answers: the rank must send again).
     */
    static final class Driver implements AutoCloseable {
        final WireServer<ElasticMessage> server;
        final DatagramSocket socket;
        final Thread thread;
        final java.util.concurrent.atomic.AtomicInteger datagrams = new java.util.concurrent.atomic.AtomicInteger();

        Driver(Secret key, List<ElasticMessage> noted, boolean refuse, int ignored) throws Exception {
            server = WireServer.start("test-notifier", Protocol.ELASTIC, key, List.of(InetAddress.getLoopbackAddress()),
                    WireServer.Limits.DEFAULT, (WireChannel<ElasticMessage> ch, ElasticMessage first) -> {
                        for (ElasticMessage m = first; ; m = ch.receive()) {
                            if (refuse) {
                                ch.send(new ElasticMessage.Refused("not this generation"));
                                return;
                            }
                            pause();
                            noted.add(m);
                            ch.send(new ElasticMessage.Noted());
                        }
                    });
            socket = new DatagramSocket(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(),
                    server.endpoints().get(0).port()));
            Datagrams.Opener<ElasticMessage> opener = new Datagrams.Opener<>(Protocol.ELASTIC, key, 16);
            Datagrams.Sealer<ElasticMessage> answers = new Datagrams.Sealer<>(Protocol.ELASTIC, key);
            thread = new Thread(() -> {
                DatagramPacket p = new DatagramPacket(new byte[2048], 2048);
                while (!socket.isClosed()) {
                    try {
                        socket.receive(p);
                        if (datagrams.incrementAndGet() <= ignored) {
                            continue;
                        }
                        ElasticMessage reply;
                        try {
                            Datagrams.Opened<ElasticMessage> o = opener.open(p.getData(), 0, p.getLength());
                            pause();
                            noted.add(o.message());
                            reply = refuse ? new ElasticMessage.Refused("not this generation")
                                    : new ElasticMessage.NotedDatagram(o.sender(), o.seq());
                        } catch (Datagrams.Repeated r) {
                            reply = new ElasticMessage.NotedDatagram(r.sender(), r.seq());
                        } catch (org.troika.wire.WireException e) {
                            continue;
                        }
                        byte[] d = answers.seal(reply);
                        socket.send(new DatagramPacket(d, d.length, p.getSocketAddress()));
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            });
            thread.start();
        }

        String address() {
            return server.endpoints().get(0).toString();
        }

        private static void pause() {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void close() throws Exception {
            server.close();
            socket.close();
            thread.join(5_000);
        }
    }

    static Driver driver(Secret key, List<ElasticMessage> noted, boolean refuse) throws Exception {
        return new Driver(key, noted, refuse, 0);
    }

    Map<String, String> env(Driver driver, Secret key) throws Exception {
        Path file = tmp.resolve("worker.key");
        Files.writeString(file, key.encode());
        return Map.of("TROIKA_WORKER_ADDR", driver.address(), "TROIKA_WORKER_SECRET_FILE", file.toString());
    }

    /** A leave whose datagrams or answers get lost is sent again until it is noted, and noted once. */
    @Test
    void aLeaveIsSentAgainUntilTheDriverNotesItAndIsNotedOnce() throws Exception {
        Secret key = Secret.generate();
        List<ElasticMessage> noted = new CopyOnWriteArrayList<>();
        try (Driver d = new Driver(key, noted, false, 3)) {
            long t0 = System.nanoTime();
            DriverReporter.fromEnvironment(env(d, key)).leave(4, 2, 75);
            assertEquals(List.of(new ElasticMessage.RankLeft(4, 2, 75)), noted);
            assertEquals(4, d.datagrams.get(), "three lost, the fourth noted");
            assertTrue(System.nanoTime() - t0 < 4_000_000_000L, "pauses 50-100, 100-200, 200-400 ms");
        }
    }

    /**
     * A rank without an {@code ElasticWorld} (relaunch only) reports how it leaves {@code Elastic.run} too: 75 after a
     * host change (the driver then starts the next generation without waiting for mpirun), 1 when the body threw
     * (which still propagates); the report is noted before {@code run} returns.
     */
    @Test
    void aRankWithoutAWorldReportsItsLeaveWithItsCode() throws Exception {
        Secret key = Secret.generate();
        List<ElasticMessage> noted = new CopyOnWriteArrayList<>();
        // rank 2 of 4 below: rank 0's commit comes by the broadcast
        ObjectState first = new ObjectState(new ElasticContext(0, 0, 4, 7, bytes -> bytes,
                new InMemoryHostUpdateSource(), new NodeStateStore(tmp.resolve("nodes0"), "job")), Map.of("step", 0));
        first.save();
        byte[] rank0 = first.encodeCommitted();
        StateBroadcaster fromRank0 = bytes -> rank0;
        try (Driver d = driver(key, noted, false)) {
            InMemoryHostUpdateSource updates = new InMemoryHostUpdateSource();
            ObjectState s = new ObjectState(new ElasticContext(0, 0, 1, 7, bytes -> bytes, updates,
                    new NodeStateStore(tmp.resolve("nodes"), "job")), Map.of("step", 0));
            assertEquals(75, Elastic.runReportingTo(s, DriverReporter.fromEnvironment(env(d, key)), st -> {
                updates.announce(new HostChange(1L, true, false));
                st.commit();
            }));
            assertEquals(List.of(new ElasticMessage.RankLeft(7, 0, 75)), noted);

            ObjectState t = new ObjectState(new ElasticContext(2, 0, 4, 8, fromRank0,
                    new InMemoryHostUpdateSource(), new NodeStateStore(tmp.resolve("nodes"), "job")), Map.of("step", 0));
            org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> Elastic.runReportingTo(t,
                    DriverReporter.fromEnvironment(env(d, key)), st -> {
                        throw new IllegalStateException("bad batch");
                    }));
            assertEquals(new ElasticMessage.RankLeft(8, 2, 1), noted.get(1));
        }
        assertEquals(2, noted.size(), noted::toString);
        // no driver (a job troika's driver did not launch): nothing is reported and the code is the same
        ObjectState u = new ObjectState(new ElasticContext(0, 0, 1, 1, bytes -> bytes,
                new InMemoryHostUpdateSource(), new NodeStateStore(tmp.resolve("nodes"), "job")), Map.of("step", 0));
        assertEquals(0, Elastic.runReportingTo(u, DriverReporter.none(), st -> { }));
        assertEquals(2, noted.size(), "nothing more reported");
    }

    @Test
    void eventsArriveInOrderAndLeaveReturnsOnlyOnceTheDriverNotedThem() throws Exception {
        Secret key = Secret.generate();
        List<ElasticMessage> noted = new CopyOnWriteArrayList<>();
        try (Driver d = driver(key, noted, false)) {
            DriverReporter r = DriverReporter.fromEnvironment(env(d, key));
            ElasticMessage.WorldChanged w = ElasticWorld.shrunk(2, 1, new int[] {0, 2, 3});
            r.report(w);
            r.leave(2, 3, 76);
            assertEquals(List.of(w, new ElasticMessage.RankLeft(2, 3, 76)), noted);
            r.report(w); // after the leave: nothing more goes out, nothing throws
        }
    }

    /**
     * Issue 21.4: ranks srun started have no key file on their host (no task service ran there); the key comes in
     * TROIKA_WORKER_KEY with srun's environment, and their events reach the driver the same way.
     */
    @Test
    void theKeyInTheEnvironmentOpensTheSameChannelAsTheKeyFile() throws Exception {
        Secret key = Secret.generate();
        List<ElasticMessage> noted = new CopyOnWriteArrayList<>();
        try (Driver d = driver(key, noted, false)) {
            DriverReporter r = DriverReporter.fromEnvironment(Map.of("TROIKA_WORKER_ADDR", d.address(),
                    "TROIKA_WORKER_KEY", key.encode()));
            r.leave(3, 1, 75);
            assertEquals(List.of(new ElasticMessage.RankLeft(3, 1, 75)), noted);
        }
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            DriverReporter.fromEnvironment(Map.of("TROIKA_WORKER_ADDR", "127.0.0.1:9", "TROIKA_WORKER_KEY",
                    "not base64!")).leave(1, 0, 0);
        } finally {
            System.setErr(saved);
        }
        String line = err.toString(StandardCharsets.UTF_8);
        assertTrue(line.startsWith("troika elastic: the worker key in TROIKA_WORKER_KEY is malformed"), line);
        assertFalse(line.contains("not base64!"), "the value is never printed: " + line);
    }

    @Test
    void aRefusingOrUnreachableDriverOrAMissingKeyIsOneLineAndTheRankGoesOn() throws Exception {
        Secret key = Secret.generate();
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            try (Driver d = driver(key, new CopyOnWriteArrayList<>(), true)) {
                DriverReporter r = DriverReporter.fromEnvironment(env(d, key));
                r.report(ElasticWorld.shrunk(1, 1, new int[] {0}));
                r.leave(1, 0, 0);
            }
            assertEquals(1, err.toString(StandardCharsets.UTF_8).lines().count(), err::toString);
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("refused"), err::toString);
            err.reset();
            try (Driver d = driver(Secret.generate(), new CopyOnWriteArrayList<>(), false)) {
                // the wrong key: the datagrams are dropped unanswered, so the leave is never noted
                DriverReporter.fromEnvironment(env(d, key)).leave(1, 0, 0);
            }
            assertEquals(1, err.toString(StandardCharsets.UTF_8).lines().count(), err::toString);
            assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("troika elastic: ")
                    && err.toString(StandardCharsets.UTF_8).contains("within 5000 ms"), err::toString);
            err.reset();
            // nothing listens on the port: the kernel says so, and the rank does not wait its 5 s
            int closedPort;
            try (DatagramSocket gone = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
                closedPort = gone.getLocalPort();
            }
            long t0 = System.nanoTime();
            Path file = tmp.resolve("worker.key");
            DriverReporter.fromEnvironment(Map.of("TROIKA_WORKER_ADDR", "127.0.0.1:" + closedPort,
                    "TROIKA_WORKER_SECRET_FILE", file.toString())).leave(1, 0, 0);
            assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("troika elastic: cannot report"), err::toString);
            assertTrue(System.nanoTime() - t0 < 3_000_000_000L, "not the whole 5 s");
            err.reset();
            DriverReporter.fromEnvironment(Map.of("TROIKA_WORKER_ADDR", "127.0.0.1:9")).leave(1, 0, 0);
            assertTrue(err.toString(StandardCharsets.UTF_8).startsWith(
                    "troika elastic: TROIKA_WORKER_SECRET_FILE is not set;"), err::toString);
        } finally {
            System.setErr(saved);
        }
        assertSame(DriverReporter.none(), DriverReporter.fromEnvironment(Map.of()));
    }
}
