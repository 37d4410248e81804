package org.troika.worker.elastic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.wire.ElasticMessage;
import org.troika.wire.Protocol;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;
import org.troika.wire.WireServer;

class DriverReporterTest {
    @TempDir
    Path tmp;

    /** A driver's notifier that notes every event (after a pause, so an unwaited leave would be seen). */
    static WireServer<ElasticMessage> driver(Secret key, List<ElasticMessage> noted, boolean refuse) throws Exception {
        return WireServer.start("test-notifier", Protocol.ELASTIC, key, List.of(InetAddress.getLoopbackAddress()),
                WireServer.Limits.DEFAULT, (WireChannel<ElasticMessage> ch, ElasticMessage first) -> {
                    for (ElasticMessage m = first; ; m = ch.receive()) {
                        if (refuse) {
                            ch.send(new ElasticMessage.Refused("not this generation"));
                            return;
                        }
                        try {
                            Thread.sleep(100);
                        } catch (InterruptedException e) {
                            return;
                        }
                        noted.add(m);
                        ch.send(new ElasticMessage.Noted());
                    }
                });
    }

    Map<String, String> env(WireServer<?> driver, Secret key) throws Exception {
        Path file = tmp.resolve("worker.key");
        Files.writeString(file, key.encode());
        return Map.of("TROIKA_WORKER_ADDR", driver.endpoints().get(0).toString(), "TROIKA_WORKER_SECRET_FILE",
                file.toString());
    }

    @Test
    void eventsArriveInOrderAndLeaveReturnsOnlyOnceTheDriverNotedThem() throws Exception {
        Secret key = Secret.generate();
        List<ElasticMessage> noted = new CopyOnWriteArrayList<>();
        try (WireServer<ElasticMessage> d = driver(key, noted, false)) {
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
        try (WireServer<ElasticMessage> d = driver(key, noted, false)) {
            DriverReporter r = DriverReporter.fromEnvironment(Map.of("TROIKA_WORKER_ADDR",
                    d.endpoints().get(0).toString(), "TROIKA_WORKER_KEY", key.encode()));
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
            try (WireServer<ElasticMessage> d = driver(key, new CopyOnWriteArrayList<>(), true)) {
                DriverReporter r = DriverReporter.fromEnvironment(env(d, key));
                r.report(ElasticWorld.shrunk(1, 1, new int[] {0}));
                r.leave(1, 0, 0);
            }
            assertEquals(1, err.toString(StandardCharsets.UTF_8).lines().count(), err::toString);
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("refused"), err::toString);
            err.reset();
            try (WireServer<ElasticMessage> d = driver(Secret.generate(), new CopyOnWriteArrayList<>(), false)) {
                DriverReporter.fromEnvironment(env(d, key)).leave(1, 0, 0); // the wrong key: the hello fails
            }
            assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("troika elastic: cannot report"), err::toString);
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
