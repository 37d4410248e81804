package org.troika.worker.elastic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.wire.ElasticMessage;
import org.troika.wire.Endpoint;
import org.troika.wire.Protocol;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;

class DriverHostUpdateSourceTest {
    @TempDir
    Path tmp;

    @Test
    void onlyRankZeroWithBothVariablesListensToTheDriver() throws Exception {
        Path key = Files.writeString(tmp.resolve("key"), Secret.generate().encode());
        Map<String, String> env = Map.of("TROIKA_WORKER_ADDR", "127.0.0.1:9", "TROIKA_WORKER_SECRET_FILE", key.toString());
        assertTrue(DriverHostUpdateSource.fromEnvironment(env, 0, 1) instanceof DriverHostUpdateSource);
        assertTrue(DriverHostUpdateSource.fromEnvironment(env, 1, 1).poll().isEmpty());
        assertTrue(DriverHostUpdateSource.fromEnvironment(Map.of(), 0, 1).poll().isEmpty());
    }

    @Test
    void aSpawnedRankIsNoRankZeroWhateverItsRankInItsSpawn() {
        // rank 0 of its spawn, no key on its host: before stop 54 it got a listening source under id 0, whose check
        // would have aborted the grown world
        Map<String, String> env = Map.of("TROIKA_WORKER_ADDR", "127.0.0.1:9", "TROIKA_ELASTIC_JOIN_ID", "2",
                "TROIKA_WORKER_SECRET_FILE", tmp.resolve("none").toString());
        HostUpdateSource s = DriverHostUpdateSource.fromEnvironment(env, 0, 1);
        assertSame(HostUpdateSource.none(), s);
        s.check();
    }

    @Test
    void aRankZeroWhoseKeyIsNotOnItsHostFailsAtOnceNamingRankHostAndCause() {
        // the launcher's path, which does not exist on this host: before issue 10 this threw out of the context's
        // construction, and the rank's MPI_Finalize then hung with its peers waiting in the first broadcast
        Map<String, String> env = Map.of("TROIKA_WORKER_ADDR", "127.0.0.1:9", "TROIKA_HOSTNAME", "node7",
                "TROIKA_WORKER_SECRET_FILE", tmp.resolve("launcher-only/secret").toString());
        HostUpdateSource s = DriverHostUpdateSource.fromEnvironment(env, 0, 1);
        ElasticStartFailure e = org.junit.jupiter.api.Assertions.assertThrows(ElasticStartFailure.class, s::check);
        assertTrue(e.getMessage().startsWith("rank 0 on host node7 cannot read the worker key TROIKA_WORKER_SECRET_FILE="),
                e.getMessage());
        assertTrue(e.getMessage().contains("NoSuchFileException"), e.getMessage());
        assertEquals(1, e.getMessage().lines().count());
        Map<String, String> noKey = Map.of("TROIKA_WORKER_ADDR", "127.0.0.1:9", "TROIKA_HOSTNAME", "node7");
        ElasticStartFailure none = org.junit.jupiter.api.Assertions.assertThrows(ElasticStartFailure.class,
                DriverHostUpdateSource.fromEnvironment(noKey, 0, 1)::check);
        assertTrue(none.getMessage().startsWith("rank 0 on host node7 has no worker key"), none.getMessage());
    }

