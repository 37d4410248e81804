package org.troika.launcher.watchdog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.troika.common.ProgressReport;
import org.troika.wire.Datagrams;
import org.troika.wire.ProgressMessage;
import org.troika.wire.Protocol;
import org.troika.wire.Secret;

class ProgressServiceTests {
    private final Secret job = Secret.generate();

    @Test
    void aReportWithTheProgressKeyArrivesAndForgedReplayedOrMalformedOnesDoNot() throws Exception {
        LinkedBlockingQueue<ProgressReport> got = new LinkedBlockingQueue<>();
        Secret key = ProgressService.progressKey(job);
        assertNotEquals(job, key);
        try (ProgressService s = new ProgressService(key, InetAddress.getLoopbackAddress(), 4, got::add);
                DatagramChannel rank = DatagramChannel.open()) {
            rank.connect(s.endpoint().socketAddress());
            Datagrams.Sealer<ProgressMessage> sealer = new Datagrams.Sealer<>(Protocol.PROGRESS, key);
            ProgressReport r = new ProgressReport(3, 1, 2, 1, 57, 56, "allreduce", "epoch 1 step 7");
            byte[] report = sealer.seal(new ProgressMessage.Report(r.encode()));
            rank.write(ByteBuffer.wrap(report));
            assertEquals(r, got.poll(10, TimeUnit.SECONDS));
            // the job secret is not the progress key; a replay; a frame that is not a report; bytes that are nothing
            rank.write(ByteBuffer.wrap(new Datagrams.Sealer<>(Protocol.PROGRESS, job)
                    .seal(new ProgressMessage.Report(r.encode()))));
            rank.write(ByteBuffer.wrap(report));
            rank.write(ByteBuffer.wrap(sealer.seal(new ProgressMessage.Report("rank0 generation 1"))));
            rank.write(ByteBuffer.wrap(new byte[] {'T', 'D', 1, 4}));
            // the service goes on: the next report of the rank arrives, and only it
            ProgressReport next = new ProgressReport(3, 1, 3, 1, 58, 58, "", "epoch 1 step 8");
            rank.write(ByteBuffer.wrap(sealer.seal(new ProgressMessage.Report(next.encode()))));
            assertEquals(next, got.poll(10, TimeUnit.SECONDS));
            assertNull(got.poll(200, TimeUnit.MILLISECONDS));
            assertEquals(4, s.dropped());
        }
    }

    @Test
    void reportsRoundTripAndMalformedOnesAreRejected() {
        ProgressReport r = new ProgressReport(0, 0, 5, 0, 0, 0, "", "line\nbreak and spaces");
        ProgressReport back = ProgressReport.decode(r.encode());
        assertEquals("line break and spaces", back.where());
        assertEquals(r, back);
        ProgressReport big = new ProgressReport(Integer.MAX_VALUE, 7, 999_999_999_999_999_999L, 12, 34, 33, "bcast",
                "");
        assertEquals(big, ProgressReport.decode(big.encode()), "18 digits, and a rank of Integer.MAX_VALUE");
        for (String bad : List.of("progress 1 rank=-1 gen=0 beats=0 commits=0 in=0 out=0 at= where=",
                "progress 1 rank=1 gen=0 beats=0 commits=0 in=0 out=0 at=", "ping", "progress 1 rank=99999999999 "
                + "gen=0 beats=0 commits=0 in=0 out=0 at= where=", "progress 1 " + "x".repeat(500) + " where=",
                // numbers are 1-18 ASCII digits: no sign, no other digits, nothing after them
                "progress 1 rank= gen=0 beats=0 commits=0 in=0 out=0 at= where=",
                "progress 1 rank=1 gen=0 beats=+5 commits=0 in=0 out=0 at= where=",
                "progress 1 rank=1 gen=0 beats=1234567890123456789 commits=0 in=0 out=0 at= where=",
                "progress 1 rank=1 gen=0 beats=\u0663 commits=0 in=0 out=0 at= where=",
                "progress 1 rank=1 gen=0 beats=12a commits=0 in=0 out=0 at= where=")) {
            assertThrows(IllegalArgumentException.class, () -> ProgressReport.decode(bad), bad);
        }
    }
}
