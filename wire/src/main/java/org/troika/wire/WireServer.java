package org.troika.wire;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one service base of troika: listening sockets, the hello under a deadline, bounds on connections, and close.
 * The driver service, the task services, the Spark job service and the elastic worker notifier are each a
 * {@link Handler} on one of these.
 *
 * <pre>
 *   listener thread (one per listening socket):  accept (blocking), queue for the selector thread
 *   selector thread (one per server, non-blocking):  server hello ─► read the 52-byte client hello
 *        │  refused with a busy hello beyond maxPending / maxPendingPerPeer / maxConnections
 *        │  closed at helloDeadline, or at once when the proof does not verify (nothing else is ever read)
 *        ▼ proof verified
 *   pool thread (at most maxConnections):  first frame (within firstFrameDeadline) ─► handler.serve(channel, first)
 *                                          ─► channel closed when serve returns
 * </pre>
 *
 * <p>Two ways to serve authenticated connections:
 * <ul>
 *   <li>{@link #start} with a {@link Handler}: a pool thread per connection, blocking reads (a task service: a few agents
 *       and probes at a time).</li>
 *   <li>{@link #startEvents} with {@link Events}: the selector thread reads and opens every frame and hands the message
 *       to the service ({@link WireConnection}); no thread per connection, so thousands of long-lived connections cost
 *       a few kilobytes each (the driver service: one per task service; the progress service: one per rank).</li>
 * </ul>
 *
 * <ul>
 *   <li>A connection that has not proven the key costs no thread and at most {@value Handshake#CLIENT_HELLO_LEN} bytes
 *       of buffer; it is closed at the hello deadline however slowly it trickles bytes.</li>
 *   <li>Deadlines are kept in arrival order (each is arrival plus a fixed time), so each loop turn looks only at the
 *       oldest: a burst of thousands of connections costs no scan per turn.</li>
 *   <li>{@link #reserve} widens the bounds for peers a service expects (the driver: its hosts, which may all connect at
 *       once).</li>
 *   <li>Pool threads end after {@value #IDLE_SECONDS} s without work, so a burst leaves no threads behind.</li>
 *   <li>{@link #stopAccepting()} closes the listeners and every pending connection and returns once the ports are
 *       released; {@link #close()} also closes every live channel (so handlers blocked in {@link WireChannel#receive()}
 *       return).</li>
 *   <li>Accepted connections are NIO channels: an interrupt of a thread blocked reading or writing one closes it.</li>
 * </ul>
 *
 * @param <M> the protocol's message type
 */
public final class WireServer<M> implements AutoCloseable {
    static final int IDLE_SECONDS = 5;
    /** How long a closing event connection may take to send what it has queued. */
    static final long LINGER_MILLIS = 2000;
    /**
     * Listen backlog asked of the kernel: enough for every expected peer of a large service to connect at once (the
     * kernel caps it at {@code net.core.somaxconn}).
     */
    static final int BACKLOG = 65535;
    /**
     * From this many live event connections on (a driver service at a thousand hosts and more), a selector pass that
     * found fewer than {@link #COALESCE_BELOW} ready connections is followed by a pause of {@link #COALESCE_NANOS}, so
     * the frames that arrive meanwhile are read in one wake-up: 10,000 hosts' heartbeats come evenly spread, 5,000 a
     * second, and woke the selector thread once each. Every frame may wait that much longer; smaller services never
     * pause.
     */
    static final int COALESCE_FROM = 1024;
    static final int COALESCE_BELOW = 16;
    static final long COALESCE_NANOS = 2_000_000;

    /**
     * Bounds of one server.
     *
     * @param helloDeadline time from accept to a verified client hello (a peer without the key is closed by then)
     * @param firstFrameDeadline time from the verified hello to the end of the first frame (the peer holds the key;
     *     this only keeps a stalled client from holding a thread)
     * @param maxPending connections that have not yet proven the key, in all
     * @param maxPendingPerPeer of those, from one peer address
     * @param maxConnections connections in all (pending and authenticated); also the bound on pool threads
     * @param maxBody largest body of an authenticated frame
     */
    public record Limits(Duration helloDeadline, Duration firstFrameDeadline, int maxPending, int maxPendingPerPeer,
            int maxConnections, int maxBody) {
        /**
         * 3 s to a verified hello (a client sends it as soon as it read the server's), 10 s more to the first frame, 64
         * pending (16 per peer), 256 connections, 1 MiB frames.
         */
        public static final Limits DEFAULT = new Limits(Duration.ofSeconds(3), Duration.ofSeconds(10), 64, 16, 256,
                WireChannel.DEFAULT_MAX_BODY);

        public Limits {
            if (!positive(helloDeadline) || !positive(firstFrameDeadline) || maxPending < 1 || maxPendingPerPeer < 1
                    || maxPendingPerPeer > maxPending || maxConnections < 1 || maxBody < 1) {
                throw new IllegalArgumentException("bad service limits " + helloDeadline + ", " + firstFrameDeadline
                        + ", " + maxPending + ", " + maxPendingPerPeer + ", " + maxConnections + ", " + maxBody);
            }
        }

        private static boolean positive(Duration d) {
            return !d.isNegative() && !d.isZero();
        }

        public Limits withHelloDeadline(Duration d) {
            return new Limits(d, firstFrameDeadline, maxPending, maxPendingPerPeer, maxConnections, maxBody);
        }

        public Limits withFirstFrameDeadline(Duration d) {
            return new Limits(helloDeadline, d, maxPending, maxPendingPerPeer, maxConnections, maxBody);
        }

        public Limits withPending(int total, int perPeer) {
            return new Limits(helloDeadline, firstFrameDeadline, total, perPeer, maxConnections, maxBody);
        }

        public Limits withMaxConnections(int n) {
            return new Limits(helloDeadline, firstFrameDeadline, maxPending, maxPendingPerPeer, n, maxBody);
        }

        public Limits withMaxBody(int n) {
            return new Limits(helloDeadline, firstFrameDeadline, maxPending, maxPendingPerPeer, maxConnections, n);
        }
    }

    /** What a service does with one authenticated connection. */
    @FunctionalInterface
    public interface Handler<M> {
        /**
         * Serves one connection whose client proved the key and whose first message is {@code first}. Runs on a pool
         * thread; the read timeout is 0 (none) on entry; the channel is closed when this returns or throws (an
         * {@link IOException} ends the connection quietly).
         */
        void serve(WireChannel<M> channel, M first) throws IOException;
    }

    /**
     * What a service does with authenticated connections in event mode ({@link #startEvents}). Both methods run on the
     * server's selector thread unless noted: they must not block (hand slow work to a thread of the service's own).
     */
    public interface Events<M> {
        /**
         * One message arrived on {@code c}; the first call is the connection's first message (it arrived within the
         * first-frame deadline). An {@link IOException} closes the connection (then {@link #closed} is told it).
         */
        void received(WireConnection<M> c, M message) throws IOException;

        /**
         * {@code c} ended, once per connection, on whichever thread ended it: {@code cause} is {@code null} when this
         * side closed it ({@link WireConnection#close}, the server's close), else why (the peer closed: {@link
         * java.io.EOFException}; a frame that did not authenticate or decode: {@link WireException}; the first-frame
         * deadline: {@link java.net.SocketTimeoutException}).
         */
        void closed(WireConnection<M> c, IOException cause);
    }

    /**
     * Counters of one server.
     *
     * @param pending connections now waiting for their hello
     * @param connections connections now handed to the pool (reading their first frame or being served)
     * @param accepted connections accepted so far
     * @param busy refused with a busy hello (over a bound)
     * @param timedOut closed at the hello or first-frame deadline
     * @param rejected closed for a hello that is not this protocol's or whose proof did not verify
     */
    public record Stats(int pending, int connections, long accepted, long busy, long timedOut, long rejected) {}

    private final String name;
    private final Protocol<M> protocol;
    private final Secret key;
    /** A second, narrower key the server also accepts while set ({@link #acceptAlso}); {@code null} when none. */
    private volatile Secret alsoKey;
    private final Limits limits;
    private final Handler<M> handler;
    private final Events<M> events;
    private final Selector selector;
    /** Listening sockets and their endpoints, in bind order; added to by {@link #listen} (guarded by listeners). */
    private final List<ServerSocketChannel> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final List<Endpoint> endpoints = new java.util.concurrent.CopyOnWriteArrayList<>();
    /**
     * Connections the listener threads accepted and the selector thread has not taken on yet. A listener thread does
     * nothing but accept, so the kernel's accept queue (at most {@code net.core.somaxconn}) is emptied as fast as
     * peers connect even while the selector thread is busy with the hellos and frames of thousands of others.
     */
    private final java.util.Queue<SocketChannel> arrivals = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** How many connections are in {@link #arrivals}. */
    private final AtomicInteger arrivalCount = new AtomicInteger();
    /** Whether the selector was woken for what is in {@link #arrivals} and has not taken it yet. */
    private final java.util.concurrent.atomic.AtomicBoolean acceptWake = new java.util.concurrent.atomic.AtomicBoolean();
    private boolean listenersClosed;
    private final ThreadPoolExecutor pool;
    private final Thread acceptor;
    // selector thread only
    private final Map<SocketChannel, Pending> pending = new HashMap<>();
    private final Map<InetAddress, Integer> pendingPerPeer = new HashMap<>();
    /** Pending connections in accept order, which is hello-deadline order (left in until looked at). */
    private final ArrayDeque<Pending> helloDeadlines = new ArrayDeque<>();
    /** Event connections in verification order, which is first-frame-deadline order (left in until looked at). */
    private final ArrayDeque<WireConnection<M>> firstFrameDeadlines = new ArrayDeque<>();
    private final ByteBuffer drain = ByteBuffer.allocate(4096);
    // any thread
    private final Set<WireChannel<M>> live = ConcurrentHashMap.newKeySet();
    private final Set<WireConnection<M>> liveEvents = ConcurrentHashMap.newKeySet();
    /** Event connections closing once their queue is sent ({@link WireConnection#close}). */
    private final Set<WireConnection<M>> lingering = ConcurrentHashMap.newKeySet();
    /** Work for the selector thread (stop accepting), run at the top of its next turn. */
    private final java.util.concurrent.ConcurrentLinkedQueue<Runnable> tasks =
            new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final AtomicInteger handed = new AtomicInteger();
    private volatile int reserved;
    private volatile boolean acceptingStopped;
    private volatile int pendingCount;
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong busy = new AtomicLong();
    private final AtomicLong timedOut = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private volatile boolean closed;

    /** One connection between accept and a verified client hello. */
    private static final class Pending {
        final SocketChannel channel;
        final InetAddress peer;
        final byte[] serverNonce;
        final ByteBuffer out;
        final ByteBuffer in = ByteBuffer.allocate(Handshake.CLIENT_HELLO_LEN);
        final long deadline;
        byte[] clientNonce;
        Secret usedKey;
        boolean done;

        Pending(SocketChannel channel, InetAddress peer, byte[] serverNonce, ByteBuffer out, long deadline) {
            this.channel = channel;
            this.peer = peer;
            this.serverNonce = serverNonce;
            this.out = out;
            this.deadline = deadline;
        }
    }

    private WireServer(String name, Protocol<M> protocol, Secret key, List<InetAddress> bind, Limits limits,
            Handler<M> handler, Events<M> events) throws IOException {
        this.name = name;
        this.protocol = protocol;
        this.key = key;
        this.limits = limits;
        this.handler = handler;
        this.events = events;
        this.selector = Selector.open();
        try {
            for (InetAddress a : bind) {
                bindListener(a);
            }
        } catch (IOException | RuntimeException e) {
            closeListeners();
            selector.close();
            throw e;
        }
        AtomicInteger n = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(0, limits.maxConnections(), IDLE_SECONDS, TimeUnit.SECONDS,
                new SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, name + "-conn-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        this.acceptor = new Thread(this::run, name + "-accept");
        acceptor.setDaemon(true);
    }

    /**
     * Binds one listening socket (ephemeral port) per address in {@code bind} and starts serving.
     *
     * @param name thread-name prefix and the name in error lines, e.g. {@code "task-service"}
     */
    public static <M> WireServer<M> start(String name, Protocol<M> protocol, Secret key, List<InetAddress> bind,
            Limits limits, Handler<M> handler) throws IOException {
        if (bind.isEmpty()) {
            throw new IllegalArgumentException(name + ": no address to listen on");
        }
        WireServer<M> s = new WireServer<>(name, protocol, key, List.copyOf(bind), limits, handler, null);
        s.startThreads();
        return s;
    }

    /**
     * Like {@link #start}, serving authenticated connections in event mode: the selector thread reads their frames
     * and hands each message to {@code events} ({@link WireConnection}); no thread per connection.
     */
    public static <M> WireServer<M> startEvents(String name, Protocol<M> protocol, Secret key, List<InetAddress> bind,
            Limits limits, Events<M> events) throws IOException {
        if (bind.isEmpty()) {
            throw new IllegalArgumentException(name + ": no address to listen on");
        }
        WireServer<M> s = new WireServer<>(name, protocol, key, List.copyOf(bind), limits, null, events);
        s.startThreads();
        return s;
    }

    /**
     * Widens the bounds on connections in all and on connections that have not proven the key yet by {@code peers}
     * over the {@link Limits}: room for peers the service expects, which may all connect at once (a driver service's
     * hosts). Applies from the next accept; a later call replaces the earlier value.
     */
    public void reserve(int peers) {
        if (peers < 0) {
            throw new IllegalArgumentException("cannot reserve " + peers + " connections");
        }
        this.reserved = peers;
        pool.setMaximumPoolSize(limits.maxConnections() + peers);
    }

    private int maxPending() {
        return limits.maxPending() + reserved;
    }

    private int maxConnections() {
        return limits.maxConnections() + reserved;
    }

    /**
     * Also accepts clients that prove {@code second} (a key derived for a narrower purpose, such as the launch agent
     * key), from the next hello on; {@code null} withdraws it. The handler tells the two apart with {@link
     * WireChannel#keyedWith}. Connections already established keep their key.
     */
    public void acceptAlso(Secret second) {
        this.alsoKey = second;
    }

    /** The selector thread, then a listener thread for each listener bound so far. */
    private void startThreads() {
        acceptor.start();
        for (ServerSocketChannel l : listeners) {
            startListening(l);
        }
    }

    /** Opens a (blocking) listener on {@code address} (ephemeral port) and records it with its endpoint. */
    private ServerSocketChannel bindListener(InetAddress address) throws IOException {
        ServerSocketChannel ssc = ServerSocketChannel.open();
        try {
            ssc.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            ssc.bind(new InetSocketAddress(address, 0), BACKLOG);
        } catch (IOException | RuntimeException e) {
            closeQuietly(ssc);
            throw e;
        }
        listeners.add(ssc);
        endpoints.add(Endpoint.of((InetSocketAddress) ssc.getLocalAddress()));
        return ssc;
    }

    /**
     * Also listens on {@code address} from now on (a running service whose later peers reach this machine through
     * another interface), or returns the endpoint already bound there. Thread-safe; the selector thread starts
     * accepting on the new socket at its next wake-up.
     *
     * @throws IOException when the address cannot be bound, or the server no longer accepts
     */
    public Endpoint listen(InetAddress address) throws IOException {
        Endpoint bound;
        synchronized (listeners) {
            String wanted = address.getHostAddress().replaceAll("%.*$", "");
            for (Endpoint e : endpoints) {
                if (e.address().equals(wanted)) {
                    return e;
                }
            }
            if (listenersClosed || closed) {
                throw new IOException(name + " no longer accepts connections");
            }
            startListening(bindListener(address));
            bound = endpoints.get(endpoints.size() - 1);
        }
        return bound;
    }

    /** The listener threads started ({@link #stopListening} waits for them: only then are the ports released). */
    private final List<Thread> listenerThreads = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Starts the thread that accepts on {@code l} until it is closed. */
    private void startListening(ServerSocketChannel l) {
        Thread t = new Thread(() -> listen(l), name + "-listen-" + l.socket().getLocalPort());
        t.setDaemon(true);
        listenerThreads.add(t);
        t.start();
    }

    /**
     * A listener thread: accepts (blocking) and queues each connection for the selector thread, waking it once for
     * however many arrive before it looks. Ends when the listener is closed ({@link #stopAccepting}, {@link #close}).
     * When accept fails (out of file descriptors) it waits 100 ms instead of spinning; the peers wait in the kernel's
     * queue meanwhile.
     */
    private void listen(ServerSocketChannel l) {
        while (!closed && l.isOpen()) {
            SocketChannel sc;
            try {
                sc = l.accept();
            } catch (java.nio.channels.ClosedChannelException e) {
                return; // closed, also while blocked in accept (AsynchronousCloseException)
            } catch (IOException e) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    return;
                }
                continue;
            }
            if (closed || acceptingStopped) {
                closeQuietly(sc); // accepted as the listener closed: the selector thread no longer takes arrivals
                return;
            }
            int waiting = arrivalCount.get() + pendingCount;
            if (waiting >= maxPending() || waiting + handed.get() >= maxConnections()) {
                // over the bounds already: refused here as the selector thread would, so a flood holds no more
                // descriptors than the bounds allow however far behind the selector thread is
                accepted.incrementAndGet();
                refuseBusy(sc);
                continue;
            }
            arrivalCount.incrementAndGet();
            arrivals.add(sc);
            if (acceptWake.compareAndSet(false, true)) {
                selector.wakeup();
            }
        }
    }

    /** Where the server listens, one endpoint per bound address: those given to {@link #start}, then {@link #listen}'s. */
    public List<Endpoint> endpoints() {
        return List.copyOf(endpoints);
    }

    public Limits limits() {
        return limits;
    }

    public Stats stats() {
        return new Stats(pendingCount, handed.get(), accepted.get(), busy.get(), timedOut.get(), rejected.get());
    }

    private void run() {
        List<Pending> verified = new ArrayList<>();
        java.util.function.Consumer<SelectionKey> onReady = k -> handle(k, verified);
        try {
            while (!closed) {
                takeAccepted();
                for (Runnable t; (t = tasks.poll()) != null; ) {
                    t.run();
                }
                // keys go straight to the handler, not through the selected-key set: that set's table grows to the
                // largest burst (10,000 hosts registering) and iterating it walks the whole table for every key
                verified.clear();
                int ready = selector.select(onReady, millisToNextEvent());
                if (closed) {
                    break;
                }
                if (!verified.isEmpty()) {
                    if (events == null) {
                        // deregisters their cancelled keys, so they can be made blocking; a key ready meanwhile is
                        // reported again by the next select (level-triggered)
                        selector.selectNow(k -> { });
                    }
                    verified.forEach(this::handOver);
                }
                expire();
                if (ready < COALESCE_BELOW && liveEvents.size() >= COALESCE_FROM) {
                    java.util.concurrent.locks.LockSupport.parkNanos(COALESCE_NANOS);
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                System.err.println("troika " + name + ": the accept loop failed: " + e);
            }
        } finally {
            stopListening();
            for (WireConnection<M> c : new ArrayList<>(liveEvents)) {
                c.end(null);
            }
            for (Runnable t; (t = tasks.poll()) != null; ) {
                t.run();
            }
            try {
                selector.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    /** Closes the listeners and every connection that has not proven the key (selector thread). */
    private void stopListening() {
        closeListeners(); // a listener thread blocked in accept gets an AsynchronousCloseException and ends
        // the kernel releases a port only once the accept blocked on it has returned: wait for the listener threads
        for (Thread t : listenerThreads) {
            try {
                t.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        takeAccepted(); // the listeners are closed: it closes whatever they queued
        for (Pending p : new ArrayList<>(pending.values())) {
            drop(p);
        }
        helloDeadlines.clear();
        if (selector.isOpen()) {
            try {
                selector.selectNow(); // deregisters the cancelled keys: only then are the ports released
            } catch (IOException ignored) {
                // the ports go with the selector at the latest
            }
        }
    }

    private long millisToNextEvent() {
        long now = System.nanoTime();
        long next = Long.MAX_VALUE;
        Pending oldest = helloDeadlines.peek();
        if (oldest != null) {
            next = oldest.deadline - now;
        }
        WireConnection<M> firstWaiting = firstFrameDeadlines.peek();
        if (firstWaiting != null) {
            next = Math.min(next, firstWaiting.firstFrameBy - now);
        }
        if (!lingering.isEmpty()) {
            next = Math.min(next, TimeUnit.MILLISECONDS.toNanos(100));
        }
        return next == Long.MAX_VALUE ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(next) + 1);
    }

    /** Keys handled in this select since the listener threads' arrivals were last taken on. */
    private int sinceAccept;
    /** How many keys one select may handle before the listener threads' arrivals are taken on again. */
    private static final int ACCEPT_EVERY = 32;

    /** A key the selector found ready; a connection whose client hello verified goes to {@code verified}. */
    private void handle(SelectionKey k, List<Pending> verified) {
        if (!k.isValid()) {
            return;
        }
        if (++sinceAccept >= ACCEPT_EVERY) {
            // thousands of hosts connecting at once: those accepted meanwhile get their server hello (and their hello
            // deadline starts) while this thread answers the hellos and frames of those before them
            sinceAccept = 0;
            takeAccepted();
        }
        if (k.attachment() instanceof WireConnection<?> wc) {
            @SuppressWarnings("unchecked")
            WireConnection<M> c = (WireConnection<M>) wc;
            serveEvents(k, c);
            return;
        }
        Pending p = (Pending) k.attachment();
        if (p.done) {
            return; // verified earlier in this turn (a key may be reported twice)
        }
        try {
            if (step(k, p)) {
                if (events == null) {
                    k.cancel(); // the channel goes blocking to a pool thread
                }
                forget(p);
                verified.add(p);
            }
        } catch (WireException e) {
            rejected.incrementAndGet();
            drainAndDrop(p);
        } catch (IOException | RuntimeException e) {
            drop(p);
        }
    }

    /** Takes on the connections the listener threads accepted (selector thread): each gets its server hello. */
    private void takeAccepted() {
        acceptWake.set(false);
        for (SocketChannel sc; (sc = arrivals.poll()) != null; ) {
            arrivalCount.decrementAndGet();
            if (listenersClosed || acceptingStopped || closed) {
                closeQuietly(sc);
                continue;
            }
            take(sc);
        }
    }

    /** Tells a connection over the bounds that the service is busy (its client retries) and closes it. */
    private void refuseBusy(SocketChannel sc) {
        busy.incrementAndGet();
        try {
            sc.write(ByteBuffer.wrap(Handshake.busyHello()));
        } catch (IOException | RuntimeException e) {
            // the peer is gone: nothing to tell it
        }
        closeQuietly(sc);
    }

    private void take(SocketChannel sc) {
        accepted.incrementAndGet();
        try {
            sc.configureBlocking(false);
            InetAddress peer = ((InetSocketAddress) sc.getRemoteAddress()).getAddress();
            if (pending.size() >= maxPending()
                    || pendingPerPeer.getOrDefault(peer, 0) >= limits.maxPendingPerPeer()
                    || pending.size() + handed.get() >= maxConnections()) {
                refuseBusy(sc);
                return;
            }
            byte[] nonce = Nonces.random(Handshake.NONCE_LEN);
            Pending p = new Pending(sc, peer, nonce, ByteBuffer.wrap(Handshake.serverHello(protocol, nonce)),
                    System.nanoTime() + limits.helloDeadline().toNanos());
            sc.write(p.out);
            sc.register(selector, p.out.hasRemaining() ? SelectionKey.OP_READ | SelectionKey.OP_WRITE
                    : SelectionKey.OP_READ, p);
            pending.put(sc, p);
            helloDeadlines.add(p);
            pendingPerPeer.merge(peer, 1, Integer::sum);
            pendingCount = pending.size();
        } catch (IOException | RuntimeException e) {
            closeQuietly(sc);
        }
    }

    /** Writes the rest of the server hello and reads the client hello; true once it arrived and verified. */
    private boolean step(SelectionKey k, Pending p) throws IOException {
        if (k.isWritable() && p.out.hasRemaining()) {
            p.channel.write(p.out);
            if (!p.out.hasRemaining()) {
                k.interestOps(SelectionKey.OP_READ);
            }
        }
        if (k.isReadable()) {
            if (p.channel.read(p.in) < 0) {
                throw new EOFException("closed during the hello");
            }
            if (!p.in.hasRemaining()) {
                Secret also = alsoKey;
                try {
                    p.clientNonce = Handshake.checkClientHello(protocol, key, p.serverNonce, p.in.array());
                    p.usedKey = key;
                } catch (WireException e) {
                    if (also == null) {
                        throw e;
                    }
                    p.clientNonce = Handshake.checkClientHello(protocol, also, p.serverNonce, p.in.array());
                    p.usedKey = also;
                }
                return true;
            }
        }
        return false;
    }

    /** An event connection is readable or writable (selector thread). */
    private void serveEvents(SelectionKey k, WireConnection<M> c) {
        try {
            if (k.isWritable()) {
                c.flush();
            }
            if (k.isValid() && k.isReadable()) {
                c.readable(events);
            }
        } catch (RuntimeException e) {
            System.err.println("troika " + name + ": a connection handler failed: " + e);
            c.end(new IOException("handler failed: " + e, e));
        }
    }

    private void handOver(Pending p) {
        if (events != null) {
            handOverEvents(p);
            return;
        }
        WireChannel<M> ch;
        handed.incrementAndGet();
        try {
            p.channel.configureBlocking(true);
            ch = WireChannel.established(p.channel.socket(), protocol, p.usedKey, p.serverNonce, p.clientNonce,
                    limits.maxBody());
        } catch (IOException | RuntimeException e) {
            handed.decrementAndGet();
            closeQuietly(p.channel);
            return;
        }
        try {
            long firstFrameBy = System.nanoTime() + limits.firstFrameDeadline().toNanos();
            pool.execute(() -> serve(ch, firstFrameBy));
        } catch (RejectedExecutionException e) {
            handed.decrementAndGet();
            busy.incrementAndGet();
            closeQuietly(p.channel);
        }
    }

    /** Keeps a verified connection on the selector as an event connection. */
    private void handOverEvents(Pending p) {
        SelectionKey k = p.channel.keyFor(selector);
        try {
            p.channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            WireConnection<M> c = new WireConnection<>(this, p.channel, k, p.peer, new Frames<>(protocol, p.usedKey,
                    p.serverNonce, p.clientNonce, true, limits.maxBody()),
                    System.nanoTime() + limits.firstFrameDeadline().toNanos());
            handed.incrementAndGet();
            liveEvents.add(c);
            firstFrameDeadlines.add(c);
            k.attach(c);
            k.interestOps(SelectionKey.OP_READ);
        } catch (IOException | RuntimeException e) {
            if (k != null) {
                k.cancel();
            }
            closeQuietly(p.channel);
        }
    }

    /** {@link WireConnection#send} queued bytes: the selector writes them when the socket takes more. */
    void wantWrite() {
        if (Thread.currentThread() != acceptor) {
            selector.wakeup();
        }
    }

    /** {@link WireConnection#close} waits for its queue to go out. */
    void linger(WireConnection<M> c) {
        lingering.add(c);
        wantWrite();
    }

    /** An event connection ended (any thread): releases it and tells the service, once. */
    void ended(WireConnection<M> c, SelectionKey k, SocketChannel ch, IOException cause) {
        if (k != null) {
            k.cancel();
        }
        closeQuietly(ch);
        lingering.remove(c);
        if (liveEvents.remove(c)) {
            handed.decrementAndGet();
        }
        if (Thread.currentThread() != acceptor) {
            selector.wakeup(); // the selector deregisters the key and releases the descriptor
        }
        try {
            events.closed(c, cause);
        } catch (RuntimeException e) {
            System.err.println("troika " + name + ": a connection handler failed at close: " + e);
        }
    }

    private void serve(WireChannel<M> ch, long deadline) {
        live.add(ch);
        try {
            if (closed) {
                return;
            }
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                timedOut.incrementAndGet();
                return;
            }
            ch.setReadTimeoutMillis((int) Math.min(Integer.MAX_VALUE, left));
            M first;
            try {
                first = ch.receive();
            } catch (java.net.SocketTimeoutException e) {
                timedOut.incrementAndGet();
                return;
            }
            ch.setReadTimeoutMillis(0);
            handler.serve(ch, first);
        } catch (IOException e) {
            // unauthenticated, malformed, or the peer went away: nothing was acted upon
        } catch (RuntimeException e) {
            if (!closed) {
                System.err.println("troika " + name + ": a connection handler failed: " + e);
            }
        } finally {
            live.remove(ch);
            try {
                ch.close();
            } catch (IOException ignored) {
                // closing
            }
            handed.decrementAndGet();
        }
    }

    private void expire() {
        long now = System.nanoTime();
        for (Pending p; (p = helloDeadlines.peek()) != null && (p.done || now - p.deadline >= 0); ) {
            helloDeadlines.poll();
            if (!p.done) {
                timedOut.incrementAndGet();
                drop(p);
            }
        }
        for (WireConnection<M> c; (c = firstFrameDeadlines.peek()) != null
                && (c.gotFirst || c.isClosed() || now - c.firstFrameBy >= 0); ) {
            firstFrameDeadlines.poll();
            if (!c.gotFirst && !c.isClosed()) {
                timedOut.incrementAndGet();
                c.end(new java.net.SocketTimeoutException("no first frame within "
                        + limits.firstFrameDeadline().toMillis() + " ms"));
            }
        }
        for (WireConnection<M> c : lingering) {
            if (c.lingeredTooLong(now)) {
                c.end(null);
            }
        }
    }

    private void forget(Pending p) {
        p.done = true;
        if (pending.remove(p.channel) != null) {
            pendingPerPeer.computeIfPresent(p.peer, (a, n) -> n > 1 ? n - 1 : null);
            pendingCount = pending.size();
        }
    }

    private void drop(Pending p) {
        forget(p);
        closeQuietly(p.channel);
    }

    /**
     * Drops a connection whose hello failed after reading what it already sent (without waiting), so the close is a
     * FIN and the peer reads an orderly end rather than a reset.
     */
    private void drainAndDrop(Pending p) {
        try {
            for (int i = 0; i < 16; i++) {
                drain.clear();
                if (p.channel.read(drain) <= 0) {
                    break;
                }
            }
        } catch (IOException ignored) {
            // closing anyway
        }
        drop(p);
    }

    private void closeListeners() {
        synchronized (listeners) {
            listenersClosed = true;
            for (ServerSocketChannel l : listeners) {
                closeQuietly(l);
            }
        }
    }

    private static void closeQuietly(java.nio.channels.Channel c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    /**
     * Closes the listeners and the connections that have not authenticated yet; returns once the ports are released.
     * Live channels stay open (a service can still tell its clients goodbye); {@link #close()} ends them.
     */
    public void stopAccepting() {
        if (events == null) {
            shutdown();
            return;
        }
        if (acceptingStopped || closed) {
            return;
        }
        acceptingStopped = true;
        if (Thread.currentThread() == acceptor) {
            stopListening();
            return;
        }
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        tasks.add(() -> {
            stopListening();
            done.countDown();
        });
        selector.wakeup();
        try {
            if (!done.await(5, TimeUnit.SECONDS)) {
                shutdown(); // the loop is stuck: end it, which releases the ports too
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Ends the selector loop, which closes the listeners, pending and event connections and the selector. */
    private void shutdown() {
        if (closed) {
            return;
        }
        closed = true;
        selector.wakeup();
        if (Thread.currentThread() != acceptor) {
            try {
                acceptor.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * {@link #stopAccepting()}, then closes every live channel (handlers blocked in {@link WireChannel#receive()} get
     * an {@link IOException}) and interrupts the handler threads. Handlers that still have work to finish (a command to
     * stop) should have done it before: an interrupt closes a channel the thread is blocked on.
     */
    @Override
    public void close() {
        stopAccepting();
        if (events != null) {
            // what was queued (a Shutdown to every peer) goes out first, for a bounded time
            new ArrayList<>(liveEvents).forEach(WireConnection::close);
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LINGER_MILLIS);
            while (!lingering.isEmpty() && System.nanoTime() - until < 0 && acceptor.isAlive()) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            shutdown();
        }
        for (WireChannel<M> ch : live) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // closing
            }
        }
        pool.shutdownNow();
    }

    @Override
    public String toString() {
        return name + " " + endpoints;
    }
}
