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
import org.troika.wire.Datagrams;
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
    void aLaterRankZeroTakesOverAndGetsWhatWasHeldForIt() throws Exception {
        try (WorkerNotifier n = new WorkerNotifier(worker, InetAddress.getLoopbackAddress(), 4)) {
            assertEquals(-1, n.listener());
            try (WireChannel<ElasticMessage> first = WireChannel.connectAny(List.of(n.endpoint()), Protocol.ELASTIC,
                    worker, 30_000)) {
                first.send(WorkerNotifier.registration(4));
                assertEquals(new ElasticMessage.Subscribed(), first.receive());
                assertEquals(0, n.listener());
                var change = new ElasticMessage.ChangeWorld(1, List.of(3), List.of(), 4, List.of());
                assertEquals(0, n.changeWorld(change));
                assertEquals(change, first.receive());
                // the launcher learnt that rank 0 is gone: what it announces now waits for the next rank 0, even
                // though the old connection is still open
                n.hold(500, 1);
                try (WireChannel<ElasticMessage> next = WireChannel.connectAny(List.of(n.endpoint()),
                        Protocol.ELASTIC, worker, 30_000)) {
                    next.send(WorkerNotifier.registration(4, 2));
                    assertEquals(new ElasticMessage.Subscribed(), next.receive());
                    assertEquals(new ElasticMessage.HostsChanged(500, 1), next.receive());
                    assertEquals(2, n.listener());
                    // the older subscription was closed: it gets nothing more
                    assertThrows(IOException.class, first::receive);
                    n.announce(600, 2);
                    assertEquals(new ElasticMessage.HostsChanged(600, 2), next.receive());
                }
            }
        }
    }

    @Test
    void aRegistrationWithoutARankIdIsRefused() throws Exception {
        try (WorkerNotifier n = new WorkerNotifier(worker, InetAddress.getLoopbackAddress(), 2)) {
            try (WireChannel<ElasticMessage> ch = WireChannel.connectAny(List.of(n.endpoint()), Protocol.ELASTIC, worker,
                    30_000)) {
                ch.send(WorkerNotifier.registration(2, -1));
                assertInstanceOf(ElasticMessage.Refused.class, ch.receive());
            }
            assertFalse(n.registered());
            assertEquals(-1, n.listener());
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
    /** Ranks of a generation leaving by datagram, as DriverReporter does: each sends its leave until it is noted. */
    static final class LeavingRanks implements AutoCloseable {
        final List<java.net.DatagramSocket> sockets = new java.util.ArrayList<>();
        final List<Datagrams.Sealer<ElasticMessage>> sealers = new java.util.ArrayList<>();
        final List<byte[]> sent = new java.util.ArrayList<>();
        final java.util.Map<Long, Integer> bySender = new java.util.HashMap<>();

        /** {@code size} ranks on {@code hosts} sockets, each host its own loopback address. */
        LeavingRanks(Secret key, int generation, int size, int hosts) throws IOException {
            for (int h = 0; h < hosts; h++) {
                java.net.DatagramSocket s = new java.net.DatagramSocket(new java.net.InetSocketAddress(
                        InetAddress.getByAddress(new byte[] {127, 0, 9, (byte) (h + 1)}), 0));
                s.setReceiveBufferSize(4 << 20);
                sockets.add(s);
            }
            for (int r = 0; r < size; r++) {
                Datagrams.Sealer<ElasticMessage> sealer = new Datagrams.Sealer<>(Protocol.ELASTIC, key);
                sealers.add(sealer);
                sent.add(sealer.seal(new ElasticMessage.RankLeft(generation, r, 0)));
                bySender.put(sealer.sender(), r);
            }
        }

        /** Sends every leave not noted yet, again every 200 ms, until all are noted or 20 s passed; the noted ranks. */
        java.util.Set<Integer> leave(WorkerNotifier n, Secret key) throws Exception {
            java.net.InetSocketAddress to = n.endpoint().socketAddress();
            java.util.Set<Integer> noted = new java.util.HashSet<>();
            List<Datagrams.Opener<ElasticMessage>> openers = new java.util.ArrayList<>();
            for (int h = 0; h < sockets.size(); h++) {
                openers.add(new Datagrams.Opener<>(Protocol.ELASTIC, key, 4));
            }
            long end = System.nanoTime() + 20_000_000_000L;
            java.net.DatagramPacket in = new java.net.DatagramPacket(new byte[2048], 2048);
            while (noted.size() < sent.size() && System.nanoTime() < end) {
                for (int r = 0; r < sent.size(); r++) {
                    if (!noted.contains(r)) {
                        sockets.get(r % sockets.size()).send(new java.net.DatagramPacket(sent.get(r),
                                sent.get(r).length, to));
                    }
                }
                long round = System.nanoTime() + 200_000_000L;
                for (int h = 0; h < sockets.size(); h++) {
                    java.net.DatagramSocket s = sockets.get(h);
                    while (true) {
                        long left = round - System.nanoTime();
                        s.setSoTimeout((int) Math.max(1, left / 1_000_000 / sockets.size()));
                        try {
                            s.receive(in);
                        } catch (java.net.SocketTimeoutException e) {
                            break;
                        }
                        try {
                            ElasticMessage m = openers.get(h).open(in.getData(), 0, in.getLength()).message();
                            ElasticMessage.NotedDatagram nd = assertInstanceOf(ElasticMessage.NotedDatagram.class, m);
                            Integer rank = bySender.get(nd.sender());
                            assertEquals(1, nd.seq());
                            assertEquals(h, rank % sockets.size(), "answered to the rank's own address");
                            noted.add(rank);
                        } catch (org.troika.wire.WireException e) {
                            // an answer repeated: already counted
                        }
                    }
                }
            }
            return noted;
        }

        @Override
        public void close() {
            for (java.net.DatagramSocket s : sockets) {
                s.close();
            }
        }
    }

    /**
     * Issue 23: every rank of a generation reports its leave at about the same moment. As connections, 10,000 hosts x
     * 8 slots would have held 80,000 descriptors on the launch node; as datagrams, the notifier holds its two sockets.
     * Here 2,000 ranks on 250 hosts (loopback addresses) leave at once: every leave is noted once, each rank gets the
     * answer to its own datagram, and repeats (ranks that did not hear the answer yet) are answered, not delivered again.
     */
    @Test
    void aWholeGenerationLeavesByDatagramAtOnceAndEachLeaveIsTakenOnce() throws Exception {
        int size = 2_000;
        java.util.List<Integer> left = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (WorkerNotifier n = new WorkerNotifier(worker, InetAddress.getLoopbackAddress(), 3, size,
                e -> left.add(((ElasticMessage.RankLeft) e).rank()));
                LeavingRanks ranks = new LeavingRanks(worker, 3, size, 250)) {
            java.util.Set<Integer> noted = ranks.leave(n, worker);
            assertEquals(size, noted.size());
            assertEquals(size, left.size(), "each leave taken once");
            assertEquals(size, new java.util.HashSet<>(left).size());
            // every rank sends its same datagram again (none heard its answer, say): each is answered again and
            // none is taken again
            assertEquals(size, ranks.leave(n, worker).size(), "every repeat answered");
            assertEquals(size, left.size());
        }
    }

    @Test
    void leavesOfAnotherGenerationAreRefusedAndForgedOnesUnanswered() throws Exception {
        java.util.List<ElasticMessage> got = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (WorkerNotifier n = new WorkerNotifier(worker, InetAddress.getLoopbackAddress(), 3, 4, got::add);
                java.net.DatagramSocket rank = new java.net.DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            rank.setSoTimeout(10_000);
            rank.connect(n.endpoint().socketAddress());
            byte[] other = new Datagrams.Sealer<>(Protocol.ELASTIC, worker).seal(new ElasticMessage.RankLeft(2, 1, 0));
            rank.send(new java.net.DatagramPacket(other, other.length));
            java.net.DatagramPacket in = new java.net.DatagramPacket(new byte[2048], 2048);
            rank.receive(in);
            assertInstanceOf(ElasticMessage.Refused.class, new Datagrams.Opener<>(Protocol.ELASTIC, worker, 1)
                    .open(in.getData(), 0, in.getLength()).message());
            for (Secret wrong : List.of(job, Secret.generate(),
                    org.troika.launcher.watchdog.ProgressService.progressKey(job))) {
                byte[] d = new Datagrams.Sealer<>(Protocol.ELASTIC, wrong).seal(new ElasticMessage.RankLeft(3, 1, 0));
                rank.send(new java.net.DatagramPacket(d, d.length));
            }
            rank.setSoTimeout(500);
            assertThrows(java.net.SocketTimeoutException.class, () -> rank.receive(in), "no answer to a forgery");
            assertEquals(List.of(), got);
        }
    }

    /**
     * Issue 23: whatever the number of leaving ranks, the notifier has the same few threads (its server's selector
     * and listener, its datagram thread, the events' thread) and accepts no connection for them.
     */
    @Test
    void manyRanksLeavingCostTheServiceTheSameFewThreads() throws Exception {
        int size = 300;
        int generation = 7;
        java.util.Set<Integer> left = java.util.concurrent.ConcurrentHashMap.newKeySet();
        try (WorkerNotifier n = new WorkerNotifier(worker, InetAddress.getLoopbackAddress(), generation, size,
                e -> left.add(((ElasticMessage.RankLeft) e).rank()));
                LeavingRanks ranks = new LeavingRanks(worker, generation, size, 30)) {
            assertEquals(size, ranks.leave(n, worker).size());
            assertEquals(size, left.size());
            long threads = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().startsWith("troika-worker-notifier-" + generation)).count();
            assertTrue(threads <= 4, "threads of the notifier with " + size + " ranks: " + threads);
        }
    }
}
