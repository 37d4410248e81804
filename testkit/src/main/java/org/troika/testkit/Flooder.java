package org.troika.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The red team's connection flood against a TCP service, from one thread with non-blocking sockets:
 * <ul>
 *   <li><b>silent</b> connections never send a byte;</li>
 *   <li><b>slow-body</b> connections send a version-1 style hello and a frame header announcing a 1 MiB body at once,
 *       then trickle one byte every 200 ms.</li>
 * </ul>
 * It never reconnects. It measures, per connection, the time from connect to the service closing it (end of stream or
 * reset), and counts busy hellos ({@code 'T' 'K' v 0xFE}). Used by the flood tests and {@code bench/service-flood.sh}:
 *
 * <pre>java -cp troika-testkit.jar org.troika.testkit.Flooder HOST:PORT SILENT SLOW HOLD_SECONDS [SOURCE_ADDRESS...]</pre>
 *
 * prints one {@link Report#line()}.
 */
public final class Flooder {
    private static final long TRICKLE_NANOS = 200_000_000L;

    /**
     * What the flood saw.
     *
     * @param opened connections that connected
     * @param connectFailed connections that did not connect
     * @param busy connections the service answered with a busy hello
     * @param closed connections the service closed (busy ones included)
     * @param open connections still open when the flood ended
     * @param maxCloseMillis longest time from connect to close
     * @param medianCloseMillis median time from connect to close
     */
    public record Report(int opened, int connectFailed, int busy, int closed, int open, long maxCloseMillis,
            long medianCloseMillis) {
        public String line() {
            return "opened=" + opened + " connect_failed=" + connectFailed + " busy=" + busy + " closed=" + closed
                    + " open=" + open + " max_close_ms=" + maxCloseMillis + " median_close_ms=" + medianCloseMillis;
        }

        public static Report parse(String line) {
            Map<String, Long> v = new TreeMap<>();
            for (String w : line.trim().split("\\s+")) {
                int eq = w.indexOf('=');
                v.put(w.substring(0, eq), Long.parseLong(w.substring(eq + 1)));
            }
            return new Report(v.get("opened").intValue(), v.get("connect_failed").intValue(), v.get("busy").intValue(),
                    v.get("closed").intValue(), v.get("open").intValue(), v.get("max_close_ms"), v.get("median_close_ms"));
        }
    }

    private static final class Conn {
        final SocketChannel channel;
        final boolean slow;
        final ByteBuffer buf = ByteBuffer.allocate(256);
        long seen;
        long connectedAt;
        long closedAt = -1;
        long nextTrickle;
        boolean busy;

        Conn(SocketChannel channel, boolean slow) {
            this.channel = channel;
            this.slow = slow;
        }
    }

    private Flooder() {}

    /** Floods {@code target} and returns once the service closed every connection or {@code hold} passed. */
    public static Report run(InetSocketAddress target, int silent, int slow, Duration hold, List<InetAddress> sources)
            throws IOException {
        List<Conn> conns = new ArrayList<>();
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < silent + slow; i++) {
                SocketChannel sc = SocketChannel.open();
                try {
                    sc.configureBlocking(false);
                    if (!sources.isEmpty()) {
                        sc.bind(new InetSocketAddress(sources.get(i % sources.size()), 0));
                    }
                    Conn c = new Conn(sc, i >= silent);
                    if (sc.connect(target)) {
                        connected(c, selector);
                    } else {
                        sc.register(selector, SelectionKey.OP_CONNECT, c);
                    }
                    conns.add(c);
                } catch (IOException e) {
                    sc.close(); // counted as not connected
                }
            }
            long end = System.nanoTime() + hold.toNanos();
            while (System.nanoTime() < end && conns.stream().anyMatch(c -> c.channel.isOpen())) {
                selector.select(50);
                for (var it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey k = it.next();
                    it.remove();
                    Conn c = (Conn) k.attachment();
                    try {
                        if (k.isConnectable()) {
                            c.channel.finishConnect();
                            connected(c, selector);
                        } else if (k.isReadable()) {
                            read(c);
                        }
                    } catch (IOException e) {
                        if (c.connectedAt == 0) {
                            c.channel.close(); // counted as not connected
                        } else {
                            closedNow(c); // reset by the service
                        }
                    }
                }
                long now = System.nanoTime();
                for (Conn c : conns) {
                    if (c.slow && c.connectedAt != 0 && c.closedAt < 0 && now >= c.nextTrickle) {
                        try {
                            c.channel.write(ByteBuffer.wrap(new byte[] {'x'}));
                            c.nextTrickle = now + TRICKLE_NANOS;
                        } catch (IOException e) {
                            closedNow(c);
                        }
                    }
                }
            }
        } finally {
            for (Conn c : conns) {
                c.channel.close();
            }
        }
        List<Long> times = new ArrayList<>();
        int opened = 0;
        int busy = 0;
        int open = 0;
        for (Conn c : conns) {
            if (c.connectedAt == 0) {
                continue;
            }
            opened++;
            if (c.closedAt < 0) {
                open++;
            } else {
                times.add((c.closedAt - c.connectedAt) / 1_000_000L);
                busy += c.busy ? 1 : 0;
            }
        }
        times.sort(null);
        return new Report(opened, silent + slow - opened, busy, times.size(), open, times.isEmpty() ? 0 : times.get(times.size() - 1),
                times.isEmpty() ? 0 : times.get(times.size() / 2));
    }

    private static void connected(Conn c, Selector selector) throws IOException {
        c.connectedAt = System.nanoTime();
        c.channel.register(selector, SelectionKey.OP_READ, c);
        if (c.slow) {
            // a version-1 hello ('T' 'K' 1 0xFF + 16-byte nonce) and an Exec header announcing a 1 MiB body
            ByteBuffer b = ByteBuffer.allocate(36).put((byte) 'T').put((byte) 'K').put((byte) 1).put((byte) 0xFF)
                    .put(new byte[16]).put((byte) 'T').put((byte) 'K').put((byte) 1).put((byte) 8).putLong(0)
                    .putInt(1 << 20).flip();
            c.channel.write(b);
            c.nextTrickle = System.nanoTime() + TRICKLE_NANOS;
        }
    }

    private static void read(Conn c) throws IOException {
        while (true) {
            c.buf.clear();
            int n = c.channel.read(c.buf);
            if (n < 0) {
                closedNow(c);
                return;
            }
            if (n == 0) {
                return;
            }
            for (int i = 0; i < n; i++, c.seen++) {
                if (c.seen == 3) {
                    c.busy = (c.buf.get(i) & 0xff) == 0xFE;
                }
            }
        }
    }

    private static void closedNow(Conn c) throws IOException {
        if (c.closedAt < 0) {
            c.closedAt = System.nanoTime();
        }
        c.channel.close();
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 4) {
            System.err.println("usage: Flooder HOST:PORT SILENT SLOW HOLD_SECONDS [SOURCE_ADDRESS...]");
            System.exit(2);
        }
        int colon = args[0].lastIndexOf(':');
        InetSocketAddress target = new InetSocketAddress(InetAddress.getByName(args[0].substring(0, colon)),
                Integer.parseInt(args[0].substring(colon + 1)));
        List<InetAddress> sources = new ArrayList<>();
        for (int i = 4; i < args.length; i++) {
            sources.add(InetAddress.getByName(args[i]));
        }
        System.out.println(run(target, Integer.parseInt(args[1]), Integer.parseInt(args[2]),
                Duration.ofSeconds(Long.parseLong(args[3])), sources).line());
    }
}
