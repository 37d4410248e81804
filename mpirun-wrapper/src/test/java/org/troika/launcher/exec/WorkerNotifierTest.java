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
}
