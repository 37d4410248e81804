package org.troika.launcher.relay;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;
import org.troika.common.UsageException;
import org.troika.common.exec.ProcessSupervisor;
import org.troika.launcher.timeline.Timeline;
import org.troika.rsh.Liveness;
import org.troika.rsh.driver.DriverService;
import org.troika.rsh.driver.HostsNotReadyException;
import org.troika.wire.RelayMessage;
import org.troika.wire.Endpoint;
import org.troika.wire.Secret;

/**
 * The task services of one job, one per host, with a state each ({@link HostState}): started through the job's
 * {@link ServiceStart} (its remote shell, or Spark's tasks), registered at one {@link DriverService}, provisioned with
 * the job's files, watched for loss, stopped. Static runs, elastic generations, {@code troika doctor} and Spark use it;
 * hosts may join ({@link #start}, {@link #retain}) and leave ({@link #stop}) while a job runs.
 *
 * <pre>
 *   pool.start(hosts)          entries STARTING; the driver expects them; their services start (in the background;
 *                              one host at a time: at most {@link Config#startsInFlight} not registered yet, the
 *                              others wait their turn, which a registration or a failed start passes on)
 *   pool.ready(hosts)          start the missing ones, wait until registered, hand over files: PROVISIONED
 *   pool.stop(host, why)       Shutdown to its service (or its remote shell ended): STOPPED
 *   driver reports a loss      LOST, printed, told to the {@link #onHostLost} listener
 *   pool.close()               Shutdown to every service; their remote shells (or, for services that detached
 *                              from theirs, their driver connections) waited for; stdin files gone
 * </pre>
 *
 * <p>Network: the driver listens on the local address that routes to each host ({@link Config#route}), one listener
 * per distinct address, added as hosts appear; each service is told the listener on its own route. Nothing binds to
 * the wildcard address.
 *
 * <p>Keys: the job secret reaches a started service on its stdin, from a 0600 file deleted as soon as it registered.
 *
 * <p>Threading: one monitor ({@code this}) guards the entries. It is held for bookkeeping and process starts only,
 * never across a wait on the network: blocking driver calls (files, node store, Shutdown) run on the caller's thread
 * without it. The driver's threads report registrations and losses; they take the monitor briefly (so an entry always
 * exists before its service can register) and call the loss listener after releasing it. {@link #ready} (one caller at a
 * time) waits on the monitor, woken when its last host registered or a host was lost, and looks at the hosts still
 * missing (remote shells that ended, start timeouts) every {@link #POLL}: O(hosts) per look, never per registration.
 */
public final class TaskServicePool implements AutoCloseable {
    /** How long the services told to shut down at close may take to end, all together. */
    static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(10);

    /**
     * How many services started one host at a time may be starting at once (a process here each - an ssh client, a
     * template's command, blaunch - that has not registered yet): the rest wait their turn, as Open MPI's and PRRTE's
     * own launches keep 128 in flight. Without the bound, 10,000 hosts meant 10,000 ssh clients (8 MB each) and
     * 20,000 reader threads on the launch node at once.
     */
    public static final int STARTS_IN_FLIGHT = 128;

    /** How often a wait for registrations looks at remote shells that ended. */
    static final Duration POLL = Duration.ofMillis(20);

    /** The local address that routes to a host (where the driver listens for that host's service). */
    @FunctionalInterface
    public interface Route {
        InetAddress to(String host) throws IOException;
    }

