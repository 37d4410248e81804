package org.troika.launcher.exec;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.troika.wire.Datagrams;
import org.troika.wire.ElasticMessage;
import org.troika.wire.Endpoint;
import org.troika.wire.Protocol;
import org.troika.wire.Secret;
import org.troika.wire.WireConnection;
import org.troika.wire.WireServer;

/**
 * The driver's notification service for one elastic generation: rank 0 subscribes and the driver pushes host changes;
 * every rank reports the events of its world (the contract between ranks and launcher: rank output is only output).
 *
 * <pre>
 *   rank 0 ── hello (worker key) ── Subscribe(N, id) ─►  (the subscription = rendezvous reached)
 *          ◄─ Subscribed ◄─ [HostsChanged(t, bits) announced before the subscription] ◄─ HostsChanged ... ─
 *   rank 0 ── hello (worker key) ── WorldChanged(N, ...) ─►  {@link RankEvents}   (TCP: it names every rank)
 *          ◄─ Noted (after the listener took it) ... ─
 *   a rank ── datagram RankLeft(N, rank, code) ─►  {@link RankEvents}              (UDP, the same port number)
 *          ◄─ datagram NotedDatagram(sender, number) (after the listener took it; again for a repeat) ─
 * </pre>
 *
 * <p>Security: the troika wire's elastic protocol ({@link Protocol#ELASTIC}: the client proves the key in its hello,
 * then HMAC-SHA256 frames with fresh nonces and sequence numbers; a datagram carries its own HMAC and number,
 * {@link Datagrams}) keyed with the <b>worker key</b> ({@link #workerKey}), not the job secret: ranks hold only this
 * key, which opens nothing but this service. Connections run on a {@link WireServer} with its default bounds (bodies
 * of at most {@value #MAX_BODY} bytes plus 8 per rank); they are rank 0's. Both sockets bind to the address that
 * routes to the generation's first host (loopback for local hosts). A rank event of another generation, or any frame
 * but an event after one, is refused and ends the connection; nothing is acted upon for it. A datagram that does not
 * verify is dropped unanswered.
 *
 * <p>Why datagrams for leaves (issue 23): every rank of a generation leaves at about the same moment. As a connection
 * each, 10,000 hosts x 8 slots meant 80,000 descriptors on the launch node at once (past most login nodes' limits);
 * as datagrams on one socket, none per rank. A rank repeats its leave until it is noted ({@code DriverReporter}); a
 * repeat of an event already taken is answered again, never delivered twice.
 *
 * <p>The listener: the world's rank 0 subscribes, the launch's rank 0 (id 0) at its first commit. When that rank dies
 * (a shrink) or leaves in place, the next rank 0 of the world subscribes at once; the latest subscription is the one
 * that listens ({@link #listener()}), and an older one is closed then.
 *
 * <p>Threads: the server's selector thread, this service's datagram thread, and the listener's one thread that takes
 * the events in arrival order: the same few whatever the number of ranks.
 */
public final class WorkerNotifier implements AutoCloseable {
    /** Label of the worker key derivation: worker key = HMAC-SHA256(job secret, label). */
    public static final String KEY_LABEL = "troika-worker-v1";
    static final int MAX_BODY = 256;

    /**
     * What a generation's ranks report about its world, authenticated and of this generation ({@link
     * ElasticMessage.WorldChanged} or {@link ElasticMessage.RankLeft}); called on a connection thread, possibly on
     * several at once, and the rank is answered {@link ElasticMessage.Noted} only after it returned.
     */
    @FunctionalInterface
    public interface RankEvents {
        void event(ElasticMessage event);
    }

    private final int generation;
    private final WireServer<ElasticMessage> server;
    /** Rank events as datagrams, on the server's port number. */
    private final DatagramChannel datagrams;
    private final Datagrams.Receiver<ElasticMessage> datagramReceiver;
    /** Seals the answers to datagrams (guarded by itself: the listener and the datagram thread both answer). */
    private final Datagrams.Sealer<ElasticMessage> answers;
    /** Each datagram sender's last event the listener took: a repeat of it is answered again. */
    private final Map<Long, Long> noted = new ConcurrentHashMap<>();
    private final RankEvents events;
    /** The world's rank 0 that listens (its subscription's connection), or null: none subscribed, or it went. */
    private WireConnection<ElasticMessage> subscriber;
    /** Runs the listener, one event after another, then answers the rank (the selector thread must not block). */
    private final ExecutorService listener;
    private volatile boolean closed;
    private boolean registered;
    /** The id of the rank that subscribed last (the one that listens), -1 before any. */
    private int listening = -1;
    private int pendingBits;
    private long pendingAt;