    @Test
    void aRankZeroThatCannotRegisterFailsItsNextPollInsteadOfTrainingWithoutHostUpdates() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        DriverHostUpdateSource source = new DriverHostUpdateSource(List.of(new Endpoint("127.0.0.1", closedPort)),
                Secret.generate(), 2, "rank 0 on host h1");
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            ElasticStartFailure failed = null;
            while (failed == null && System.nanoTime() < deadline) {
                try {
                    source.poll();
                    Thread.sleep(20);
                } catch (ElasticStartFailure e) {
                    failed = e;
                }
            }
            assertTrue(failed != null, "poll never failed");
            assertTrue(failed.getMessage().startsWith("rank 0 on host h1 cannot register with the driver at 127.0.0.1:"
                    + closedPort + ": "), failed.getMessage());
        } finally {
            source.close();
        }
    }

    @Test
    void aRankTakingOverSubscribesAtOnceUnderItsIdAndAFailureIsOneLineNotTheGenerationsEnd() throws Exception {
        Secret key = Secret.generate();
        Path keyFile = Files.writeString(tmp.resolve("key"), key.encode());
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<ElasticMessage> registration = new CompletableFuture<>();
            CompletableFuture.supplyAsync(() -> {
                try (Socket s = server.accept();
                        WireChannel<ElasticMessage> ch = WireChannel.accept(s, Protocol.ELASTIC, key, 256)) {
                    ElasticMessage first = ch.receive();
                    registration.complete(first);
                    ch.send(new ElasticMessage.Subscribed());
                    ch.send(new ElasticMessage.HostsChanged(99L, 1));
                    try {
                        ch.receive();
                    } catch (java.io.IOException closed) {
                        // expected
                    }
                    return first;
                } catch (java.io.IOException e) {
                    return null;
                }
            });
            Map<String, String> env = Map.of("TROIKA_WORKER_ADDR", "127.0.0.1:" + server.getLocalPort(),
                    "TROIKA_WORKER_SECRET_FILE", keyFile.toString());
            HostUpdateSource source = DriverHostUpdateSource.takingOver(env, 2, 5);
            try {
                // subscribed before any poll: the driver holds what it announced since the old rank 0 went
                assertEquals(new ElasticMessage.Subscribe(5, 2), registration.get(60, TimeUnit.SECONDS));
                assertEquals(Optional.of(new HostChange(99L, false, true)), firstChange(source));
            } finally {
                ((AutoCloseable) source).close();
            }
        }
        // a driver that cannot be reached: polls stay empty (the driver relaunches at its next change), no failure
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        HostUpdateSource unreachable = DriverHostUpdateSource.takingOver(Map.of("TROIKA_WORKER_ADDR",
                "127.0.0.1:" + closedPort, "TROIKA_WORKER_SECRET_FILE", keyFile.toString()), 1, 5);
        try {
            for (int i = 0; i < 50; i++) {
                assertTrue(unreachable.poll().isEmpty());
                unreachable.check();
                Thread.sleep(20);
            }
        } finally {
            ((AutoCloseable) unreachable).close();
        }
        // no key on this host, or no driver: no source at all
        assertTrue(DriverHostUpdateSource.takingOver(Map.of("TROIKA_WORKER_ADDR", "127.0.0.1:9",
                "TROIKA_WORKER_SECRET_FILE", tmp.resolve("missing").toString()), 1, 5) == HostUpdateSource.none());
        assertTrue(DriverHostUpdateSource.takingOver(Map.of(), 1, 5) == HostUpdateSource.none());
    }

    @Test
    void rankZeroRegistersAtItsFirstPollAndReceivesTheDriversAnnouncement() throws Exception {
        Secret key = Secret.generate();
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<ElasticMessage> registration = CompletableFuture.supplyAsync(() -> {
                try (Socket s = server.accept();
                        WireChannel<ElasticMessage> ch = WireChannel.accept(s, Protocol.ELASTIC, key, 256)) {
                    ElasticMessage first = ch.receive();
                    ch.send(new ElasticMessage.Subscribed());
                    ch.send(new ElasticMessage.HostsChanged(1234L, 2));
                    try {
                        ch.receive(); // until the client closes
                    } catch (java.io.IOException closed) {
                        // expected
                    }
                    return first;
                } catch (java.io.IOException e) {
                    return null;
                }
            });
            DriverHostUpdateSource source = new DriverHostUpdateSource(
                    List.of(Endpoint.of((InetSocketAddress) server.getLocalSocketAddress())), key, 3, "rank 0 on host h");
            try {
                assertEquals(Optional.of(new HostChange(1234L, true, false)), firstChange(source));
                assertTrue(source.poll().isEmpty(), "an announcement is polled once");
                assertTrue(source.listening(), "still reading the driver's announcements");
            } finally {
                source.close();
            }
            // a thread blocked in a socket read keeps the JVM from exiting for ~300 ms: close() returns after it left
            assertFalse(source.listening(), "the reader thread ended with close()");
            assertEquals(new ElasticMessage.Subscribe(3, 0), registration.get(60, TimeUnit.SECONDS));
        }
    }

    /** Polls {@code source} until it announces a change (at most 60 s). */
    private static Optional<HostChange> firstChange(HostUpdateSource source) throws InterruptedException {
        Optional<HostChange> got = source.poll();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (got.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
            got = source.poll();
        }
        return got;
    }
}
