package org.troika.worker.elastic;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
                    List.of(Endpoint.of((InetSocketAddress) server.getLocalSocketAddress())), key, 3);
            try {
                Optional<HostChange> got = source.poll();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (got.isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                    got = source.poll();
                }
                assertEquals(Optional.of(new HostChange(1234L, true, false)), got);
                assertTrue(source.poll().isEmpty(), "an announcement is polled once");
            } finally {
                source.close();
            }
            assertEquals(new ElasticMessage.Subscribe(3), registration.get(60, TimeUnit.SECONDS));
        }
    }
}