    /**
     * Starts the service.
     *
     * @param workerKey the key ranks hold ({@link #workerKey})
     * @param bind the local address to listen on
     * @param generation the generation whose rank 0 may subscribe
     */
    public WorkerNotifier(Secret workerKey, InetAddress bind, int generation) throws IOException {
        this(workerKey, bind, generation, 1, e -> { });
    }

    /**
     * Starts the service for a generation of {@code size} ranks whose events go to {@code events}.
     *
     * @param workerKey the key ranks hold ({@link #workerKey})
     * @param bind the local address to listen on
     * @param generation the generation whose rank 0 may subscribe and whose ranks report
     */
    public WorkerNotifier(Secret workerKey, InetAddress bind, int generation, int size, RankEvents events)
            throws IOException {
        this.generation = generation;
        this.events = events;
        this.listener = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "troika-worker-notifier-" + generation + "-events");
            t.setDaemon(true);
            return t;
        });
        WireServer<ElasticMessage> srv = null;
        DatagramChannel dc = null;
        for (int attempt = 1; dc == null; attempt++) {
            srv = WireServer.startEvents("troika-worker-notifier-" + generation, Protocol.ELASTIC, workerKey,
                    List.of(bind), limits(size), new WireServer.Events<>() {
                        @Override
                        public void received(WireConnection<ElasticMessage> c, ElasticMessage m) throws IOException {
                            WorkerNotifier.this.received(c, m);
                        }

                        @Override
                        public void closed(WireConnection<ElasticMessage> c, IOException cause) {
                            synchronized (WorkerNotifier.this) {
                                if (subscriber == c) {
                                    subscriber = null;
                                }
                            }
                        }
                    });
            try {
                dc = Datagrams.bind(bind, srv.endpoints().get(0).port());
            } catch (BindException e) {
                srv.close(); // the port number is taken for UDP here: another one
                if (attempt == 8) {
                    listener.shutdownNow();
                    throw e;
                }
            } catch (IOException | RuntimeException e) {
                srv.close();
                listener.shutdownNow();
                throw e;
            }
        }
        this.server = srv;
        this.datagrams = dc;
        this.answers = new Datagrams.Sealer<>(Protocol.ELASTIC, workerKey);
        this.datagramReceiver = new Datagrams.Receiver<>("troika-worker-notifier-" + generation + "-datagrams", dc,
                new Datagrams.Opener<>(Protocol.ELASTIC, workerKey, 2 * Math.max(1, size) + 16),
                new Datagrams.Receiver.Handler<>() {
                    @Override
                    public boolean received(Datagrams.Opened<ElasticMessage> d, SocketAddress from) {
                        return receivedDatagram(d, from);
                    }

                    @Override
                    public void repeated(Datagrams.Repeated r, SocketAddress from) {
                        Long taken = noted.get(r.sender());
                        if (taken != null && taken == r.seq()) {
                            answer(from, new ElasticMessage.NotedDatagram(r.sender(), r.seq()));
                        } // else still queued for the listener: answered when it is taken
                    }
                });
    }

    /** On the datagram thread: a leave of this generation goes to the listener and is answered once it took it. */
    private boolean receivedDatagram(Datagrams.Opened<ElasticMessage> d, SocketAddress from) {
        if (!(d.message() instanceof ElasticMessage.RankLeft l) || l.generation() != generation) {
            answer(from, new ElasticMessage.Refused("expected a rank's leave of generation " + generation));
            return false;
        }
        try {
            listener.execute(() -> {
                if (closed) {
                    return;
                }
                events.event(l);
                noted.put(d.sender(), d.seq());
                answer(from, new ElasticMessage.NotedDatagram(d.sender(), d.seq()));
            });
        } catch (RejectedExecutionException e) {
            // closing
        }
        return true;
    }

    private void answer(SocketAddress to, ElasticMessage m) {
        try {
            byte[] d;
            synchronized (answers) {
                d = answers.seal(m);
            }
            datagrams.send(ByteBuffer.wrap(d), to);
        } catch (IOException e) {
            // the rank repeats if it still waits
        }
    }

    /**
     * The default bounds: connections are rank 0's (its subscription and the world reports it sends after a change in
     * place), whatever the generation's size; ranks leave by datagram. A world report names every rank: 8 bytes each.
     */
    static WireServer.Limits limits(int size) {
        return WireServer.Limits.DEFAULT.withMaxBody(MAX_BODY + 8 * Math.max(1, size));
    }

    /** The key ranks get instead of the job secret. */
    public static Secret workerKey(Secret jobSecret) {
        return jobSecret.derive(KEY_LABEL);
    }

    /** The first frame the launch's rank 0 sends. */
    public static ElasticMessage.Subscribe registration(int generation) {
        return registration(generation, 0);
    }

    /** The first frame a world's rank 0 sends, the rank with id {@code rank} in the generation. */
    public static ElasticMessage.Subscribe registration(int generation, int rank) {
        return new ElasticMessage.Subscribe(generation, rank);
    }

    public Endpoint endpoint() {
        return server.endpoints().get(0);
    }

    /** Whether this generation's rank 0 registered (it does at its first commit, after the start-up sync). */
    public synchronized boolean registered() {
        return registered;
    }

    /** The id of the rank that listens (the world's rank 0 that subscribed last), or -1 before any subscribed. */
    public synchronized int listener() {
        return listening;
    }

    /**
     * Sends a host change to the registered rank 0, or keeps it (merged) until rank 0 registers. Best effort: a
     * failed send drops that connection.
     */
    public synchronized void announce(long timestampMillis, int bits) {
        if (subscriber == null) {
            hold(timestampMillis, bits);
            return;
        }
        send(new ElasticMessage.HostsChanged(timestampMillis, bits));
    }

    /**
     * Keeps a host change (merged) for the next rank that subscribes, not sending it to the one subscribed now: the
     * launcher knows that rank is gone (died or left) while its connection may not have closed yet.
     */
    public synchronized void hold(long timestampMillis, int bits) {
        pendingBits |= bits;
        pendingAt = Math.max(pendingAt, timestampMillis);
    }

    /**
     * Sends a change in place to the registered rank 0 (issue 25). Returns the id of the rank it was sent to, or -1
     * when no rank 0 listens (not registered yet, or gone) or the send failed: the caller announces a host change
     * instead.
     */
    public synchronized int changeWorld(ElasticMessage.ChangeWorld change) {
        if (subscriber == null) {
            return -1;
        }
        send(change);
        return subscriber == null ? -1 : listening;
    }

    private void send(ElasticMessage m) {
        WireConnection<ElasticMessage> c = subscriber;
        try {
            c.send(m);
        } catch (IOException e) {
            subscriber = null;
            c.close();
        }
    }

    /** What a connection turned out to be at its first message. */
    private enum Kind { RANK_EVENTS, SUBSCRIPTION }

    /**
     * A message of one authenticated connection (on the selector thread): rank 0's subscription, which stays open while
     * it listens, or a rank's events, each answered once the listener took it.
     */
    private void received(WireConnection<ElasticMessage> c, ElasticMessage m) throws IOException {
        Object kind = c.attachment();
        if (kind == Kind.SUBSCRIPTION) {
            return; // rank 0 sends nothing more; its connection ends when it goes away or the service closes
        }
        if (isEvent(m)) {
            c.attach(Kind.RANK_EVENTS);
            try {
                listener.execute(() -> {
                    if (closed) {
                        return;
                    }
                    events.event(m);
                    try {
                        c.send(new ElasticMessage.Noted());
                    } catch (IOException e) {
                        // the rank went away; it retries if it still runs
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                c.close(); // closing
            }
            return;
        }
        if (kind == Kind.RANK_EVENTS) {
            c.send(new ElasticMessage.Refused("expected a rank event of generation " + generation));
            c.close();
            return;
        }
        if (!(m instanceof ElasticMessage.Subscribe s) || s.generation() != generation || s.rank() < 0) {
            c.send(new ElasticMessage.Refused("expected the registration of rank 0 of generation " + generation));
            c.close();
            return;
        }
        synchronized (this) {
            if (closed) {
                c.close();
                return;
            }
            c.attach(Kind.SUBSCRIPTION);
            registered = true;
            c.send(new ElasticMessage.Subscribed());
            // the world has one rank 0: a later one took over from a rank that died or left, whose connection may
            // not have closed yet
            WireConnection<ElasticMessage> older = subscriber;
            subscriber = c;
            if (older != null) {
                older.close();
            }
            listening = s.rank();
            if (pendingBits != 0) {
                send(new ElasticMessage.HostsChanged(pendingAt, pendingBits));
                pendingBits = 0;
            }
        }
    }

    /** Whether {@code m} is a rank event of this generation. */
    private boolean isEvent(ElasticMessage m) {
        return m instanceof ElasticMessage.WorldChanged w && w.generation() == generation
                || m instanceof ElasticMessage.RankLeft l && l.generation() == generation;
    }

    @Override
    public void close() {
        closed = true;
        listener.shutdownNow();
        server.close(); // closes the subscriber's connection too
        datagramReceiver.close();
        synchronized (this) {
            subscriber = null;
        }
    }
}
