import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.troika.rsh.Liveness;
import org.troika.rsh.driver.DriverService;
import org.troika.wire.Endpoint;
import org.troika.wire.NicAddress;
import org.troika.wire.Protocol;
import org.troika.wire.RelayMessage;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;

/**
 * bench/scale.sh's simulated hosts (issue 23.4), run as a single-file program on the distribution's jars. Two modes,
 * each a process of its own so the driver's costs are its own; the job secret ({@code secret} prints a new one) comes on
 * stdin's first line:
 * <ul>
 *   <li>{@code driver N}: troika's real driver service (the launcher's liveness: heartbeat 2 s, timeout 5 s) expecting
 *   hosts {@code h0..h(N-1)} on 127.0.0.1; prints {@code ADDR=host:port}, {@code registered K of N in MS ms} (from the
 *   first registration to the last; K below N when hosts are still missing after max(60, N/50) s), then {@code lost HOST: why} for each loss, until stdin ends.</li>
 *   <li>{@code hosts ADDR N SECONDS}: one load generator that is N task services: each connects from its own loopback
 *   address (127.1.0.1 upwards), speaks the real relay protocol (hello, proof, Register) and heartbeats every 2 s
 *   for SECONDS; 64 connect at a time; prints {@code connected N refused R in MS ms}.</li>
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
            hosts(secret, Endpoint.parseList(args[1], "ADDR"), Integer.parseInt(args[2]), Integer.parseInt(args[3]));
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
                Liveness.TIMEOUT, (h, why) -> System.out.println("lost " + h + ": " + why))) {
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
            while (in.read() >= 0) {
                // until stdin ends
            }
        }
    }

    private static void hosts(Secret secret, List<Endpoint> driver, int n, int seconds) throws Exception {
        InetSocketAddress to = new InetSocketAddress(driver.get(0).address(), driver.get(0).port());
        List<WireChannel<RelayMessage>> channels = java.util.Collections.synchronizedList(new ArrayList<>(n));
        AtomicInteger refused = new AtomicInteger();
        // every registered host heartbeats every 2 s from its registration on, as a task service does
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        Thread beating = new Thread(() -> {
            try {
                while (System.nanoTime() < end) {
                    long round = System.nanoTime();
                    List<WireChannel<RelayMessage>> now;
                    synchronized (channels) {
                        now = new ArrayList<>(channels);
                    }
                    for (WireChannel<RelayMessage> c : now) {
                        try {
                            c.send(new RelayMessage.Heartbeat(System.currentTimeMillis()));
                        } catch (java.io.IOException e) {
                            // the driver dropped this host: it says so on its side
                        }
                    }
                    long left = Liveness.HEARTBEAT.toNanos() - (System.nanoTime() - round);
                    if (left > 0) {
                        TimeUnit.NANOSECONDS.sleep(left);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "heartbeats");
        beating.start();
        ExecutorService pool = Executors.newFixedThreadPool(64);
        long start = System.nanoTime();
        List<Future<?>> done = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int host = i;
            done.add(pool.submit(() -> {
                byte[] local = {127, 1, (byte) ((host + 1) >> 8), (byte) (host + 1)};
                for (int attempt = 0; ; attempt++) {
                    Socket s = new Socket();
                    try {
                        s.bind(new InetSocketAddress(InetAddress.getByAddress(local), 0));
                        s.connect(to, 30_000);
                        WireChannel<RelayMessage> c = WireChannel.connect(s, Protocol.RELAY, secret,
                                WireChannel.DEFAULT_MAX_BODY);
                        c.send(new RelayMessage.Register("h" + host, "h" + host, List.of(), List.<NicAddress>of()));
                        channels.add(c);
                        return null;
                    } catch (java.io.IOException e) {
                        s.close();
                        if (refused.incrementAndGet() <= 3) {
                            System.out.println("retried h" + host + ": " + e);
                        }
                        if (attempt > 20) {
                            throw e;
                        }
                        Thread.sleep(50);
                    }
                }
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        pool.shutdown();
        System.out.println("connected " + channels.size() + " refused " + refused.get() + " in "
                + (System.nanoTime() - start) / 1_000_000 + " ms");
        System.out.flush();
        beating.join();
        for (WireChannel<RelayMessage> c : channels) {
            c.close();
        }
    }
}
