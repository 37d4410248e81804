package org.troika.launcher.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.troika.wire.ElasticMessage;
import org.troika.wire.Protocol;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;

class WorkerNotifierTest {
    final Secret job = Secret.generate();
    final Secret worker = WorkerNotifier.workerKey(job);

    @Test
    void rankZeroRegistersAndGetsAnnouncementsMadeBeforeAndAfter() throws Exception {
        try (WorkerNotifier n = new WorkerNotifier(worker, InetAddress.getLoopbackAddress(), 4)) {
            n.announce(100, 1);
            n.announce(200, 2);
            assertFalse(n.registered());
            try (WireChannel<ElasticMessage> ch = WireChannel.connectAny(List.of(n.endpoint()), Protocol.ELASTIC, worker,
                    30_000)) {
                ch.send(WorkerNotifier.registration(4));
                assertEquals(new ElasticMessage.Subscribed(), ch.receive());
                assertEquals(new ElasticMessage.HostsChanged(200, 3), ch.receive());
                assertTrue(n.registered());
                n.announce(300, 2);
                assertEquals(new ElasticMessage.HostsChanged(300, 2), ch.receive());
            }
        }
    }

    @Test
    void theJobSecretDoesNotOpenTheServiceAndTheWorkerKeyIsNotTheJobSecret() throws Exception {
        assertFalse(worker.equals(job));
        try (WorkerNotifier n = new WorkerNotifier(worker, InetAddress.getLoopbackAddress(), 1)) {
            WireChannel<ElasticMessage> ch = WireChannel.connectAny(List.of(n.endpoint()), Protocol.ELASTIC, job,
                    30_000);
            try {
                ch.send(WorkerNotifier.registration(1));
                assertThrows(IOException.class, ch::receive);
            } finally {
                ch.close();
            }
            assertFalse(n.registered());
        }
    }

    @Test
    void anotherGenerationsRankIsRefused() throws Exception {
        try (WorkerNotifier n = new WorkerNotifier(worker, InetAddress.getLoopbackAddress(), 2)) {
            try (WireChannel<ElasticMessage> ch = WireChannel.connectAny(List.of(n.endpoint()), Protocol.ELASTIC, worker,
                    30_000)) {
                ch.send(WorkerNotifier.registration(1));
                assertInstanceOf(ElasticMessage.Refused.class, ch.receive());
            }
            assertFalse(n.registered());
        }
    }

    @Test
    void connectionsThatNeverSendAByteOrTrickleAreClosedWithinSeconds() throws Exception {
        try (WorkerNotifier n = new WorkerNotifier(worker, InetAddress.getLoopbackAddress(), 5)) {
            org.troika.testkit.Flooder.Report r = org.troika.testkit.Flooder.run(
                    new java.net.InetSocketAddress(n.endpoint().address(), n.endpoint().port()), 20, 10,
                    java.time.Duration.ofSeconds(60), List.of());
            assertEquals(30, r.opened(), r.line());
            assertEquals(0, r.open(), r.line());
            assertTrue(r.maxCloseMillis() < 10_000, r.line());
            assertFalse(n.registered());
        }
    }

    @Test
    void rankEventsOfTheGenerationReachTheListenerBeforeTheRankIsAnswered() throws Exception {
        java.util.concurrent.BlockingQueue<ElasticMessage> got = new java.util.concurrent.LinkedBlockingQueue<>();
        try (WorkerNotifier n = new WorkerNotifier(worker, InetAddress.getLoopbackAddress(), 3, 4, got::add)) {
            try (WireChannel<ElasticMessage> ch = WireChannel.connectAny(List.of(n.endpoint()), Protocol.ELASTIC, worker,
                    30_000)) {
                ElasticMessage.WorldChanged w = new ElasticMessage.WorldChanged(3, 1, List.of(0, 2, 3), List.of(),
                        List.of());
                ch.send(w);
                assertEquals(new ElasticMessage.Noted(), ch.receive());
                assertEquals(w, got.poll(), "delivered before the answer");
                ch.send(new ElasticMessage.RankLeft(3, 2, 0));
                assertEquals(new ElasticMessage.Noted(), ch.receive());
                assertEquals(new ElasticMessage.RankLeft(3, 2, 0), got.poll());
                // anything but an event of this generation ends the connection, unheard
                ch.send(new ElasticMessage.RankLeft(2, 1, 0));
                assertInstanceOf(ElasticMessage.Refused.class, ch.receive());
            }
            assertTrue(got.isEmpty(), got::toString);
            assertFalse(n.registered(), "an event is not rank 0's registration");
        }
    }

    @Test
    void eventsOfAnotherGenerationOrUnderTheJobSecretOrAnotherKeyAreNeverHeard() throws Exception {
        java.util.List<ElasticMessage> got = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (WorkerNotifier n = new WorkerNotifier(worker, InetAddress.getLoopbackAddress(), 3, 4, got::add)) {
            try (WireChannel<ElasticMessage> ch = WireChannel.connectAny(List.of(n.endpoint()), Protocol.ELASTIC, worker,
                    30_000)) {
                ch.send(new ElasticMessage.WorldChanged(2, 1, List.of(0), List.of(), List.of()));
                assertInstanceOf(ElasticMessage.Refused.class, ch.receive());
            }
            for (Secret wrong : List.of(job, Secret.generate(),
                    org.troika.launcher.watchdog.ProgressService.progressKey(job))) {
                WireChannel<ElasticMessage> ch = WireChannel.connectAny(List.of(n.endpoint()), Protocol.ELASTIC, wrong,
                        30_000);
                try {
                    ch.send(new ElasticMessage.RankLeft(3, 1, 0));
                    assertThrows(IOException.class, ch::receive);
                } finally {
                    ch.close();
                }
            }
            assertEquals(List.of(), got);
        }
    }

