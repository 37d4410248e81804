package org.troika.rsh.driver;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
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
import org.troika.wire.WireChannel;
import org.troika.wire.WireException;
import org.troika.wire.WireServer;

/**
 * The driver service inside {@code troika run}: the registry of hosts → task-service endpoints.
 *
 * <ul>
 *   <li>Task services connect, {@link RelayMessage.Register} and keep the connection: heartbeats both ways. A host whose
 *       service disconnects or stays silent for the liveness timeout is reported once to the {@link HostLostListener}
 *       (a killed or partitioned host; plain mpirun would hang on a partition).</li>
 *   <li>Launch agents connect once: {@link RelayMessage.Lookup} → {@link RelayMessage.LookupReply}. With {@link
 *       #openAgentKey} they use the agent key ({@code AgentKey}), which the driver accepts for nothing but one Lookup
 *       per expected host: after the last host's, the key is spent, every task service is told to delete its copy
 *       ({@link RelayMessage.AgentKeySpent}), and the launcher's callback deletes the launcher's.</li>
 *   <li>Binds only to the address it is given (the NIC that reaches the hosts, or loopback), on a {@link WireServer}:
 *       hello deadline, bounds on connections that have not proven the key, bounded threads.</li>
 * </ul>
 */
public final class DriverService implements AutoCloseable {
    /** One registered task service. */
    public record HostInfo(String host, String hostname, List<Endpoint> endpoints, List<NicAddress> nics) {}