    /**
     * What a pool needs.
     *
     * @param prefix the first word of the lines it prints ({@code troika}, {@code troika-spark})
     * @param secret the job secret: services and the driver authenticate with it
     * @param start how services are started
     * @param route where the driver listens for each host ({@link HostAddresses#routeTo(String)} for the relay)
     * @param startTimeout how long a service may take to register, counted from its own start
     * @param heartbeat heartbeat interval of the services
     * @param liveness silence after which a registered host is lost
     * @param driverBeat heartbeat interval of the driver (shorter than its services' patience with it)
     * @param separateSharedHostnames whether hosts sharing a kernel hostname get their host word as hostname in a
     *     private UTS namespace (needs root where they run)
     * @param agentLabel the launch agent key label a service started now gets for a host ({@code null} result: none)
     * @param timeline records each service's start and loss
     * @param err where starts that failed and losses are printed
     */
    public record Config(String prefix, Secret secret, ServiceStart start, Route route, Duration startTimeout,
            Duration heartbeat, Duration liveness, Duration driverBeat, boolean separateSharedHostnames,
            UnaryOperator<String> agentLabel, Timeline timeline, PrintStream err, int startsInFlight) {
        public Config {
            if (startsInFlight < 1) {
                throw new IllegalArgumentException("startsInFlight must be at least 1, not " + startsInFlight);
            }
        }

        /**
         * The relay's defaults: {@link Liveness} intervals (services started with {@code troika-rsh task-service} wait
         * {@link Liveness#DRIVER_TIMEOUT} for the driver), shared hostnames separated, no agent label, no timeline,
         * {@link #STARTS_IN_FLIGHT} starts in flight.
         */
        public static Config of(String prefix, Secret secret, ServiceStart start, Route route, Duration startTimeout,
                PrintStream err) {
            return new Config(prefix, secret, start, route, startTimeout, Liveness.HEARTBEAT, Liveness.TIMEOUT,
                    Liveness.DRIVER_HEARTBEAT, true, host -> null, Timeline.off(), err, STARTS_IN_FLIGHT);
        }

        /** Services that wait only {@code liveness} for the driver: the driver beats as often as they do. */
        public Config withLiveness(Duration heartbeat, Duration liveness) {
            return new Config(prefix, secret, start, route, startTimeout, heartbeat, liveness, heartbeat,
                    separateSharedHostnames, agentLabel, timeline, err, startsInFlight);
        }

        public Config withSeparateSharedHostnames(boolean separate) {
            return new Config(prefix, secret, start, route, startTimeout, heartbeat, liveness, driverBeat, separate,
                    agentLabel, timeline, err, startsInFlight);
        }

        public Config withAgentLabel(UnaryOperator<String> labelForHost) {
            return new Config(prefix, secret, start, route, startTimeout, heartbeat, liveness, driverBeat,
                    separateSharedHostnames, labelForHost, timeline, err, startsInFlight);
        }

        public Config withTimeline(Timeline t) {
            return new Config(prefix, secret, start, route, startTimeout, heartbeat, liveness, driverBeat,
                    separateSharedHostnames, agentLabel, t, err, startsInFlight);
        }

        /** At most {@code n} one-host starts with a process here that have not registered yet. */
        public Config withStartsInFlight(int n) {
            return new Config(prefix, secret, start, route, startTimeout, heartbeat, liveness, driverBeat,
                    separateSharedHostnames, agentLabel, timeline, err, n);
        }
    }

    /** One start of one host's service (a host started again gets a new entry). */
    private static final class Entry {
        final String host;
        /** When its start began (for a start that waited its turn, when the turn came). */
        long startedNanos = System.nanoTime();
        long startedMicros;
        /** Whether it waits for a start in flight to end ({@link Config#startsInFlight}): no process yet. */
        boolean waiting;
        HostState state = HostState.STARTING;
        ProcessSupervisor shell;
        /** Whether {@link #shell} runs other hosts' services too (one srun step): never ended for this host alone. */
        boolean sharedShell;
        java.nio.file.Path secretFile;
        /** The host list its shell read (services started together with a long list), deleted with the secret file. */
        java.nio.file.Path hostFile;
        /** Why it stopped before registering, for the error that names it. */
        String problem;
        /** The files (variable names) it holds. */
        final Set<String> files = new LinkedHashSet<>();
        boolean nodeStore;

        Entry(String host, long startedMicros) {
            this.host = host;
            this.startedMicros = startedMicros;
        }

        /** Whether its service left {@link #shell} once registered: that shell's end is then no sign of its end. */
        boolean detaches;

        /**
         * Whether its remote shell ended, and with it the service: not so for a detaching service's shell once it
         * registered, nor for one that exited 0 (it does only after the service said it registered and detached; the
         * driver's report of that registration may still be on its way).
         */
        boolean shellEnded() {
            if (shell == null || shell.isAlive()) {
                return false;
            }
            return !detaches || !state.isUp() && !Integer.valueOf(0).equals(shell.exitCode());
        }