    @Test
    void everyRankOfALargeGenerationCanReportItsLeaveAtOnce() throws Exception {
        int size = 48;
        java.util.Set<Integer> left = java.util.concurrent.ConcurrentHashMap.newKeySet();
        try (WorkerNotifier n = new WorkerNotifier(worker, InetAddress.getLoopbackAddress(), 1, size,
                e -> left.add(((ElasticMessage.RankLeft) e).rank()))) {
            java.util.List<java.util.concurrent.CompletableFuture<ElasticMessage>> answers = new java.util.ArrayList<>();
            java.util.concurrent.ExecutorService ranks = java.util.concurrent.Executors.newFixedThreadPool(size);
            for (int r = 0; r < size; r++) {
                int rank = r;
                answers.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try (WireChannel<ElasticMessage> ch = WireChannel.connectAny(List.of(n.endpoint()),
                            Protocol.ELASTIC, worker, 30_000)) {
                        ch.send(new ElasticMessage.RankLeft(1, rank, 0));
                        return ch.receive();
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }, ranks));
            }
            ranks.shutdown();
            for (var a : answers) {
                assertEquals(new ElasticMessage.Noted(), a.get(60, java.util.concurrent.TimeUnit.SECONDS));
            }
            assertEquals(size, left.size());
        }
    }
    /**
     * Issue 23: every rank of a generation reports its leave at about the same moment, so all of them may be between
     * connect and hello at once. With those bounded at 256, 8,208 of 10,000 simulated leaving ranks were answered busy
     * until their 5 s ran out (bench/scale.sh). Here 600 ranks, 8 from each of 75 hosts (loopback addresses), connect
     * and wait: every one gets the service's hello, none the busy one.
     */
    @Test
    void noRankIsAnsweredBusyWhileTheWholeGenerationConnects() throws Exception {
        int size = 600;
        List<java.net.Socket> open = new java.util.ArrayList<>();
        try (WorkerNotifier n = new WorkerNotifier(worker, InetAddress.getLoopbackAddress(), 3, size, e -> { })) {
            try {
                for (int r = 0; r < size; r++) {
                    java.net.Socket s = new java.net.Socket();
                    open.add(s);
                    int host = r / 8 + 1;
                    s.bind(new java.net.InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 9, (byte) host}),
                            0));
                    s.connect(new java.net.InetSocketAddress(n.endpoint().address(), n.endpoint().port()), 10_000);
                }
                for (int r = 0; r < size; r++) {
                    java.net.Socket s = open.get(r);
                    s.setSoTimeout(10_000);
                    byte[] hello = s.getInputStream().readNBytes(4);
                    assertEquals(4, hello.length, "rank " + r + " got no hello");
                    assertEquals("TK", new String(hello, 0, 2, java.nio.charset.StandardCharsets.US_ASCII));
                    assertTrue(hello[3] != (byte) 0xFE, "rank " + r + " was answered busy (0xFE)");
                }
            } finally {
                for (java.net.Socket s : open) {
                    s.close();
                }
            }
        }
    }

    /**
     * Issue 23: the notifier serves every rank's connection in event mode. 300 ranks that reported and keep their
     * connections open cost it its selector thread and one listener thread; a thread per connection (as before) would
     * be 300 threads here and 10,000 at that many ranks.
     */
    @Test
    void manyRanksConnectedAtOnceCostTheServiceTwoThreadsNotOnePerRank() throws Exception {
        int size = 300;
        int generation = 7;
        java.util.Set<Integer> left = java.util.concurrent.ConcurrentHashMap.newKeySet();
        List<WireChannel<ElasticMessage>> open = new java.util.ArrayList<>();
        try (WorkerNotifier n = new WorkerNotifier(worker, InetAddress.getLoopbackAddress(), generation, size,
                e -> left.add(((ElasticMessage.RankLeft) e).rank()))) {
            try {
                for (int r = 0; r < size; r++) {
                    WireChannel<ElasticMessage> ch = WireChannel.connectAny(List.of(n.endpoint()), Protocol.ELASTIC,
                            worker, 30_000);
                    open.add(ch);
                    ch.send(new ElasticMessage.RankLeft(generation, r, 0));
                    assertEquals(new ElasticMessage.Noted(), ch.receive());
                }
                assertEquals(size, left.size());
                long threads = Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().startsWith("troika-worker-notifier-" + generation)).count();
                assertTrue(threads <= 3, "threads of the notifier with " + size + " ranks connected: " + threads);
            } finally {
                for (WireChannel<ElasticMessage> ch : open) {
                    ch.close();
                }
            }
        }
    }
}