    private final Secret secret;
    private final Set<String> expected;
    private final Duration heartbeat;
    private final Duration livenessTimeout;
    private final HostLostListener listener;
    private final WireServer<RelayMessage> server;
    private final Map<String, Registration> hosts = new ConcurrentHashMap<>();
    private final Set<String> lost = ConcurrentHashMap.newKeySet();
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "driver-service");
        t.setDaemon(true);
        return t;
    });
    private final Object changed = new Object();
    private volatile boolean closing;
    /** The agent key while it is open, else {@code null}. */
    private volatile Secret agentKey;
    private volatile Runnable onAgentKeySpent;
    private final Set<String> agentLookups = ConcurrentHashMap.newKeySet();

    private static final class Registration {
        final HostInfo info;
        final WireChannel<RelayMessage> channel;
        volatile long lastSeenNanos = System.nanoTime();
        volatile CountDownLatch probeDone = new CountDownLatch(1);
        volatile Map<String, List<String>> probe = Map.of();
        final Map<String, java.util.concurrent.CompletableFuture<String>> stored = new ConcurrentHashMap<>();

        Registration(HostInfo info, WireChannel<RelayMessage> channel) {
            this.info = info;
            this.channel = channel;
        }
    }

    public DriverService(Secret secret, InetAddress bind, List<String> expectedHosts, Duration heartbeat,
            Duration livenessTimeout, HostLostListener listener) throws IOException {
        this.secret = secret;
        this.expected = new LinkedHashSet<>(expectedHosts);
        this.heartbeat = heartbeat;
        this.livenessTimeout = livenessTimeout;
        this.listener = listener;
        // one long-lived connection per host, plus agents' lookups
        this.server = WireServer.start("driver-service", Protocol.RELAY, secret, List.of(bind),
                WireServer.Limits.DEFAULT.withMaxConnections(WireServer.Limits.DEFAULT.maxConnections() + expected.size()),
                this::serve);
        pool.submit(this::watchdog);
    }

    /**
     * Accepts {@code key} (the launch agent key) for one {@link RelayMessage.Lookup} of each expected host, until all
     * have been looked up; then refuses it, sends {@link RelayMessage.AgentKeySpent} to every registered task service
     * and runs {@code onSpent} (once, on the thread that served the last lookup).
     */
    public void openAgentKey(Secret key, Runnable onSpent) {
        this.onAgentKeySpent = onSpent;
        this.agentKey = key;
        server.acceptAlso(key);
    }

    /** Whether the agent key is still accepted. */
    public boolean agentKeyOpen() {
        return agentKey != null;
    }

    /** Where agents and task services reach this driver. */
    public Endpoint endpoint() {
        return server.endpoints().get(0);
    }

    /** Registered hosts, in the expected order. */
    public List<HostInfo> hosts() {
        List<HostInfo> out = new ArrayList<>();
        for (String h : expected) {
            Registration r = hosts.get(h);
            if (r != null) {
                out.add(r.info);
            }
        }
        return out;
    }

    /** Waits until every expected host registered. */
    public void awaitHosts(Duration timeout) throws HostsNotReadyException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (changed) {
            while (!hosts.keySet().containsAll(expected)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    List<String> missing = new ArrayList<>(expected);
                    missing.removeAll(hosts.keySet());
                    throw new HostsNotReadyException(missing, timeout);
                }
                TimeUnit.NANOSECONDS.timedWait(changed, left);
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
        for (HostInfo h : hosts()) {
            hosts.get(h.host()).channel.send(new RelayMessage.NodeStore(jobId));
        }
    }

    /**
     * Sends key material to every registered host ({@link RelayMessage.PrivateFile}): each task service writes it 0600 in
     * its private directory and names it to its commands as {@code envName}. Returns once every host confirmed.
     *
     * @throws IOException naming the first host that refused, failed or did not answer within {@code timeout}
     */
    public void sendPrivateFile(String envName, byte[] content, Duration timeout) throws IOException,
            InterruptedException {
        Map<String, java.util.concurrent.CompletableFuture<String>> waiting = new LinkedHashMap<>();
        for (HostInfo h : hosts()) {
            Registration r = hosts.get(h.host());
            var f = new java.util.concurrent.CompletableFuture<String>();
            r.stored.put(envName, f);
            waiting.put(h.host(), f);
            r.channel.send(new RelayMessage.PrivateFile(envName, content));
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
                hosts.get(w.getKey()).stored.remove(envName);
            }
            if (!problem.isEmpty()) {
                throw new IOException("host " + w.getKey() + " did not store " + envName + ": " + problem);
            }
        }
    }

    /**
     * Asks every host to probe every other host's endpoints (all-to-all; ring above {@code allToAllLimit} hosts) and
     * returns, per prober, per peer, the peer addresses that answered as that peer.
     */
    public Map<String, Map<String, List<String>>> probe(Duration perAddressTimeout, Duration overall, int allToAllLimit)
            throws IOException, InterruptedException {
        List<HostInfo> all = hosts();
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


    /** One authenticated connection; {@link WireServer} closes it when this returns. */
    private void serve(WireChannel<RelayMessage> c, RelayMessage first) {
        String registered = null;
        try {
            Secret agent = agentKey;
            if (c.keyedWith(agent) || agent == null && !c.keyedWith(secret)) {
                serveAgent(c, first);
                return;
            }
            if (first instanceof RelayMessage.Lookup l) {
                Registration r = hosts.get(l.host());
                c.send(new RelayMessage.LookupReply(l.host(), r == null ? List.of() : r.info.endpoints()));
                return;
            }
            if (first instanceof RelayMessage.Ping) {
                c.send(new RelayMessage.Pong("driver"));
                return;
            }
            if (!(first instanceof RelayMessage.Register reg)) {
                c.send(new RelayMessage.Failure("unexpected " + first.getClass().getSimpleName() + " at the driver"));
                return;
            }
            if (!expected.contains(reg.host()) || hosts.containsKey(reg.host())) {
                c.send(new RelayMessage.Failure("host " + reg.host() + " is not expected or already registered"));
                return;
            }
            Registration r = new Registration(new HostInfo(reg.host(), reg.hostname(), reg.endpoints(), reg.nics()), c);
            hosts.put(reg.host(), r);
            registered = reg.host();
            c.setReadTimeoutMillis((int) livenessTimeout.toMillis());
            synchronized (changed) {
                changed.notifyAll();
            }
            pool.submit(() -> heartbeats(r));
            while (true) {
                RelayMessage m = c.receive();
                r.lastSeenNanos = System.nanoTime();
                if (m instanceof RelayMessage.ProbeReport p) {
                    r.probe = p.reachable();
                    r.probeDone.countDown();
                } else if (m instanceof RelayMessage.FileStored f) {
                    var pending = r.stored.get(f.envName());
                    if (pending != null) {
                        pending.complete(f.problem());
                    }
                }
            }
        } catch (WireException e) {
            // unauthenticated or malformed: dropped without acting on it
            if (registered != null) {
                reportLost(registered, "protocol error from its task service: " + e.getMessage());
            }
        } catch (IOException e) {
            if (registered != null) {
                reportLost(registered, WireChannel.isTimeout(e) ? "no heartbeat for " + livenessTimeout.toMillis() + " ms"
                        : e instanceof EOFException ? "task service disconnected" : "task service connection: " + e.getMessage());
            }
        }
    }

    /** A connection keyed with the agent key: one Lookup per expected host while the key is open, nothing else. */
    private void serveAgent(WireChannel<RelayMessage> c, RelayMessage first) throws IOException {
        if (!(first instanceof RelayMessage.Lookup l) || agentKey == null || !expected.contains(l.host())
                || !agentLookups.add(l.host())) {
            c.send(new RelayMessage.Failure("the launch agent key allows one lookup per host of this launch"));
            return;
        }
        Registration r = hosts.get(l.host());
        c.send(new RelayMessage.LookupReply(l.host(), r == null ? List.of() : r.info.endpoints()));
        if (agentLookups.containsAll(expected)) {
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
            then.run();
        }
    }

    private void heartbeats(Registration r) {
        try {
            while (!closing && !lost.contains(r.info.host())) {
                r.channel.send(new RelayMessage.Heartbeat(System.currentTimeMillis()));
                Thread.sleep(heartbeat.toMillis());
            }
        } catch (IOException e) {
            reportLost(r.info.host(), "cannot reach its task service: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void watchdog() {
        try {
            while (!closing) {
                Thread.sleep(Math.max(100, heartbeat.toMillis() / 2));
                long now = System.nanoTime();
                for (Registration r : hosts.values()) {
                    if (now - r.lastSeenNanos > livenessTimeout.toNanos()) {
                        reportLost(r.info.host(), "no heartbeat for " + livenessTimeout.toMillis() + " ms");
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void reportLost(String host, String reason) {
        if (closing || !lost.add(host)) {
            return;
        }
        Registration r = hosts.get(host);
        if (r != null) {
            closeQuietly(r.channel);
        }
        listener.hostLost(host, reason);
    }

    private static void closeQuietly(WireChannel<RelayMessage> c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    /** Tells every task service to stop and closes the registry. */
    @Override
    public void close() {
        closing = true;
        server.stopAccepting();
        for (Registration r : hosts.values()) {
            try {
                r.channel.send(new RelayMessage.Shutdown("job finished"));
            } catch (IOException ignored) {
                // already gone
            }
            closeQuietly(r.channel);
        }
        server.close();
        pool.shutdownNow();
    }
}