        /**
         * Whether its start has failed by {@code now} (for one not up yet): stopped or lost, its remote shell ended, or
         * its start timeout passed (counted from its turn: a host still waiting for one has not started).
         */
        boolean startFailed(long now, Duration startTimeout) {
            return state.isFinal() || shellEnded() || !waiting && now - startedNanos >= startTimeout.toNanos();
        }
    }

    private final Config config;
    /** The current entry of every host ever started, in first-start order (guarded by this). */
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    /** Remote shells of services stopped before the end, waited for at close (guarded by this). */
    private final Set<ProcessSupervisor> stoppedShells = new LinkedHashSet<>(); // services started together share one
    /** Hosts waiting for their turn to start, in start order (guarded by this). */
    private final java.util.ArrayDeque<Entry> waiting = new java.util.ArrayDeque<>();
    /**
     * Started one host at a time with a process here that has not registered, ended or timed out yet: at most
     * {@link Config#startsInFlight} (guarded by this).
     */
    private final Set<Entry> inFlight = new java.util.HashSet<>();
    /** Files every host's service gets, by variable name (guarded by this). */
    private final Map<String, byte[]> files = new LinkedHashMap<>();
    private String nodeStoreJob;
    /**
     * The hosts {@link #ready} waits for, empty while nobody waits (mutable: a service may register at any time, e.g. a
     * host started while a generation runs); a registration wakes the waiter only when the last one came (guarded by
     * this).
     */
    private final Set<String> awaited = new java.util.HashSet<>();
    private volatile BiConsumer<String, String> onHostLost = (h, why) -> { };
    private volatile BiConsumer<String, RelayMessage.RankEnded> onRankEnded = (h, ended) -> { };
    private volatile DriverService driver;
    private boolean closed;

    private TaskServicePool(Config config) {
        this.config = config;
    }

    /** A pool with no service yet; the driver starts with the first host's. */
    public static TaskServicePool open(Config config) {
        return new TaskServicePool(config);
    }

    /** Where lost hosts are reported from now on, once per host, on a driver thread (after the state changed). */
    public void onHostLost(BiConsumer<String, String> listener) {
        this.onHostLost = listener;
    }

    /**
     * Where the services' reports of ended rank processes go from now on ({@link RelayMessage.RankEnded}: a watched
     * rank of a fault-tolerant elastic generation ended on that host), with the host word, on a driver thread.
     */
    public void onRankEnded(BiConsumer<String, RelayMessage.RankEnded> listener) {
        this.onRankEnded = listener;
    }

    /** The driver ({@code null} before the first start): key rotation and network choice talk to it. */
    public DriverService driver() {
        return driver;
    }

    /** Where agents on this machine reach the driver ({@code null} before the first start). */
    public Endpoint endpoint() {
        DriverService d = driver;
        return d == null ? null : d.endpoint();
    }

    /** Where {@code host}'s service registers: the driver's listener on the route to it. */
    public Endpoint endpointFor(String host) throws IOException {
        DriverService d = driver;
        if (d == null) {
            throw new IllegalStateException("no task service was started yet");
        }
        return d.listen(config.route().to(host));
    }

    /** {@code host}'s state, or {@code null} when it was never started. */
    public synchronized HostState state(String host) {
        Entry e = entries.get(host);
        return e == null ? null : e.state;
    }

    /** Hosts with a service starting or up (not lost or stopped), in start order. */
    public synchronized List<String> hosts() {
        return entries.values().stream().filter(e -> !e.state.isFinal()).map(e -> e.host).toList();
    }

    /** Hosts whose current service was lost. */
    public synchronized Set<String> lostHosts() {
        Set<String> out = new LinkedHashSet<>();
        entries.values().stream().filter(e -> e.state == HostState.LOST).forEach(e -> out.add(e.host));
        return out;
    }

