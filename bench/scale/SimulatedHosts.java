import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.troika.rsh.Liveness;
import org.troika.rsh.driver.DriverService;
import org.troika.wire.ClientSession;
import org.troika.wire.Endpoint;
import org.troika.wire.NicAddress;
import org.troika.wire.Protocol;
import org.troika.wire.RelayMessage;
import org.troika.wire.Secret;

/**
 * bench/scale.sh's simulated hosts (issue 23.4), run as a single-file program on the distribution's jars. Two modes,
 * each a process of its own so the driver's costs are its own; the job secret ({@code secret} prints a new one) comes on
 * stdin's first line:
 * <ul>
 *   <li>{@code driver N}: troika's real driver service (the launcher's liveness: hosts' heartbeat 2 s, timeout 5 s, its own
 *   heartbeat 10 s) expecting
 *   hosts {@code h0..h(N-1)} on 127.0.0.1; prints {@code ADDR=host:port}, {@code registered K of N in MS ms} (from the
 *   first registration to the last; K below N when hosts are still missing after max(60, N/50) s), {@code lost HOST at
 *   EPOCH_MS: why} for each loss, and for each further stdin line {@code heap} its heap in use after a full collection
 *   ({@code heap BYTES}), until stdin ends.</li>
 *   <li>{@code hosts ADDR N SECONDS WINDOW SILENT_AFTER SILENT}: one load generator that is N task services from one
 *   selector thread: each connects from its own loopback address (127.1.0.1 upwards) without blocking, at most WINDOW
 *   connections at a time not yet past the driver's hello (WINDOW = N: all at once), speaks the real relay protocol
 *   ({@link ClientSession}: hello, proof, Register, the driver's Registered), registers again when the driver ends a
 *   connection before its Registered (as a task service does), and heartbeats every 2 s from its registration on, so the
 *   heartbeats are spread over the interval as registrations were. Prints {@code connected N retried R in MS ms} (first
 *   connect to last Registered); SILENT_AFTER s later it stops the heartbeats of SILENT hosts, keeping their
 *   connections, and prints {@code silent HOST last EPOCH_MS} for each; it ends after SECONDS.</li>
 * </ul>
 */
