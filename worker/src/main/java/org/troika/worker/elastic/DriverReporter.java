package org.troika.worker.elastic;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.troika.common.TroikaEnv;
import org.troika.wire.Datagrams;
import org.troika.wire.ElasticMessage;
import org.troika.wire.Endpoint;
import org.troika.wire.Protocol;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;
import org.troika.wire.WireException;

/**
 * What a rank tells the launcher about its generation's world: the rank events of troika-wire's elastic protocol
 * ({@link ElasticMessage.WorldChanged} after a change in place, {@link ElasticMessage.RankLeft} when it leaves), sent
 * to the driver's notification service ({@link TroikaEnv#WORKER_ADDR}) under the worker key
 * ({@link TroikaEnv#WORKER_SECRET_FILE}, written on the rank's host by its task service; never the job secret). This is
 * the contract between rank and launcher: the lines ranks print about the same events are for people and are never
 * read back.
 *
 * <p>Events go out in order from a background thread, each once the one before it is noted: the training thread
 * never waits for the network, except in {@link #leave}, which waits (at most {@link #LEAVE_TIMEOUT_MS}) until the
 * driver has noted every event, so the launcher knows them before this process, and so mpirun, ends. A world report
 * (rank 0's, after a change in place) goes over a connection, opened at the first; the leave is one datagram
 * ({@code Datagrams}, to the same host and port number), sent again with a growing pause (50 ms to 1 s, jittered)
 * until the driver's {@link ElasticMessage.NotedDatagram} for it arrives: the launch node holds no connection per
 * rank, and a whole generation leaving at once costs it no descriptor each. Never throws: a
 * driver it cannot reach or that refuses is reported once on stderr and the rank goes on (the launcher then judges
 * the generation by how mpirun ends).
 */
public final class DriverReporter {
    /** How long {@link #leave} waits for the driver to note the events. */
    static final int LEAVE_TIMEOUT_MS = 5_000;
    private static final DriverReporter NONE = new DriverReporter(null, null, null);

    private final List<Endpoint> driver;
    private final Secret key;
    /** Why this rank cannot report (no key), printed at the first event; {@code null} when it can. */
    private final String broken;
    private ExecutorService sender;
    private Future<?> last;
    private WireChannel<ElasticMessage> channel; // the sender thread's
    private DatagramSocket socket; // the sender thread's
    private volatile boolean failed; // reported once, nothing more is sent

    DriverReporter(List<Endpoint> driver, Secret key, String broken) {
        this.driver = driver;
        this.key = key;
        this.broken = broken;
    }

    /** A reporter that reports nothing (no driver: a static job, a test, an MPI job without troika). */
    public static DriverReporter none() {
        return NONE;
    }

    /**
     * The reporter of a rank launched by troika's elastic driver ({@link TroikaEnv#WORKER_ADDR} set), else
     * {@link #none()}. Never throws: a key that is missing or unreadable makes a reporter that says so at its first
     * event.
     */
    public static DriverReporter fromEnvironment(Map<String, String> env) {
        String addr = env.get(TroikaEnv.WORKER_ADDR);
        if (addr == null || addr.isBlank()) {
            return none();
        }
        List<Endpoint> driver;
        try {
            driver = Endpoint.parseList(addr, TroikaEnv.WORKER_ADDR);
        } catch (RuntimeException e) {
            return new DriverReporter(null, null, "bad " + TroikaEnv.WORKER_ADDR + "=" + addr + ": " + e.getMessage());
        }
        Secret key;
        try {
            key = WorkerKey.fromEnvironment(env);
        } catch (IOException e) {
            return new DriverReporter(null, null, e.getMessage());
        }
        return key == null ? new DriverReporter(null, null, TroikaEnv.WORKER_SECRET_FILE + " is not set")
                : new DriverReporter(driver, key, null);
    }

    /** Whether this reporter has a driver to report to (launched by troika's elastic driver), even a broken one. */
    public boolean reaches() {
        return this != NONE;
    }

