package org.troika.launcher.exec;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 *   rank 0 ── hello (worker key) ── Subscribe(N) ─►  (the subscription = rendezvous reached)
 *          ◄─ Subscribed ◄─ [HostsChanged(t, bits) announced before the subscription] ◄─ HostsChanged ... ─
 *   a rank ── hello (worker key) ── WorldChanged(N, ...) | RankLeft(N, rank, code) ─►  {@link RankEvents}
 *          ◄─ Noted (after the listener took it) ... ─
 * </pre>
 *
 * <p>Security: the troika wire's elastic protocol ({@link Protocol#ELASTIC}: the client proves the key in its hello,
 * then HMAC-SHA256 frames with fresh nonces and sequence numbers) keyed with the <b>worker key</b> ({@link #workerKey}),
 * not the job secret: ranks hold only this key, which opens nothing but this service. It runs on a {@link WireServer}
 * with small bounds ({@link #limits}): bodies of at most {@value #MAX_BODY} bytes plus 8 per rank, the hello and
 * first frame within the server's deadlines, one connection per rank and a few more. The socket binds to the address
 * that routes to the generation's first host (loopback for local hosts). A rank event of another generation, or any
 * frame but an event after one, is refused and ends the connection; nothing is acted upon for it.
 *
 * <p>Threads: the server runs in event mode (its selector thread reads every connection) and the events go to the
 * listener on one thread of this service, in arrival order: two threads whatever the number of ranks (issue 23: every
 * rank of a 10,000-host generation may report its leave at once; a thread per connection would be 10,000 threads).
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
    private final RankEvents events;
    private final List<WireConnection<ElasticMessage>> subscribers = new ArrayList<>();
    /** Runs the listener, one event after another, then answers the rank (the selector thread must not block). */
    private final ExecutorService listener;
    private volatile boolean closed;
    private boolean registered;
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
        this.server = WireServer.startEvents("troika-worker-notifier-" + generation, Protocol.ELASTIC, workerKey,
                List.of(bind), limits(size), new WireServer.Events<>() {
                    @Override
                    public void received(WireConnection<ElasticMessage> c, ElasticMessage m) throws IOException {
                        WorkerNotifier.this.received(c, m);
                    }

                    @Override
                    public void closed(WireConnection<ElasticMessage> c, IOException cause) {
                        synchronized (WorkerNotifier.this) {
                            subscribers.remove(c);
                        }
                    }
                });
    }

    /**
     * Rank 0's subscription and one connection per reporting rank, a few more for retries; past that a rank is
     * answered busy and retries. Every rank leaves at about the same time, so all of them may be connecting at once:
     * bounding those not yet past the hello below the size made most ranks of a large generation give up (bench/scale.sh:
     * with at most 256, 8,208 of 10,000 leaving ranks were not noted within their 5 s). A world report names every
     * rank: 8 bytes each.
     */
    static WireServer.Limits limits(int size) {
        int n = Math.max(1, size) + 8;
        return WireServer.Limits.DEFAULT.withPending(n, Math.min(n, 64)).withMaxConnections(n)
                .withMaxBody(MAX_BODY + 8 * Math.max(1, size));
    }

    /** The key ranks get instead of the job secret. */
    public static Secret workerKey(Secret jobSecret) {
        return jobSecret.derive(KEY_LABEL);
    }

    /** The first frame rank 0 sends. */
    public static ElasticMessage.Subscribe registration(int generation) {
        return new ElasticMessage.Subscribe(generation);
    }

    public Endpoint endpoint() {
        return server.endpoints().get(0);
    }

    /** Whether this generation's rank 0 registered (it does at its first commit, after the start-up sync). */
    public synchronized boolean registered() {
        return registered;
    }

    /**
     * Sends a host change to the registered rank 0, or keeps it (merged) until rank 0 registers. Best effort: a
     * failed send drops that connection.
     */
    public synchronized void announce(long timestampMillis, int bits) {
        if (subscribers.isEmpty()) {
            pendingBits |= bits;
            pendingAt = Math.max(pendingAt, timestampMillis);
            return;
        }
        send(new ElasticMessage.HostsChanged(timestampMillis, bits));
    }

    /**
     * Sends a change in place to the registered rank 0 (issue 25). False when no rank 0 listens (not registered yet,
     * or gone) or the send failed: the caller announces a host change instead.
     */
    public synchronized boolean changeWorld(ElasticMessage.ChangeWorld change) {
        if (subscribers.isEmpty()) {
            return false;
        }
        send(change);
        return !subscribers.isEmpty();
    }

    private void send(ElasticMessage m) {
        for (var it = subscribers.iterator(); it.hasNext(); ) {
            WireConnection<ElasticMessage> c = it.next();
            try {
                c.send(m);
            } catch (IOException e) {
                it.remove();
                c.close();
            }
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
        if (!m.equals(registration(generation))) {
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
            subscribers.add(c);
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
        server.close(); // closes the subscribers' connections too
        synchronized (this) {
            subscribers.clear();
        }
    }
}