public final class SimulatedHosts {
    public static void main(String[] args) throws Exception {
        if (args[0].equals("secret")) {
            System.out.println(Secret.generate().encode());
            return;
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        Secret secret = Secret.decode(in.readLine());
        if (args[0].equals("driver")) {
            driver(secret, Integer.parseInt(args[1]), in);
        } else {
            new Generator(secret, Endpoint.parseList(args[1], "ADDR").get(0), Integer.parseInt(args[2]),
                    Integer.parseInt(args[3]), Integer.parseInt(args[4]), Integer.parseInt(args[5]),
                    Integer.parseInt(args[6])).run();
        }
    }

    private static void driver(Secret secret, int n, BufferedReader in) throws Exception {
        List<String> names = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            names.add("h" + i);
        }
        AtomicLong first = new AtomicLong();
        AtomicLong last = new AtomicLong();
        java.util.concurrent.CountDownLatch all = new java.util.concurrent.CountDownLatch(n);
        try (DriverService d = new DriverService(secret, InetAddress.getByName("127.0.0.1"), names, Liveness.HEARTBEAT,
                Liveness.TIMEOUT, Liveness.DRIVER_HEARTBEAT, (h, why) -> {
                    System.out.println("lost " + h + " at " + System.currentTimeMillis() + ": " + why);
                    System.out.flush();
                })) {
            d.onRegistered(h -> {
                long now = System.nanoTime();
                first.compareAndSet(0, now);
                last.set(now);
                all.countDown();
            });
            System.out.println("ADDR=" + d.endpoint());
            System.out.flush();
            all.await(Math.max(60, n / 50), TimeUnit.SECONDS);
            System.out.println("registered " + (n - all.getCount()) + " of " + n + " in "
                    + (last.get() - first.get()) / 1_000_000 + " ms");
            System.out.flush();
            for (String line; (line = in.readLine()) != null; ) {
                if (line.equals("heap")) {
                    System.gc();
                    System.out.println("heap " + ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
                    System.out.flush();
                }
            }
        }
    }

    /** N task services on one selector thread. */
    private static final class Generator {
        private static final int CONNECTING = 0, HELLO = 1, ANSWER = 2, BEATING = 3, SILENT = 4, GONE = 5;
        private final Secret secret;
        private final InetSocketAddress to;
        private final int n;
        private final long end;
        private final int window;
        private final long silentAfter;
        private final int silent;
        private final long interval = Liveness.HEARTBEAT.toNanos();
        private final Selector selector = Selector.open();
        private final Host[] hosts;
        private final ArrayDeque<Host> toConnect = new ArrayDeque<>();
        /** Hosts waiting to connect again, in order of their time (each waits a random back-off). */
        private final java.util.PriorityQueue<Host> retries =
                new java.util.PriorityQueue<>((a, b) -> Long.compare(a.due, b.due));
        /** Registered hosts in order of their next heartbeat (each re-armed one interval later: FIFO stays sorted). */
        private final ArrayDeque<Host> beats = new ArrayDeque<>();
        private int inFlight;
        private int registered;
        private int retried;
        private long firstConnect;
        private long allRegistered;

        private static final class Host {
            final int id;
            final InetSocketAddress local;
            SocketChannel channel;
            int state = CONNECTING;
            ClientSession<RelayMessage> session;
            ByteBuffer in = ByteBuffer.allocate(256);
            long due;
            long backoff = 20;
            long lastBeatMillis;

            Host(int id) throws IOException {
                this.id = id;
                int a = id + 1;
                this.local = new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 1, (byte) (a >> 8),
                        (byte) a}), 0);
            }
        }

        Generator(Secret secret, Endpoint driver, int n, int seconds, int window, int silentAfter, int silent)
                throws IOException {
            this.secret = secret;
            this.to = new InetSocketAddress(driver.address(), driver.port());
            this.n = n;
            this.end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            this.window = Math.max(1, window);
            this.silentAfter = TimeUnit.SECONDS.toNanos(silentAfter);
            this.silent = silent;
            this.hosts = new Host[n];
            for (int i = 0; i < n; i++) {
                hosts[i] = new Host(i);
                toConnect.add(hosts[i]);
            }
        }

        void run() throws IOException {
            firstConnect = System.nanoTime();
            boolean silenced = false;
            while (System.nanoTime() - end < 0) {
                long now = System.nanoTime();
                while (inFlight < window && !toConnect.isEmpty()) {
                    connect(toConnect.poll());
                }
                while (!retries.isEmpty() && retries.peek().due - now <= 0 && inFlight < window) {
                    connect(retries.poll());
                }
                long wait = TimeUnit.MILLISECONDS.toNanos(50);
                if (!beats.isEmpty()) {
                    wait = Math.min(wait, beats.peek().due - now);
                }
                if (!retries.isEmpty()) {
                    wait = Math.min(wait, retries.peek().due - now);
                }
                long ms = TimeUnit.NANOSECONDS.toMillis(wait);
                if (ms > 0) {
                    selector.select(ms);
                } else {
                    selector.selectNow();
                }
                for (var it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey k = it.next();
                    it.remove();
                    Host h = (Host) k.attachment();
                    try {
                        if (k.isValid() && k.isConnectable()) {
                            if (h.channel.finishConnect()) {
                                k.interestOps(SelectionKey.OP_READ);
                                h.state = HELLO;
                            }
                        } else if (k.isValid() && k.isReadable()) {
                            readable(h);
                        }
                    } catch (IOException e) {
                        again(h);
                    }
                }
                beat();
                if (allRegistered != 0 && !silenced && System.nanoTime() - allRegistered - silentAfter >= 0) {
                    silenced = true;
                    // the last SILENT hosts fall silent with their connections open (a hung service, a cut-off host)
                    for (int i = n - silent; i < n; i++) {
                        if (hosts[i].state == BEATING) {
                            hosts[i].state = SILENT;
                            System.out.println("silent h" + i + " last " + hosts[i].lastBeatMillis);
                        }
                    }
                    System.out.flush();
                }
            }
            selector.close();
        }

        private void connect(Host h) {
            try {
                h.state = CONNECTING;
                h.in.clear();
                h.session = null;
                h.channel = SocketChannel.open();
                h.channel.configureBlocking(false);
                h.channel.bind(h.local);
                inFlight++;
                if (h.channel.connect(to)) {
                    h.state = HELLO;
                    h.channel.register(selector, SelectionKey.OP_READ, h);
                } else {
                    h.channel.register(selector, SelectionKey.OP_CONNECT, h);
                }
            } catch (IOException e) {
                again(h);
            }
        }

        /** The driver ended the connection (or refused it) before Registered: connect again after a back-off. */
        private void again(Host h) {
            if (h.state == CONNECTING || h.state == HELLO) {
                inFlight--;
            }
            try {
                h.channel.close();
            } catch (IOException ignored) {
                // closing
            }
            if (h.state == BEATING || h.state == SILENT) {
                h.state = GONE; // the driver closed a registered host: it reports the loss itself
                return;
            }
            if (retried++ < 3) {
                System.out.println("retried h" + h.id);
            }
            h.due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(h.backoff
                    + ThreadLocalRandom.current().nextLong(h.backoff + 1));
            h.backoff = Math.min(h.backoff * 2, 1000);
            h.state = CONNECTING;
            retries.add(h);
        }

        private void readable(Host h) throws IOException {
            if (h.channel.read(h.in) < 0) {
                throw new IOException("closed");
            }
            if (h.state == HELLO && h.in.position() >= ClientSession.SERVER_HELLO_LEN) {
                // a busy hello (ServiceBusyException) ends this attempt like any failure: connect again later
                h.session = new ClientSession<>(Protocol.RELAY, secret,
                        java.util.Arrays.copyOf(h.in.array(), ClientSession.SERVER_HELLO_LEN));
                shift(h, ClientSession.SERVER_HELLO_LEN);
                inFlight--;
                h.state = ANSWER;
                byte[] hello = h.session.clientHello();
                byte[] reg = h.session.seal(new RelayMessage.Register("h" + h.id, "h" + h.id, List.of(),
                        List.<NicAddress>of()));
                write(h, ByteBuffer.allocate(hello.length + reg.length).put(hello).put(reg).flip());
            }
            if (h.state == ANSWER && h.in.position() >= ClientSession.HEADER) {
                int len = h.session.frameLength(h.in.array(), 0);
                if (h.in.position() < len) {
                    return;
                }
                RelayMessage m = h.session.open(h.in.array(), 0);
                if (!(m instanceof RelayMessage.Registered)) {
                    System.out.println("refused h" + h.id + ": " + m);
                    h.state = GONE;
                    h.channel.close();
                    return;
                }
                h.state = BEATING;
                h.in = null; // the driver's heartbeats wait in the socket: this side reads nothing more
                h.channel.keyFor(selector).interestOps(0);
                long now = System.nanoTime();
                h.due = now + interval;
                h.lastBeatMillis = System.currentTimeMillis();
                beats.add(h);
                if (++registered == n) {
                    allRegistered = now;
                    System.out.println("connected " + n + " retried " + retried + " in "
                            + (now - firstConnect) / 1_000_000 + " ms");
                    System.out.flush();
                }
            }
        }

        private static void shift(Host h, int consumed) {
            int rest = h.in.position() - consumed;
            System.arraycopy(h.in.array(), consumed, h.in.array(), 0, rest);
            h.in.position(rest);
        }

        private static void write(Host h, ByteBuffer b) throws IOException {
            h.channel.write(b);
            if (b.hasRemaining()) {
                throw new IOException("socket send buffer full");
            }
        }

        /** Sends every heartbeat that is due, and re-arms it one interval later. */
        private void beat() {
            long now = System.nanoTime();
            for (Host h; (h = beats.peek()) != null && h.due - now <= 0; ) {
                beats.poll();
                if (h.state != BEATING) {
                    continue;
                }
                try {
                    h.lastBeatMillis = System.currentTimeMillis();
                    write(h, ByteBuffer.wrap(h.session.seal(new RelayMessage.Heartbeat(h.lastBeatMillis))));
                } catch (IOException e) {
                    again(h);
                    continue;
                }
                h.due += interval;
                beats.add(h);
            }
        }
    }
}