    /**
     * Starts the services of those of {@code hosts} that have none starting or up (never started, stopped, lost, or
     * their remote shell ended), in the background; returns the hosts that could not be started, and why (of those
     * started now: a host that waits its turn and then fails is named by {@link #ready}).
     */
    public Map<String, String> start(Collection<String> hosts) {
        Map<String, String> failed = new LinkedHashMap<>();
        List<String> restarted = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the task-service pool is closed");
            }
            List<String> toStart = new ArrayList<>();
            for (String host : new LinkedHashSet<>(hosts)) {
                Entry running = entries.get(host);
                if (running != null && !running.state.isFinal() && !running.shellEnded()) {
                    continue;
                }
                if (running != null && !running.state.isFinal()) {
                    end(running, HostState.STOPPED, "its remote shell ended");
                    restarted.add(host);
                }
                toStart.add(host);
            }
            for (Round round : rounds(toStart)) {
                if (round.hosts().size() < 2 || !startTogether(round, failed)) {
                    for (String host : round.hosts()) {
                        Entry e = new Entry(host, config.timeline().nowMicros());
                        e.waiting = true;
                        entries.remove(host); // re-inserted last: start order
                        entries.put(host, e);
                        waiting.add(e);
                    }
                }
            }
            startWaiting(failed);
        }
        restarted.forEach(h -> releaseQuietly(h, "restarting its service"));
        return failed;
    }

    /**
     * Hosts whose services could start together: the same driver listener {@code at} and agent {@code label}
     * ({@code at} is {@code null} for a host whose listener could not be opened: a round of its own, which
     * {@link #startOne} names as failed).
     */
    private record Round(Endpoint at, String label, List<String> hosts) {}

    /** {@code hosts} in {@link Round}s, in start order. Under the monitor. */
    private List<Round> rounds(List<String> hosts) {
        Map<List<Object>, Round> rounds = new LinkedHashMap<>();
        for (String host : hosts) {
            Endpoint at;
            try {
                at = driverFor(host).listen(config.route().to(host));
            } catch (IOException e) {
                rounds.put(List.of(host), new Round(null, null, List.of(host)));
                continue;
            }
            String label = config.agentLabel().apply(host);
            rounds.computeIfAbsent(java.util.Arrays.asList(at, label), k -> new Round(at, label, new ArrayList<>()))
                    .hosts().add(host);
        }
        return List.copyOf(rounds.values());
    }

    /**
     * Starts {@code round}'s services with one process here when the start can ({@link ServiceStart#startTogether}),
     * under the monitor; {@code false} when it cannot (nothing started: start them one by one).
     */
    private boolean startTogether(Round round, Map<String, String> failed) {
        long micros = config.timeline().nowMicros();
        List<Entry> started = new ArrayList<>();
        ServiceStart.Started s;
        try {
            driver.expect(round.hosts());
            for (String host : round.hosts()) {
                Entry e = new Entry(host, micros);
                entries.remove(host); // re-inserted last: start order
                entries.put(host, e);
                started.add(e);
            }
            s = config.start().startTogether(round.hosts(), round.at(), round.label(), config.secret());
        } catch (IOException | UsageException ex) {
            for (Entry e : started) {
                driver.release(e.host, "not started");
                end(e, HostState.STOPPED, ex.getMessage());
                failed.put(e.host, ex.getMessage());
            }
            return true;
        }
        if (s == null) {
            return false;
        }
        for (Entry e : started) {
            e.shell = s.shell();
            e.sharedShell = true;
            e.secretFile = s.secretFile();
            e.hostFile = s.hostFile();
        }
        return true;
    }

    /**
     * Starts waiting hosts while fewer than {@link Config#startsInFlight} starts are in flight (under the monitor);
     * those that fail are ended and, when {@code failed} is given, named in it.
     */
    private void startWaiting(Map<String, String> failed) {
        while (!closed && inFlight.size() < config.startsInFlight() && !waiting.isEmpty()) {
            Entry e = waiting.poll();
            if (e.state != HostState.STARTING || entries.get(e.host) != e) {
                continue; // stopped, or started again, while it waited
            }
            String why = startOne(e);
            if (why != null && failed != null) {
                failed.put(e.host, why);
            }
        }
    }

    /** Starts {@code e}'s service (under the monitor); its failure, or {@code null}. */
    private String startOne(Entry e) {
        String host = e.host;
        e.waiting = false;
        e.startedNanos = System.nanoTime();
        e.startedMicros = config.timeline().nowMicros();
        try {
            DriverService d = driverFor(host);
            Endpoint at = d.listen(config.route().to(host));
            d.expect(List.of(host));
            ServiceStart.Started s = config.start().start(host, at, config.agentLabel().apply(host), config.secret());
            e.shell = s.shell();
            e.secretFile = s.secretFile();
            e.detaches = s.detaches();
            if (e.shell != null) {
                inFlight.add(e);
            }
            return null;
        } catch (IOException | UsageException ex) {
            if (driver != null) {
                driver.release(host, "not started");
            }
            end(e, HostState.STOPPED, ex.getMessage());
            return ex.getMessage();
        }
    }

    /**
     * Takes the starts in flight whose remote shell ended or whose start timeout passed out of the count (they failed:
     * {@link #awaitRegistered} names them) and starts waiting hosts in their place (under the monitor). O(starts in
     * flight).
     */
    private void releaseFailedStarts() {
        long now = System.nanoTime();
        if (inFlight.removeIf(e -> e.startFailed(now, config.startTimeout()))) {
            startWaiting(null);
        }
    }

    /** The driver, started at the route of the first host (guarded by this). */
    private DriverService driverFor(String firstHost) throws IOException {
        if (driver == null) {
            DriverService d = new DriverService(config.secret(), config.route().to(firstHost), List.of(),
                    config.heartbeat(), config.liveness(), config.driverBeat(), this::lost);
            d.onRegistered(this::registered);
            d.onRankEnded((host, ended) -> onRankEnded.accept(host, ended));
            d.onServiceOutput((host, out) -> config.start().detachedOutput(host, out.data()));
            driver = d;
        }
        return driver;
    }

    /** A service registered (driver thread): its stdin file goes at once; the timeline gets its start span. */
    private void registered(String host) {
        Entry e;
        synchronized (this) {
            e = entries.get(host);
            if (e == null || e.state != HostState.STARTING || !move(e, HostState.REGISTERED)) {
                return;
            }
            deleteFiles(e);
            if (inFlight.remove(e)) {
                startWaiting(null);
            }
            if (awaited.remove(host) && awaited.isEmpty()) {
                notifyAll(); // one wake-up for the whole start, not one per host: no quadratic rescans
            }
        }
        config.timeline().span(Timeline.Kind.SERVICE, "task service", host, e.startedMicros,
                config.timeline().nowMicros(), Map.of());
    }

    /** The driver lost a host's service (driver thread). */
    private void lost(String host, String why) {
        synchronized (this) {
            Entry e = entries.get(host);
            if (e == null || !move(e, HostState.LOST)) {
                return;
            }
            notifyAll();
        }
        config.err().println(config.prefix() + ": host " + host + " lost: " + why);
        config.timeline().instant(Timeline.Kind.FAILURE, "host lost", host, Map.of("why", why));
        onHostLost.accept(host, why);
    }

    /** {@code e} to {@code next} if {@link HostState#canBecome} allows it (never out of a final state). */
    private static boolean move(Entry e, HostState next) {
        if (!e.state.canBecome(next)) {
            return false;
        }
        e.state = next;
        return true;
    }

    /** Ends {@code e} (under the monitor): final state, stdin file gone, its shell kept to wait for at close. */
    private void end(Entry e, HostState how, String problem) {
        if (!move(e, how)) {
            return;
        }
        e.problem = problem;
        deleteFiles(e);
        if (e.shell != null) {
            stoppedShells.add(e.shell);
        }
        if (inFlight.remove(e)) {
            startWaiting(null);
        }
    }

    /**
     * Deletes the secret (and host-list) file {@code e}'s remote shell read: it has started the service, which read its
     * stdin (services started together share the files; the first of them to register or end deletes them).
     */
    private static void deleteFiles(Entry e) {
        Secret.deleteFile(e.secretFile);
        e.secretFile = null;
        if (e.hostFile != null) {
            try {
                java.nio.file.Files.deleteIfExists(e.hostFile);
            } catch (IOException ignored) {
                // a host list, not a secret: best effort
            }
            e.hostFile = null;
        }
    }

    /**
     * Keeps services on exactly {@code hosts}: starts those not starting or up (in the background) and stops the
     * others. Returns at once; starts that failed are printed.
     */
    public void retain(Collection<String> hosts) {
        Set<String> keep = new LinkedHashSet<>(hosts);
        for (String h : hosts()) {
            if (!keep.contains(h)) {
                stop(h, "host left the job");
            }
        }
        start(keep).forEach((h, why) -> config.err().println(config.prefix() + ": cannot start the task service of "
                + h + ": " + why));
    }

    /**
     * Stops {@code host}'s service: Shutdown when it registered (its remote shell ends with it and is waited for at
     * close), else its remote shell is ended now (nothing would tell a service that never registered to stop).
     */
    public void stop(String host, String why) {
        ProcessSupervisor unregistered = null;
        synchronized (this) {
            Entry e = entries.get(host);
            if (e == null || e.state.isFinal()) {
                return;
            }
            boolean wasUp = e.state.isUp();
            end(e, HostState.STOPPED, why);
            if (!wasUp && e.shell != null && !e.sharedShell && e.shell.isAlive()) {
                unregistered = e.shell; // a shared one runs other hosts' services: this one, if it registers, is refused
            }
        }
        releaseQuietly(host, why);
        if (unregistered != null) {
            ProcessSupervisor shell = unregistered;
            Thread t = new Thread(() -> {
                try {
                    shell.terminate(Duration.ofSeconds(2));
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }, "troika-relay-stop-" + host);
            t.setDaemon(true);
            t.start();
        }
    }

    private void releaseQuietly(String host, String why) {
        DriverService d = driver;
        if (d != null) {
            d.release(host, why);
        }
    }

    /**
     * Readies {@code hosts} for a launch: starts the services not starting or up, waits until each registered (its
     * start timeout counted from its own start; a host whose remote shell ended fails at once), then hands the fresh
     * ones the job's files and node store ({@link HostState#PROVISIONED}).
     *
     * @throws HostsNotReadyException naming the hosts that could not start, did not register in time, or whose remote
     *     shell ended first; their services are stopped (the pool stays usable without them)
     */
    public void ready(List<String> hosts) throws HostsNotReadyException, IOException,
            InterruptedException {
        Map<String, String> notStarted = start(hosts);
        if (!notStarted.isEmpty()) {
            throw new HostsNotReadyException(List.copyOf(notStarted.keySet()), notStarted.entrySet().stream()
                    .map(e -> "cannot start the task service of " + e.getKey() + ": " + e.getValue())
                    .collect(java.util.stream.Collectors.joining("; ")));
        }
        awaitRegistered(hosts);
        provision(hosts);
    }

    /**
     * Waits until every one of {@code hosts} is up. Gives up once every host still missing has failed (its remote
     * shell ended, it was lost or stopped, or its start timeout passed), stops those and names them.
     */
    private void awaitRegistered(List<String> hosts) throws HostsNotReadyException, InterruptedException {
        List<Entry> failed = new ArrayList<>();
        synchronized (this) {
            awaited.clear();
            for (String h : hosts) {
                if (!entries.get(h).state.isUp()) {
                    awaited.add(h);
                }
            }
            while (true) {
                failed.clear();
                int missing = 0;
                long now = System.nanoTime();
                for (String h : hosts) {
                    Entry e = entries.get(h);
                    if (e.state.isUp()) {
                        continue;
                    }
                    missing++;
                    if (e.startFailed(now, config.startTimeout())) {
                        failed.add(e);
                    }
                }
                if (missing == 0) {
                    awaited.clear();
                    return;
                }
                if (failed.size() == missing) {
                    awaited.clear();
                    break;
                }
                releaseFailedStarts();
                wait(POLL.toMillis());
            }
        }
        throw notReady(failed);
    }

    /** The error naming {@code failed} hosts (not under the monitor: reading a shell's exit code may wait). */
    private HostsNotReadyException notReady(List<Entry> failed) {
        List<String> names = failed.stream().map(e -> e.host).toList();
        List<String> ended = new ArrayList<>();
        for (Entry e : failed) {
            if (e.shellEnded()) {
                String code = exitOf(e.shell);
                ended.add(e.host + " (exit " + code + ")");
                config.timeline().instant(Timeline.Kind.FAILURE, "task service did not start", e.host,
                        Map.of("remoteShellExit", code));
            } else if (e.state == HostState.STARTING) {
                config.timeline().instant(Timeline.Kind.FAILURE, "task service did not start", e.host,
                        Map.of("timeoutSeconds", config.startTimeout().toSeconds()));
            } else {
                ended.add(e.host + " (" + (e.state == HostState.LOST ? "lost" : e.problem) + ")");
            }
            stop(e.host, "did not start in time");
        }
        if (ended.isEmpty()) {
            return new HostsNotReadyException(names, config.startTimeout());
        }
        return new HostsNotReadyException(names, "task services did not come up on: "
                + HostsNotReadyException.abbreviate(ended, HostsNotReadyException.SHOWN)
                + ": the remote shell ended before the service registered (check that troika is installed there"
                + " and the remote shell works; --verbose shows the command)");
    }

    private static String exitOf(ProcessSupervisor p) {
        try {
            Integer code = p.waitFor(Duration.ZERO);
            return code == null ? "?" : code.toString();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "?";
        }
    }

    /**
     * Hands the registered ones of {@code hosts} what they do not hold yet (the job's files, the node store) and
     * makes them {@link HostState#PROVISIONED}.
     */
    private void provision(List<String> hosts) throws IOException, InterruptedException {
        DriverService d = driver;
        List<String> fresh;
        synchronized (this) {
            fresh = hosts.stream().filter(h -> entries.get(h).state == HostState.REGISTERED).toList();
        }
        if (fresh.isEmpty()) {
            return;
        }
        if (config.separateSharedHostnames()) {
            d.separateSharedHostnames();
        }
        while (true) {
            Map<String, List<String>> toSend = new LinkedHashMap<>();
            List<String> toAnnounce = new ArrayList<>();
            Map<String, byte[]> content;
            String store;
            synchronized (this) {
                content = Map.copyOf(files);
                store = nodeStoreJob;
                for (String h : fresh) {
                    Entry e = entries.get(h);
                    for (String f : files.keySet()) {
                        if (!e.files.contains(f)) {
                            toSend.computeIfAbsent(f, k -> new ArrayList<>()).add(h);
                        }
                    }
                    if (store != null && !e.nodeStore) {
                        toAnnounce.add(h);
                    }
                }
                if (toSend.isEmpty() && toAnnounce.isEmpty()) {
                    fresh.forEach(h -> move(entries.get(h), HostState.PROVISIONED));
                    return;
                }
            }
            for (Map.Entry<String, List<String>> f : toSend.entrySet()) {
                d.sendPrivateFile(f.getValue(), f.getKey(), content.get(f.getKey()), config.startTimeout());
            }
            if (!toAnnounce.isEmpty()) {
                d.announceNodeStore(toAnnounce, store);
            }
            synchronized (this) {
                toSend.forEach((f, to) -> to.forEach(h -> entries.get(h).files.add(f)));
                toAnnounce.forEach(h -> entries.get(h).nodeStore = true);
            }
        }
    }

    /**
     * Hands key material to every provisioned host's service now and to each later one as it is provisioned: the
     * service writes it 0600 in its private directory and gives the commands it runs {@code envName} = that file.
     *
     * @throws IOException naming a host that could not store it within the start timeout
     */
    public void provideFile(String envName, byte[] content) throws IOException, InterruptedException {
        List<String> to;
        synchronized (this) {
            files.put(envName, content.clone());
            to = provisioned();
        }
        DriverService d = driver;
        if (d != null && !to.isEmpty()) {
            d.sendPrivateFile(to, envName, content, config.startTimeout());
            synchronized (this) {
                to.forEach(h -> entries.get(h).files.add(envName));
            }
        }
    }

    /**
     * Hands {@code content} to the services of those of {@code hosts} that are registered, now only (no later host gets
     * it): the service writes it 0600 in its private directory and gives the commands it runs {@code envName} = that
     * file. For what only some hosts need, such as the exported variables of ranks spawned onto added hosts.
     *
     * @throws IOException naming a host that could not store it within the start timeout
     */
    public void sendFile(Collection<String> hosts, String envName, byte[] content) throws IOException,
            InterruptedException {
        DriverService d = driver;
        if (d != null && !hosts.isEmpty()) {
            d.sendPrivateFile(hosts, envName, content, config.startTimeout());
        }
    }

    /**
     * Tells every provisioned host (now, and each later one as it is provisioned) that it holds elastic job
     * {@code jobId}'s node state store, which its service removes if it stops without the driver's Shutdown.
     */
    public void announceNodeStore(String jobId) throws IOException {
        List<String> to;
        synchronized (this) {
            nodeStoreJob = jobId;
            to = provisioned();
        }
        DriverService d = driver;
        if (d != null && !to.isEmpty()) {
            d.announceNodeStore(to, jobId);
            synchronized (this) {
                to.forEach(h -> entries.get(h).nodeStore = true);
            }
        }
    }

    private List<String> provisioned() {
        return entries.values().stream().filter(e -> e.state == HostState.PROVISIONED).map(e -> e.host).toList();
    }

    /**
     * Where the start of {@code hosts} is: how many are up, and the one that has been starting longest ({@code null}
     * when all are up).
     */
    public synchronized StartProgress.Hosts progress(List<String> hosts) {
        int up = 0;
        Entry slowest = null;
        for (String h : hosts) {
            Entry e = entries.get(h);
            if (e != null && e.state.isUp()) {
                up++;
            } else if (e != null && (slowest == null || slowest.waiting && !e.waiting
                    || slowest.waiting == e.waiting && e.startedNanos < slowest.startedNanos)) {
                slowest = e;
            }
        }
        return new StartProgress.Hosts(hosts.size(), up, slowest == null ? null : slowest.host);
    }

    /**
     * Shutdown to every service, waits until they ended (detached ones: their driver connections closed; the others:
     * their remote shells exited, else ended), deletes the stdin files.
     */
    @Override
    public void close() {
        List<ProcessSupervisor> shells = new ArrayList<>();
        List<ProcessSupervisor> unregistered = new ArrayList<>();
        Set<String> heldStore = new java.util.HashSet<>(); // hosts whose current service was told of the node store
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            for (Entry e : entries.values()) {
                if (e.nodeStore && e.state.isUp()) {
                    heldStore.add(e.host);
                }
                if (e.state == HostState.STARTING && e.shell != null && !e.sharedShell) {
                    unregistered.add(e.shell); // no Shutdown reaches it: ended below instead of waited for
                }
                end(e, HostState.STOPPED, "job finished");
            }
            shells.addAll(stoppedShells);
            stoppedShells.clear();
            shells.removeAll(unregistered);
        }
        DriverService d = driver;
        long deadline = System.nanoTime() + SHUTDOWN_WAIT.toNanos();
        if (d != null) {
            // a service ends its connection once it stopped (and removed the node store); for services that left their
            // remote shells that is the only sign, for the others their shells end right after
            Set<String> ended = d.close(SHUTDOWN_WAIT);
            ended.retainAll(heldStore);
            storeGone = Set.copyOf(ended);
        }
        for (ProcessSupervisor p : unregistered) {
            p.close();
        }
        stopShells(shells, deadline);
    }

    private volatile Set<String> storeGone = Set.of();

    /**
     * After {@link #close}: the hosts whose services removed the job's node store at the job's final Shutdown (they
     * were told of it and ended within the wait), which need no end-of-job cleanup.
     */
    public Set<String> nodeStoreRemoved() {
        return storeGone;
    }

    /**
     * Waits for the remote shells of services told to shut down until {@code deadline} ({@link #SHUTDOWN_WAIT} after
     * the Shutdown, for all of them together: they end at the same time), ends those still running, then closes them
     * all with one walk through {@code /proc} for leftovers ({@link ProcessSupervisor#closeAll}; a close each was a
     * walk per host over a process table that grows with the hosts).
     */
    static void stopShells(List<ProcessSupervisor> shells, long deadline) {
        for (ProcessSupervisor p : shells) {
            try {
                // told to shut down by the driver, the services exit and their remote shells with them
                long left = Math.max(0, deadline - System.nanoTime());
                if (p.waitFor(Duration.ofNanos(left)) == null) {
                    p.terminate(Duration.ofSeconds(3));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        ProcessSupervisor.closeAll(shells);
    }
}
