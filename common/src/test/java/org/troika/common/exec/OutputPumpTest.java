package org.troika.common.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How {@link ProcessSupervisor}'s reader hands a stream on: in batches of what the stream held, exactly, and never
 * holding back bytes that arrived alone. The stream is a queue of writes ("arrivals") standing in for a pipe: a read
 * returns at most one arrival (as a pipe read returns what one write put there when the reader keeps up), and
 * {@code available()} counts what is queued.
 */
class OutputPumpTest {
    /** A pipe-like stream: reads block until an arrival is queued; each read returns from one arrival only. */
    private static final class Arrivals extends InputStream {
        private final ArrayDeque<byte[]> queue = new ArrayDeque<>();
        private int pos;
        private boolean closed;
        int reads;

        synchronized void add(byte[] b) {
            queue.add(b);
            notifyAll();
        }

        synchronized void close0() {
            closed = true;
            notifyAll();
        }

        @Override
        public synchronized int read(byte[] b, int off, int len) {
            while (queue.isEmpty() && !closed) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return -1;
                }
            }
            if (queue.isEmpty()) {
                return -1;
            }
            reads++;
            assertTrue(len <= ProcessSupervisor.READ_CHUNK, "asked for " + len + " bytes in one call");
            byte[] head = queue.peek();
            int n = Math.min(len, head.length - pos);
            System.arraycopy(head, pos, b, off, n);
            pos += n;
            if (pos == head.length) {
                queue.poll();
                pos = 0;
            }
            return n;
        }

        @Override
        public int read() {
            throw new UnsupportedOperationException();
        }

        @Override
        public synchronized int available() {
            int n = -pos;
            for (byte[] b : queue) {
                n += b.length;
            }
            return n;
        }
    }

    /** Records each batch. */
    private static final class Batches implements OutputSink {
        final List<byte[]> batches = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch first = new CountDownLatch(1);
        final CountDownLatch ended = new CountDownLatch(1);

        @Override
        public void write(byte[] b, int off, int len) {
            batches.add(java.util.Arrays.copyOfRange(b, off, off + len));
            first.countDown();
        }

        @Override
        public void end() {
            ended.countDown();
        }

        byte[] all() {
            ByteArrayOutputStream o = new ByteArrayOutputStream();
            synchronized (batches) {
                batches.forEach(o::writeBytes);
            }
            return o.toByteArray();
        }
    }

    private static byte[] line(int i) {
        return String.format("[1,%d]<stdout>:line %010d of the output benchmark, sixty bytes.....%n", i % 2, i)
                .getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void linesWaitingInThePipeAreHandedOnInOneBatchExactly() throws Exception {
        // 1,000 lines written one by one before the reader looks: one sink call (a read per line before: 1,000)
        Arrivals in = new Arrivals();
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (int i = 0; i < 1000; i++) {
            in.add(line(i));
            expected.writeBytes(line(i));
        }
        in.close0();
        Batches sink = new Batches();
        ProcessSupervisor.pump(in, sink);
        assertArrayEquals(expected.toByteArray(), sink.all());
        int whole = expected.size();
        assertEquals((whole + ProcessSupervisor.READ_BUFFER - 1) / ProcessSupervisor.READ_BUFFER, sink.batches.size(),
                "batches of 64 KiB for " + whole + " bytes");
        assertEquals(ProcessSupervisor.READ_BUFFER, sink.batches.get(0).length);
        assertEquals(0, sink.ended.getCount());
    }

    @Test
    void moreThanABatchIsCutIntoBatchesOfAtMost64KiBExactly() throws Exception {
        Arrivals in = new Arrivals();
        byte[] big = new byte[300_000 + 7];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31 + (i >> 8)); // every byte value, \n and \r among them
        }
        in.add(big);
        in.close0();
        Batches sink = new Batches();
        ProcessSupervisor.pump(in, sink);
        assertArrayEquals(big, sink.all());
        for (byte[] b : sink.batches) {
            assertTrue(b.length <= ProcessSupervisor.READ_BUFFER, "a batch of " + b.length);
        }
        assertEquals(5, sink.batches.size()); // 4 x 64 KiB + the rest
    }

    @Test
    void aLineThatArrivesAloneIsHandedOnWithoutWaitingForMore() throws Exception {
        Arrivals in = new Arrivals();
        Batches sink = new Batches();
        Thread reader = new Thread(() -> ProcessSupervisor.pump(in, sink), "pump-test");
        reader.start();
        try {
            in.add("progress 1\n".getBytes(StandardCharsets.US_ASCII));
            // nothing else comes until the line was handed on: a reader that waited for more would never get here
            assertTrue(sink.first.await(30, TimeUnit.SECONDS), "the lone line was held back");
            assertEquals("progress 1\n", new String(sink.all(), StandardCharsets.US_ASCII));
            in.add("progress 2\n".getBytes(StandardCharsets.US_ASCII));
        } finally {
            in.close0();
            reader.join(30_000);
        }
        assertTrue(sink.ended.await(1, TimeUnit.SECONDS));
        assertEquals("progress 1\nprogress 2\n", new String(sink.all(), StandardCharsets.US_ASCII));
    }
}
