package org.troika.rsh.driver;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.troika.wire.Endpoint;
import org.troika.wire.NicAddress;
import org.troika.wire.Protocol;
import org.troika.wire.RelayMessage;
import org.troika.wire.Secret;
import org.troika.common.AwakeClock;
import org.troika.wire.WireConnection;
import org.troika.wire.WireException;
import org.troika.wire.WireServer;

/**
 * The driver service inside {@code troika run}: the registry of hosts → task-service endpoints.
 *
 * <ul>
 *   <li>Task services connect, {@link RelayMessage.Register} (answered {@link RelayMessage.Registered}, so a service
 *       whose connection the driver dropped before reading it knows to register again) and keep the connection:
 *       heartbeats both ways (the driver's rarer than the hosts', see {@link org.troika.rsh.Liveness}). A host whose
 *       service disconnects or stays silent for the liveness timeout is reported once to the {@link HostLostListener}
 *       (a killed or partitioned host; plain mpirun would hang on a partition).</li>
 *   <li>Launch agents connect once: {@link RelayMessage.Lookup} → {@link RelayMessage.LookupReply}. With {@link
 *       #openAgentKey} they use the agent key ({@code AgentKey}), which the driver accepts for nothing but one Lookup
 *       per expected host: after the last host's, the key is spent, every task service is told to delete its copy
 *       ({@link RelayMessage.AgentKeySpent}), and the launcher's callback deletes the launcher's.</li>
 *   <li>The expected hosts may change while it runs (a warm relay session: an elastic job's services outlive its
 *       generations): {@link #expect} admits hosts (again, after a loss), {@link #release} stops one host's service
 *       without reporting it lost, and {@link #openAgentKey(Secret, Collection, Runnable)} opens each launch's agent key
 *       for that launch's hosts only.</li>
 *   <li>Binds only to the address it is given (the NIC that reaches the hosts, or loopback), and to those added with
 *       {@link #listen} (hosts reached through another interface), on a {@link WireServer}: hello deadline, bounds on
 *       connections that have not proven the key.</li>
 * </ul>
 *
 * <p>Built for thousands of hosts: every connection is served in the server's event mode (its selector thread reads
 * all frames; no thread per host), the bounds grow with the expected hosts ({@link WireServer#reserve}: all of them may
 * register at once), and one liveness thread sends every host its heartbeat and checks every host's silence, a
 * constant amount of work per host and heartbeat. Silence is measured on an {@link AwakeClock}: when troika itself is
 * stopped (Ctrl-Z, {@code SIGSTOP}) or starved, the hosts' heartbeats wait in the sockets, and no host is blamed for
 * that pause; a host lost soon after one is reported with the pause named. Callbacks ({@link #onRegistered}, the
 * {@link HostLostListener}, an agent key's spending) run in order on one thread of the driver's own.
 */
public final class DriverService implements AutoCloseable {
    /** One registered task service. */
    public record HostInfo(String host, String hostname, List<Endpoint> endpoints, List<NicAddress> nics) {}

    /** How much later than due the liveness thread may wake and still count as running (see {@link AwakeClock}). */
    static final Duration PAUSE_SLACK = Duration.ofMillis(750);