    /** Sends {@code event} in the background, after the events before it. */
    public synchronized void report(ElasticMessage event) {
        if (this == NONE) {
            return;
        }
        if (sender != null && sender.isShutdown()) {
            return; // after leave
        }
        if (sender == null) {
            sender = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "troika-driver-reporter");
                t.setDaemon(true);
                return t;
            });
        }
        last = sender.submit(() -> send(event));
    }

    /**
     * Reports that this rank leaves the elastic run with {@code code} and waits until the driver noted it and every
     * event before (at most {@link #LEAVE_TIMEOUT_MS}); then the connection is closed. Call last.
     */
    public void leave(int generation, int rank, int code) {
        if (this == NONE) {
            return;
        }
        Future<?> done;
        ExecutorService s;
        synchronized (this) {
            report(new ElasticMessage.RankLeft(generation, rank, code));
            done = last;
            s = sender;
        }
        try {
            done.get(LEAVE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            complain("the driver did not note that this rank leaves within " + LEAVE_TIMEOUT_MS + " ms");
        } finally {
            s.submit(this::closeChannel);
            s.shutdown();
        }
    }

    /** On the sender thread. */
    private void send(ElasticMessage event) {
        if (failed) {
            return;
        }
        if (broken != null) {
            complain(broken);
            return;
        }
        try {
            if (event instanceof ElasticMessage.RankLeft) {
                sendDatagram(event);
                return;
            }
            if (channel == null) {
                channel = WireChannel.connectAny(driver, Protocol.ELASTIC, key, LEAVE_TIMEOUT_MS);
            }
            channel.send(event);
            ElasticMessage reply = channel.receive();
            if (!(reply instanceof ElasticMessage.Noted)) {
                complain("the driver at " + Endpoint.formatList(driver) + " refused " + event + ": " + reply);
            }
        } catch (IOException | RuntimeException e) {
            complain("cannot report " + event + " to the driver at " + Endpoint.formatList(driver) + ": "
                    + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
            closeChannel();
        }
    }

    /**
     * Sends {@code event} as a datagram until the driver notes it (at most {@link #LEAVE_TIMEOUT_MS}); on the sender
     * thread. The same datagram each time: the driver answers a repeat again and never takes the event twice.
     */
    private void sendDatagram(ElasticMessage event) throws IOException {
        if (socket == null) {
            socket = new DatagramSocket();
            socket.connect(driver.get(0).socketAddress());
        }
        Datagrams.Sealer<ElasticMessage> sealer = new Datagrams.Sealer<>(Protocol.ELASTIC, key);
        Datagrams.Opener<ElasticMessage> opener = new Datagrams.Opener<>(Protocol.ELASTIC, key, 4);
        byte[] d = sealer.seal(event);
        DatagramPacket out = new DatagramPacket(d, d.length);
        DatagramPacket in = new DatagramPacket(new byte[Datagrams.MAX_DATAGRAM + 1], Datagrams.MAX_DATAGRAM + 1);
        long deadline = System.nanoTime() + LEAVE_TIMEOUT_MS * 1_000_000L;
        long pause = 50;
        while (true) {
            socket.send(out);
            long until = Math.min(deadline, System.nanoTime()
                    + (pause + ThreadLocalRandom.current().nextLong(pause)) * 1_000_000L);
            for (long left; (left = until - System.nanoTime()) > 0; ) {
                socket.setSoTimeout((int) Math.max(1, left / 1_000_000L));
                try {
                    socket.receive(in);
                } catch (SocketTimeoutException e) {
                    break;
                }
                ElasticMessage reply;
                try {
                    reply = opener.open(in.getData(), 0, in.getLength()).message();
                } catch (WireException e) {
                    continue; // not the driver's, or a repeat of an answer already read
                }
                if (reply instanceof ElasticMessage.NotedDatagram n && n.sender() == sealer.sender()
                        && n.seq() == sealer.seq()) {
                    return;
                }
                if (reply instanceof ElasticMessage.Refused r) {
                    complain("the driver at " + Endpoint.formatList(driver) + " refused " + event + ": "
                            + r.reason());
                    return;
                }
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IOException("not noted within " + LEAVE_TIMEOUT_MS + " ms");
            }
            pause = Math.min(pause * 2, 1_000);
        }
    }

    /** One line, once; nothing is sent after it. */
    private synchronized void complain(String why) {
        if (!failed) {
            failed = true;
            System.err.println("troika elastic: " + why + "; the launcher learns of this rank's events only from how"
                    + " mpirun ends");
            System.err.flush();
        }
    }

    private void closeChannel() {
        if (socket != null) {
            socket.close();
            socket = null;
        }
        WireChannel<ElasticMessage> c = channel;
        channel = null;
        if (c != null) {
            try {
                c.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }
}