    private final Secret secret;
    /** Hosts whose services may register, in the order given (guarded by itself). */
    private final Set<String> expected;
    private final Duration heartbeat;
    /** How often this driver sends each host a heartbeat. */
    private final Duration driverBeat;
    private final Duration livenessTimeout;
    private final HostLostListener listener;
    private final WireServer<RelayMessage> server;
    private final Map<String, Registration> hosts = new ConcurrentHashMap<>();
    private final Set<String> lost = ConcurrentHashMap.newKeySet();
    /** Callbacks, in order, off the selector thread. */
    private final ExecutorService callbacks = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "driver-service-events");
        t.setDaemon(true);
        return t;
    });
    private final AwakeClock clock;
    private final Thread liveness;
    /** Host words in the order they registered (guarded by itself): waiters follow it instead of rescanning. */
    private final List<String> registrationLog = new ArrayList<>();
    private volatile boolean closing;
    /** The agent key while it is open, else {@code null}. */
    private volatile Secret agentKey;
    private volatile Runnable onAgentKeySpent;
    private final Set<String> agentLookups = ConcurrentHashMap.newKeySet();
    /** The hosts of the launch whose agent key is open: one Lookup each. */
    private volatile Set<String> launchHosts = Set.of();

    private static final class Registration {
        final HostInfo info;
        final WireConnection<RelayMessage> channel;
        /** {@link AwakeClock} nanos of the last frame from this host. */
        volatile long lastSeen;
        /** {@link AwakeClock} nanos when this host's next heartbeat is due (liveness thread only). */
        long nextBeat;
        volatile CountDownLatch probeDone = new CountDownLatch(1);
        volatile Map<String, List<String>> probe = Map.of();
        final Map<String, java.util.concurrent.CompletableFuture<String>> stored = new ConcurrentHashMap<>();
        /** Counted down when its connection ended, whoever ended it. */
        final CountDownLatch ended = new CountDownLatch(1);

        Registration(HostInfo info, WireConnection<RelayMessage> channel, long now, long heartbeat) {
            this.info = info;
            this.channel = channel;
            this.lastSeen = now;
            this.nextBeat = now + heartbeat;
        }
    }

    /** Connections kept free for hosts beyond the expected ones (a warm session admits more later). */
    static final int MIN_HOST_CONNECTIONS = 256;

    /** A driver that sends its heartbeats as often as the hosts send theirs. */
    public DriverService(Secret secret, InetAddress bind, List<String> expectedHosts, Duration heartbeat,
            Duration livenessTimeout, HostLostListener listener) throws IOException {
        this(secret, bind, expectedHosts, heartbeat, livenessTimeout, heartbeat, listener);
    }

    /**
     * @param heartbeat how often the hosts send their heartbeats (the liveness interval)
     * @param livenessTimeout silence after which a host is lost
     * @param driverBeat how often this driver sends each host a heartbeat (its services must wait for longer than that
     *     before they suspect it: {@link org.troika.rsh.Liveness#DRIVER_TIMEOUT})
     */
    public DriverService(Secret secret, InetAddress bind, List<String> expectedHosts, Duration heartbeat,
            Duration livenessTimeout, Duration driverBeat, HostLostListener listener) throws IOException {
        this.secret = secret;
        this.expected = java.util.Collections.synchronizedSet(new LinkedHashSet<>(expectedHosts));
        this.heartbeat = heartbeat;
        this.driverBeat = driverBeat;
        this.livenessTimeout = livenessTimeout;
        this.listener = listener;
        Duration tick = tick(heartbeat);
        this.clock = AwakeClock.system(tick, PAUSE_SLACK);
        // one long-lived connection per host, plus agents' lookups; a warm session's later hosts widen it (expect)
        this.server = WireServer.startEvents("driver-service", Protocol.RELAY, secret, List.of(bind),
                WireServer.Limits.DEFAULT.withMaxConnections(WireServer.Limits.DEFAULT.maxConnections()
                        + MIN_HOST_CONNECTIONS), new WireServer.Events<>() {
                    @Override
                    public void received(WireConnection<RelayMessage> c, RelayMessage m) throws IOException {
                        DriverService.this.received(c, m);
                    }

                    @Override
                    public void closed(WireConnection<RelayMessage> c, IOException cause) {
                        DriverService.this.closed(c, cause);
                    }
                });
        reserveForHosts();
        this.liveness = new Thread(() -> livenessLoop(tick), "driver-service-liveness");
        liveness.setDaemon(true);
        liveness.start();
    }

    /** The liveness thread's period: a quarter heartbeat, at most 250 ms (heartbeats go out within it of their time). */
    static Duration tick(Duration heartbeat) {
        return Duration.ofMillis(Math.max(10, Math.min(250, heartbeat.toMillis() / 4)));
    }

    /**
     * Every expected host holds a connection and may be registering at the same moment: the bounds on connections and
     * on connections still in their hello grow by the expected hosts (beyond {@link #MIN_HOST_CONNECTIONS} kept for
     * hosts admitted later and agents, and the base's 64 in their hello, which bound what a flood can hold). While a
     * launch's agent key is open they grow by that launch's hosts too: each host's agent looks it up once, and in a
     * tree launch thousands of agents may do so at once (without this, 10,000 simulated agents were answered busy
     * 52,481 times and all looked up in 7.5 s, `bench/scale.sh`). The room goes with the key.
     */
    private void reserveForHosts() {
        synchronized (agentLookups) {
            server.reserve(expected.size() + (agentKey == null ? 0 : launchHosts.size()));
        }
    }

    /**
     * Accepts {@code key} (the launch agent key) for one {@link RelayMessage.Lookup} of each expected host, until all
     * have been looked up; then refuses it, sends {@link RelayMessage.AgentKeySpent} to every registered task service
     * and runs {@code onSpent} (once, on the thread that served the last lookup).
     */
    public void openAgentKey(Secret key, Runnable onSpent) {
        openAgentKey(key, expectedHosts(), onSpent);
    }

    /**
     * Like {@link #openAgentKey(Secret, Runnable)} for one launch over {@code hosts} (a subset of the expected ones):
     * one Lookup per host of that launch, then spent. Replaces a previous launch's key that is still open.
     */
    public void openAgentKey(Secret key, Collection<String> hosts, Runnable onSpent) {
        synchronized (agentLookups) {
            agentLookups.clear();
            this.launchHosts = Set.copyOf(hosts);
            this.onAgentKeySpent = onSpent;
            this.agentKey = key;
            server.acceptAlso(key);
            reserveForHosts();
        }
    }

    /**
     * Admits {@code more} hosts' services (a warm session's added hosts). A host reported lost before may register
     * again: its old registration is dropped without a second report.
     */
    public void expect(Collection<String> more) {
        for (String h : more) {
            Registration old = hosts.get(h);
            if (old != null && lost.contains(h)) {
                hosts.remove(h, old);
                old.channel.close();
            }
            lost.remove(h);
            expected.add(h);
        }
        reserveForHosts();
    }

    /**
     * Stops {@code host}'s service ({@link RelayMessage.Shutdown} with {@code reason}) and forgets the host; its
     * disconnect is not a loss. Nothing when the host is not known.
     */
    public void release(String host, String reason) {
        expected.remove(host);
        reserveForHosts();
        Registration r = hosts.remove(host);
        lost.remove(host);
        if (r != null) {
            try {
                r.channel.send(new RelayMessage.Shutdown(reason));
            } catch (IOException ignored) {
                // already gone
            }
            r.channel.close();
        }
    }

    /** The expected hosts, in order. */
    public List<String> expectedHosts() {
        synchronized (expected) {
            return List.copyOf(expected);
        }
    }

    /** Whether {@code host}'s service is registered and not lost. */
    public boolean registered(String host) {
        return hosts.containsKey(host) && !lost.contains(host);
    }

    /** Told each host word as its service registers (on the driver's callback thread); {@code null}: nobody. */
    public void onRegistered(java.util.function.Consumer<String> listener) {
        this.onRegistered = listener;
    }

    private volatile java.util.function.Consumer<String> onRegistered;

    /**
     * Told, with the host word, each {@link RelayMessage.RankEnded} a registered host's service reports (a watched rank
     * process ended; on the driver's callback thread, in arrival order); {@code null}: nobody.
     */
    public void onRankEnded(java.util.function.BiConsumer<String, RelayMessage.RankEnded> listener) {
        this.onRankEnded = listener;
    }

    private volatile java.util.function.BiConsumer<String, RelayMessage.RankEnded> onRankEnded;

    /**
     * Where what detached task services print goes ({@link RelayMessage.Output} on their control connection, a line
     * per frame), with the host word; called on the driver's callback thread, in arrival order.
     */
    public void onServiceOutput(java.util.function.BiConsumer<String, RelayMessage.Output> listener) {
        this.onServiceOutput = listener;
    }

    private volatile java.util.function.BiConsumer<String, RelayMessage.Output> onServiceOutput;

    /** Whether the agent key is still accepted. */
    public boolean agentKeyOpen() {
        return agentKey != null;
    }

    /** Where agents on this machine reach this driver: its first listener. */
    public Endpoint endpoint() {
        return server.endpoints().get(0);
    }

    /**
     * Also listens on {@code address} (a local address that routes to hosts the first listener does not reach), or
     * returns the endpoint already there; task services of those hosts register at it. Thread-safe.
     */
    public Endpoint listen(InetAddress address) throws IOException {
        return server.listen(address);
    }

    /** The hosts of the open (or last) agent key's launch its agents have looked up: their daemons are starting. */
    public Set<String> agentLookups() {
        return Set.copyOf(agentLookups);
    }

    /** Registered hosts, in the expected order. */
    public List<HostInfo> hosts() {
        List<HostInfo> out = new ArrayList<>();
        for (String h : expectedHosts()) {
            Registration r = hosts.get(h);
            if (r != null) {
                out.add(r.info);
            }
        }
        return out;
    }

    /** Waits until every expected host registered. */
    public void awaitHosts(Duration timeout) throws HostsNotReadyException, InterruptedException {
        awaitHosts(expectedHosts(), timeout);
    }

    /**
     * Waits until every one of {@code wanted} registered. Linear in the hosts: it follows the registrations as they
     * come instead of checking every wanted host at each one.
     */
    public void awaitHosts(Collection<String> wanted, Duration timeout) throws HostsNotReadyException,
            InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Set<String> missing = new LinkedHashSet<>(wanted);
        int seen;
        synchronized (registrationLog) {
            seen = registrationLog.size();
        }
        missing.removeIf(hosts::containsKey);
        while (!missing.isEmpty()) {
            synchronized (registrationLog) {
                while (seen < registrationLog.size()) {
                    missing.remove(registrationLog.get(seen++));
                }
                if (missing.isEmpty()) {
                    break;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new HostsNotReadyException(List.copyOf(missing), timeout);
                }
                TimeUnit.NANOSECONDS.timedWait(registrationLog, left);
            }
        }
    }

    /**
     * When several hosts (or a host and this driver's machine) report the same kernel hostname, tells each service to
     * run commands under its host word as hostname in a private UTS namespace. Returns whether it did.
     */
    public boolean separateSharedHostnames() throws IOException {
        Map<String, Integer> count = new LinkedHashMap<>();
        count.merge(InetAddress.getLocalHost().getHostName(), 1, Integer::sum);
        for (Registration r : hosts.values()) {
            count.merge(r.info.hostname(), 1, Integer::sum);
        }
        boolean any = false;
        for (Registration r : hosts.values()) {
            if (count.get(r.info.hostname()) > 1) {
                r.channel.send(new RelayMessage.Configure(r.info.host()));
                any = true;
            }
        }
        return any;
    }

    /** Sends each host its interface names for {@code NCCL_SOCKET_IFNAME} (hosts missing from the map get none). */
    public void sendNcclInterfaces(Map<String, List<String>> ifnamesByHost) throws IOException {
        for (Map.Entry<String, List<String>> e : ifnamesByHost.entrySet()) {
            Registration r = hosts.get(e.getKey());
            if (r != null && !e.getValue().isEmpty()) {
                r.channel.send(new RelayMessage.Networks(String.join(",", e.getValue())));
            }
        }
    }

    /** Tells every registered host that it holds elastic job {@code jobId}'s node store ({@link RelayMessage.NodeStore}). */
    public void announceNodeStore(String jobId) throws IOException {
        announceNodeStore(hostNames(), jobId);
    }

    /** {@link #announceNodeStore(String)} to the registered ones of {@code to}. */
    public void announceNodeStore(Collection<String> to, String jobId) throws IOException {
        for (String h : to) {
            Registration r = hosts.get(h);
            if (r != null) {
                r.channel.send(new RelayMessage.NodeStore(jobId));
            }
        }
    }

    private List<String> hostNames() {
        return hosts().stream().map(HostInfo::host).toList();
    }

    /**
     * Sends key material to every registered host ({@link RelayMessage.PrivateFile}): each task service writes it 0600 in
     * its private directory and names it to its commands as {@code envName}. Returns once every host confirmed.
     *
     * @throws IOException naming the first host that refused, failed or did not answer within {@code timeout}
     */
    public void sendPrivateFile(String envName, byte[] content, Duration timeout) throws IOException,
            InterruptedException {
        sendPrivateFile(hostNames(), envName, content, timeout);
    }

    /** {@link #sendPrivateFile(String, byte[], Duration)} to the registered ones of {@code to}. */
    public void sendPrivateFile(Collection<String> to, String envName, byte[] content, Duration timeout)
            throws IOException, InterruptedException {
        sendAndAwaitStored(to, envName, new RelayMessage.PrivateFile(envName, content), timeout, "store " + envName);
    }

    /**
     * Tells each registered one of {@code to} to accept the launch agent key of {@code label} from now on
     * ({@link RelayMessage.AgentKeyOpen}); returns once every one confirmed.
     *
     * @throws IOException naming the first host that refused or did not answer within {@code timeout}
     */
    public void sendAgentKeyLabel(Collection<String> to, String label, Duration timeout) throws IOException,
            InterruptedException {
        // a task service answers AgentKeyOpen as the file its agents read: FileStored(TROIKA_SECRET_FILE)
        sendAndAwaitStored(to, org.troika.common.TroikaEnv.SECRET_FILE, new RelayMessage.AgentKeyOpen(label),
                timeout, "open the next launch's agent key");
    }

    private void sendAndAwaitStored(Collection<String> to, String envName, RelayMessage m, Duration timeout,
            String what) throws IOException, InterruptedException {
        Map<String, java.util.concurrent.CompletableFuture<String>> waiting = new LinkedHashMap<>();
        for (String h : to) {
            Registration r = hosts.get(h);
            if (r == null) {
                continue;
            }
            var f = new java.util.concurrent.CompletableFuture<String>();
            r.stored.put(envName, f);
            waiting.put(h, f);
            r.channel.send(m);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Map.Entry<String, java.util.concurrent.CompletableFuture<String>> w : waiting.entrySet()) {
            String problem;
            try {
                problem = w.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                problem = "no answer within " + timeout.toMillis() + " ms";
            } catch (java.util.concurrent.ExecutionException e) {
                problem = String.valueOf(e.getCause());
            } finally {
                Registration r = hosts.get(w.getKey());
                if (r != null) {
                    r.stored.remove(envName);
                }
            }
            if (!problem.isEmpty()) {
                throw new IOException("host " + w.getKey() + " did not " + what + ": " + problem);
            }
        }
    }

    /**
     * Asks every host to probe every other host's endpoints (all-to-all; ring above {@code allToAllLimit} hosts) and
     * returns, per prober, per peer, the peer addresses that answered as that peer.
     */
    public Map<String, Map<String, List<String>>> probe(Duration perAddressTimeout, Duration overall, int allToAllLimit)
            throws IOException, InterruptedException {
        return probe(hostNames(), perAddressTimeout, overall, allToAllLimit);
    }

    /** {@link #probe(Duration, Duration, int)} among the registered ones of {@code among} only. */
    public Map<String, Map<String, List<String>>> probe(Collection<String> among, Duration perAddressTimeout,
            Duration overall, int allToAllLimit) throws IOException, InterruptedException {
        Set<String> wanted = Set.copyOf(among);
        List<HostInfo> all = hosts().stream().filter(h -> wanted.contains(h.host())).toList();
        for (int i = 0; i < all.size(); i++) {
            Map<String, List<Endpoint>> peers = new LinkedHashMap<>();
            if (all.size() <= allToAllLimit) {
                for (HostInfo p : all) {
                    if (!p.host().equals(all.get(i).host())) {
                        peers.put(p.host(), p.endpoints());
                    }
                }
            } else {
                HostInfo next = all.get((i + 1) % all.size());
                peers.put(next.host(), next.endpoints());
            }
            Registration r = hosts.get(all.get(i).host());
            r.probeDone = new CountDownLatch(1);
            r.channel.send(new RelayMessage.ProbeRequest(peers, (int) perAddressTimeout.toMillis()));
        }
        long deadline = System.nanoTime() + overall.toNanos();
        Map<String, Map<String, List<String>>> out = new LinkedHashMap<>();
        for (HostInfo h : all) {
            Registration r = hosts.get(h.host());
            r.probeDone.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            out.put(h.host(), r.probe);
        }
        return out;
    }


    /** A frame on any connection (selector thread: nothing here blocks). */
    private void received(WireConnection<RelayMessage> c, RelayMessage m) throws IOException {
        if (c.attachment() instanceof Registration r) {
            r.lastSeen = clock.nanos();
            if (m instanceof RelayMessage.ProbeReport p) {
                r.probe = p.reachable();
                r.probeDone.countDown();
            } else if (m instanceof RelayMessage.FileStored f) {
                var pending = r.stored.get(f.envName());
                if (pending != null) {
                    pending.complete(f.problem());
                }
            } else if (m instanceof RelayMessage.RankEnded e) {
                var told = onRankEnded;
                if (told != null) {
                    callbacks.execute(() -> told.accept(r.info.host(), e));
                }
            } else if (m instanceof RelayMessage.Output o) {
                var told = onServiceOutput;
                if (told != null) {
                    // the callbacks' one thread keeps the arrival order; a blocked stderr never stalls the selector
                    callbacks.execute(() -> told.accept(r.info.host(), o));
                }
            }
            return;
        }
        first(c, m);
    }

    /** A connection's first message: an agent's or the launcher's one request, or a task service's Register. */
    private void first(WireConnection<RelayMessage> c, RelayMessage first) throws IOException {
        Secret agent = agentKey;
        if (c.keyedWith(agent) || agent == null && !c.keyedWith(secret)) {
            serveAgent(c, first);
            c.close();
            return;
        }
        if (first instanceof RelayMessage.Lookup l) {
            Registration r = hosts.get(l.host());
            c.send(new RelayMessage.LookupReply(l.host(), r == null ? List.of() : r.info.endpoints()));
            c.close();
            return;
        }
        if (first instanceof RelayMessage.Ping) {
            c.send(new RelayMessage.Pong("driver"));
            c.close();
            return;
        }
        if (!(first instanceof RelayMessage.Register reg)) {
            c.send(new RelayMessage.Failure("unexpected " + first.getClass().getSimpleName() + " at the driver"));
            c.close();
            return;
        }
        if (!expected.contains(reg.host()) || hosts.containsKey(reg.host())) {
            c.send(new RelayMessage.Failure("host " + reg.host() + " is not expected or already registered"));
            c.close();
            return;
        }
        Registration r = new Registration(new HostInfo(reg.host(), reg.hostname(), reg.endpoints(), reg.nics()), c,
                clock.nanos(), driverBeat.toNanos());
        // the acknowledgement is the connection's first frame from here: sent before the host is visible to the
        // threads that send it anything else (only this thread registers, so the check above still holds)
        c.send(new RelayMessage.Registered());
        if (hosts.putIfAbsent(reg.host(), r) != null) {
            c.send(new RelayMessage.Failure("host " + reg.host() + " is already registered"));
            c.close();
            return;
        }
        c.attach(r);
        arrivals.add(r);
        synchronized (registrationLog) {
            registrationLog.add(reg.host());
            registrationLog.notifyAll();
        }
        java.util.function.Consumer<String> told = onRegistered;
        if (told != null) {
            callbacks.execute(() -> told.accept(reg.host()));
        }
    }

    /** A connection ended; a registered host's end that this side did not cause is its loss. */
    private void closed(WireConnection<RelayMessage> c, IOException cause) {
        if (!(c.attachment() instanceof Registration r)) {
            return;
        }
        r.ended.countDown();
        if (cause == null) {
            return;
        }
        reportLost(r, cause instanceof WireException ? "protocol error from its task service: " + cause.getMessage()
                : cause instanceof EOFException ? "task service disconnected"
                : "task service connection: " + cause.getMessage());
    }

    /** A connection keyed with the agent key: one Lookup per expected host while the key is open, nothing else. */
    private void serveAgent(WireConnection<RelayMessage> c, RelayMessage first) throws IOException {
        boolean allowed;
        boolean last;
        synchronized (agentLookups) {
            Set<String> launch = launchHosts;
            allowed = first instanceof RelayMessage.Lookup l && agentKey != null && c.keyedWith(agentKey)
                    && launch.contains(l.host()) && agentLookups.add(l.host());
            // only the launch's hosts are ever added: a count, not a walk over the launch per lookup
            last = allowed && agentLookups.size() == launch.size();
        }
        if (!allowed) {
            c.send(new RelayMessage.Failure("the launch agent key allows one lookup per host of this launch"));
            return;
        }
        RelayMessage.Lookup l = (RelayMessage.Lookup) first;
        Registration r = hosts.get(l.host());
        c.send(new RelayMessage.LookupReply(l.host(), r == null ? List.of() : r.info.endpoints()));
        if (last) {
            spendAgentKey();
        }
    }

    private void spendAgentKey() {
        Runnable then;
        synchronized (agentLookups) {
            if (agentKey == null) {
                return;
            }
            agentKey = null;
            server.acceptAlso(null);
            reserveForHosts();
            then = onAgentKeySpent;
        }
        for (Registration r : hosts.values()) {
            try {
                r.channel.send(new RelayMessage.AgentKeySpent());
            } catch (IOException e) {
                // that host is lost; the liveness check reports it
            }
        }
        if (then != null) {
            callbacks.execute(then);
        }
    }

    /** Registrations the liveness thread has not scheduled yet (the selector thread adds them). */
    private final java.util.Queue<Registration> arrivals = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /**
     * The liveness thread: every tick it notes a pause of this process (the {@link AwakeClock}), sends each host whose
     * heartbeat is due its heartbeat, and reports each host silent for longer than the liveness timeout. It looks only
     * at hosts with something due: heartbeats in a queue in the order they are due (every host's interval is the
     * same), and silence checks on a wheel of tick-wide slots, each host in the slot of the moment it would have been
     * silent for the timeout, moved on when a heartbeat came meanwhile. So a host costs a heartbeat and a check or two
     * per timeout, not a look every tick (10,000 hosts: 40,000 looks a second before).
     */
    private void livenessLoop(Duration tick) {
        long timeout = livenessTimeout.toNanos();
        long beat = driverBeat.toNanos();
        long width = tick.toNanos();
        LivenessWheel<Registration> wheel = new LivenessWheel<>(width, timeout, clock.nanos());
        java.util.ArrayDeque<Registration> beats = new java.util.ArrayDeque<>();
        try {
            while (!closing) {
                Thread.sleep(tick.toMillis());
                clock.tick();
                long now = clock.nanos();
                for (Registration r; (r = arrivals.poll()) != null; ) {
                    beats.add(r);
                    wheel.add(r, r.lastSeen + timeout);
                }
                for (Registration r; (r = beats.peek()) != null && now - r.nextBeat >= 0; ) {
                    beats.poll();
                    if (!current(r) || r.channel.isClosed()) {
                        continue; // released, lost or registered anew: no more heartbeats on this connection
                    }
                    r.nextBeat = now + beat;
                    beats.add(r);
                    try {
                        r.channel.send(new RelayMessage.Heartbeat(System.currentTimeMillis()));
                    } catch (IOException e) {
                        reportLost(r, "cannot reach its task service: " + e.getMessage());
                    }
                }
                wheel.advance(now, r -> {
                    if (!current(r)) {
                        return; // released, lost or registered anew
                    }
                    if (now - r.lastSeen > timeout) {
                        reportLost(r, "no heartbeat for " + livenessTimeout.toMillis() + " ms");
                    } else {
                        wheel.add(r, r.lastSeen + timeout + 1);
                    }
                });
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            if (!closing) {
                System.err.println("troika: the driver's liveness check failed: " + e);
            }
        }
    }

    /** Reports {@code r}'s host lost, once, unless it was released or registered anew meanwhile. */
    /** Whether {@code r} is still its host's registration (not released, lost, or replaced by a new one). */
    private boolean current(Registration r) {
        return hosts.get(r.info.host()) == r;
    }

    private void reportLost(Registration r, String reason) {
        String host = r.info.host();
        if (closing || !current(r) || !lost.add(host)) {
            return;
        }
        r.channel.close();
        AwakeClock.Pause pause = clock.pauseWithin(livenessTimeout.plus(heartbeat));
        String why = pause == null ? reason : reason + ", just after troika itself did not run for "
                + pause.length().toMillis() + " ms (stopped by Ctrl-Z or SIGSTOP, or its machine froze); that pause,"
                + " not the host, may be the cause";
        callbacks.execute(() -> listener.hostLost(host, why));
    }

    /** Tells every task service to stop and closes the registry. */
    @Override
    public void close() {
        close(Duration.ZERO);
    }

    /**
     * {@link RelayMessage.Shutdown#JOB_FINISHED} to every registered service, then waits at most {@code awaitEnd} (for
     * all together) until each ended its connection, which a service does once it has stopped its commands (and
     * removed the job's node store): services that detached from their remote shells have no process on this machine
     * to wait for instead. Then closes everything.
     *
     * @return the hosts whose services ended their connections within the wait
     */
    public Set<String> close(Duration awaitEnd) {
        closing = true;
        server.stopAccepting();
        List<Registration> told = new ArrayList<>(hosts.values());
        Set<String> ended = new java.util.LinkedHashSet<>();
        List<Registration> stopping = new ArrayList<>();
        for (Registration r : told) {
            if (r.ended.getCount() == 0 || lost.contains(r.info.host())) {
                continue; // lost (its end is not this Shutdown's)
            }
            try {
                r.channel.send(new RelayMessage.Shutdown(RelayMessage.Shutdown.JOB_FINISHED));
                stopping.add(r);
            } catch (IOException ignored) {
                // already gone
            }
        }
        long deadline = System.nanoTime() + awaitEnd.toNanos();
        for (Registration r : stopping) {
            try {
                long left = deadline - System.nanoTime();
                if (r.ended.await(Math.max(0, left), TimeUnit.NANOSECONDS)) {
                    ended.add(r.info.host());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (Registration r : told) {
            r.channel.close();
        }
        server.close();
        liveness.interrupt();
        callbacks.shutdown();
        return ended;
    }
}
