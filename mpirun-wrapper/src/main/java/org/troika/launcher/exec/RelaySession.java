package org.troika.launcher.exec;

import java.io.IOException;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import org.troika.common.TroikaEnv;
import org.troika.common.UsageException;
import org.troika.common.exec.LaunchPlan;
import org.troika.common.exec.ProcessSupervisor;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.MpiInstall;
import org.troika.launcher.spi.LaunchAgent;
import org.troika.launcher.timeline.Timeline;
import org.troika.rsh.Liveness;
import org.troika.rsh.agent.AgentKey;
import org.troika.rsh.driver.DriverService;
import org.troika.rsh.driver.HostsNotReadyException;
import org.troika.rsh.driver.NicSelector;
import org.troika.rsh.task.NicInventory;
import org.troika.wire.NicAddress;
import org.troika.wire.Secret;

/**
 * The launcher side of the relay (issue 3): starts the driver service, a task service on every remote host through
 * the remote shell, waits for them (start timeout), detects the networks, and tells the mpirun plan what to add.
 *
 * <pre>
 *   try (RelaySession relay = RelaySession.start(settings, hostPlan, mpi, env, troikaHome, err, onLost)) {
 *       RunSettings s2 = relay.settings();          // ssh options moved to the services, detected NICs filled in
 *       BackendPlan p = plan(s2, relay.agent());    // the agent is a planning input: the backend emits its option
 *       ... execute p ...
 *   }                                               // Shutdown to every service; remote shells end; files removed
 * </pre>
 *
 * <p>Keys: the job secret reaches each task service on its stdin, from a 0600 file that is deleted as soon as that
 * service registered (before mpirun starts). mpirun, the launch agents and the daemons get only the launch agent
 * key of this session ({@code AgentKey}, a fresh label each time, so each elastic generation has its own) in a 0600
 * file; it allows one daemon lookup and one daemon start per host, and once every host's daemon has been looked up the
 * driver refuses it and the file is deleted here and on every host: before any rank starts.
 *
 * <p>When it runs: services start when {@code --launch-agent relay} is given, or a {@code --remote-shell} is given and
 * the agent is not {@code ssh}; only for Open MPI-family launchers and only for hosts that are not this machine. With
 * {@code --launch-agent ssh} and a remote shell, services still run for network detection but mpirun keeps ssh.
 * Otherwise the session is inactive and changes nothing.
 *
 * <p>Liveness: the driver reports a host whose service disconnects or stays silent (killed, partitioned) to
 * {@code onHostLost} and prints it; the agents of that host exit 255, which makes mpirun end the job.
 *
 * <p>Warm sessions (an elastic job, issue 14): {@link #open} starts nothing; {@link #retain} starts the services of
 * hosts that joined (in the background, while a generation runs) and stops those of hosts that left; each
 * {@link #launch} waits only for services not yet up, hands new hosts the session's files, detects the networks again
 * when the hosts changed, and opens a fresh agent key for its hosts ({@code AgentKeyOpen} to services started for an
 * earlier launch). One driver, one service per host for the whole job: a generation restarts only mpirun and the ranks.
 * A host whose service does not come up fails the launch with {@link HostsNotReadyException} naming it, and its service
 * is stopped.
 */
public final class RelaySession implements AutoCloseable {
    /** Heartbeat interval of services and driver ({@link Liveness#HEARTBEAT}). */
    public static final Duration HEARTBEAT = Liveness.HEARTBEAT;
    /** Silence after which a host counts as lost ({@link Liveness#TIMEOUT}). */
    public static final Duration LIVENESS_TIMEOUT = Liveness.TIMEOUT;
    /** How often a launch looks at services still starting (registered, or their remote shell already ended). */
    static final Duration START_POLL = Duration.ofMillis(20);

    /** One host's task service: its remote shell, the stdin file with the job secret, the agent label it accepts. */
    private static final class Service {
        final ProcessSupervisor shell;
        final long startedNanos;
        final long startedMicros;
        volatile Path stdinFile;
        String label;
        boolean provisioned;

        Service(ProcessSupervisor shell, Path stdinFile, long startedMicros, String label) {
            this.shell = shell;
            this.stdinFile = stdinFile;
            this.startedNanos = System.nanoTime();
            this.startedMicros = startedMicros;
            this.label = label;
        }

        /** Empties and deletes the stdin file with the job secret (idempotent). */
        void deleteStdinFile() {
            Secret.deleteFile(stdinFile);
            stdinFile = null;
        }
    }

    private final RunSettings base;
    private final boolean wanted;
    private final boolean relay;
    private final String allocationShell;
    private final Map<String, String> env;
    private final Path troikaRsh;
    private final PrintStream err;
    private final Timeline timeline;
    private final Secret secret;
    private final Path tmp;
    private final Set<String> lost = ConcurrentHashMap.newKeySet();
    private volatile BiConsumer<String, String> onHostLost;
    private volatile DriverService driver;
    /**
     * Running services by host word, in start order. Changed under this session's lock; read without it by the driver's
     * registration callback (which must never wait for a launch that waits for it).
     */
    private final Map<String, Service> services = java.util.Collections.synchronizedMap(new LinkedHashMap<>());
    /** Remote shells of services stopped before the end (waited for at close). */
    private final List<ProcessSupervisor> stoppedShells = new ArrayList<>();
    /** Files every host's service gets ({@link #provideFile}), by variable name. */
    private final Map<String, byte[]> files = new LinkedHashMap<>();
    private String nodeStoreJob;
    /** The agent label of the next launch: services started before it begins get it on their command line. */
    private String nextLabel;
    /** The current launch's agent key file ({@code null} once spent or without the relay agent). */
    private volatile Path secretFile;
    /** The hosts the networks were last detected for, and the interfaces chosen then ({@code null}: none). */
    private Set<String> detectedFor = Set.of();
    private List<String> detectedNetworks;
    private boolean launched;
    /** Whether the current launch has remote hosts (else nothing of the relay applies to it). */
    private volatile boolean remoteLaunch;

    private RelaySession(RunSettings s, boolean wanted, String allocationShell, Map<String, String> env,
            Path troikaRsh, PrintStream err, Timeline timeline, BiConsumer<String, String> onHostLost) {
        this.base = s;
        this.wanted = wanted;
        this.relay = s.launchAgent() != RunSettings.LaunchAgent.SSH;
        this.allocationShell = allocationShell;
        this.env = env;
        this.troikaRsh = troikaRsh;
        this.err = err;
        this.timeline = timeline;
        this.onHostLost = onHostLost;
        this.secret = wanted ? Secret.fromEnvOrGenerate(env) : null;
        this.tmp = Path.of(env.getOrDefault("TMPDIR", System.getProperty("java.io.tmpdir")));
        this.nextLabel = relay ? AgentKey.newLabel() : null;
    }

    /** Whether task services should run for this launch (pure). */
    public static boolean servicesWanted(RunSettings s, MpiInstall mpi, List<String> remoteHosts) {
        if (remoteHosts.isEmpty() || !mpi.flavor().isOpenMpiFamily()) {
            return false;
        }
        return s.launchAgent() == RunSettings.LaunchAgent.RELAY || s.remoteShell() != null;
    }

    /** The hosts of {@code plan} that are not this machine (pure apart from reading the local hostname). */
    public static List<String> remoteHosts(HostPlan plan) {
        return remoteHosts(plan.hostNames());
    }

    /** The host words of {@code hosts} that are not this machine. */
    public static List<String> remoteHosts(java.util.Collection<String> hosts) {
        Set<String> local = new LinkedHashSet<>(List.of("localhost", "127.0.0.1", "::1"));
        try {
            InetAddress me = InetAddress.getLocalHost();
            local.add(me.getHostName());
            local.add(me.getHostName().split("\\.")[0]);
        } catch (IOException ignored) {
            // no local name
        }
        return hosts.stream().filter(h -> !local.contains(h)).distinct().toList();
    }

    /**
     * Starts what the launch needs, or returns an inactive session.
     *
     * @param troikaHome the installation (its {@code bin/troika-rsh} is the agent and the service), or {@code null}
     * @param onHostLost told (once per host) when a host's service is lost while the job runs
     * @throws UsageException for impossible requests (relay without an installation, Hydra with relay)
     * @throws IOException when the services do not all come up within the start timeout (names the hosts)
     */
    public static RelaySession start(RunSettings s, HostPlan plan, MpiInstall mpi, Map<String, String> env,
            Path troikaHome, PrintStream err, BiConsumer<String, String> onHostLost) throws IOException,
            InterruptedException {
        return start(s, null, plan, mpi, env, troikaHome, err, onHostLost, Timeline.off());
    }

    /** {@link #start(RunSettings, HostPlan, MpiInstall, Map, Path, PrintStream, BiConsumer)}, recording each host's
     * service start and loss on {@code timeline}. */
    public static RelaySession start(RunSettings s, HostPlan plan, MpiInstall mpi, Map<String, String> env,
            Path troikaHome, PrintStream err, BiConsumer<String, String> onHostLost, Timeline timeline)
            throws IOException, InterruptedException {
        return start(s, null, plan, mpi, env, troikaHome, err, onHostLost, timeline);
    }

    /**
     * {@link #start(RunSettings, HostPlan, MpiInstall, Map, Path, PrintStream, BiConsumer, Timeline)} inside a batch
     * allocation whose own launcher ({@code srun}, {@code blaunch}) starts the task services unless
     * {@code --remote-shell} is given: a session with one launch over {@code plan}.
     *
     * @param allocationShell the allocation's remote shell, or {@code null}
     */
    public static RelaySession start(RunSettings s, String allocationShell, HostPlan plan, MpiInstall mpi,
            Map<String, String> env, Path troikaHome, PrintStream err, BiConsumer<String, String> onHostLost,
            Timeline timeline)
            throws IOException, InterruptedException {
        RelaySession session = open(s, allocationShell, remoteHosts(plan), mpi, env, troikaHome, err, onHostLost,
                timeline, false);
        if (!session.wanted) {
            return session;
        }
        boolean ok = false;
        try {
            session.launch(plan);
            ok = true;
            return session;
        } catch (HostsNotReadyException e) {
            throw new IOException(e.getMessage(), e);
        } finally {
            if (!ok) {
                session.close();
            }
        }
    }

    /**
     * A session that starts nothing yet (a warm session: {@link #retain} and {@link #launch} start services as hosts
     * come), or an inactive one when no services are wanted: neither the relay agent nor a remote shell, not Open MPI,
     * a dry run, or ({@code warm} false) no remote host in {@code remote}.
     *
     * @param remote the remote hosts known now (an elastic job's may change)
     * @param warm whether the session outlives launches (then it is active even while every host is this machine)
     * @throws UsageException for impossible requests (relay without an installation, Hydra with relay)
     */
    public static RelaySession open(RunSettings s, String allocationShell, List<String> remote, MpiInstall mpi,
            Map<String, String> env, Path troikaHome, PrintStream err, BiConsumer<String, String> onHostLost,
            Timeline timeline, boolean warm) {
        if (s.launchAgent() == RunSettings.LaunchAgent.RELAY && !mpi.flavor().isOpenMpiFamily()) {
            throw new UsageException("--launch-agent relay works with Open MPI only (" + mpi.flavor().displayName()
                    + " has no plm_rsh_agent); drop it or use Open MPI");
        }
        boolean wanted = !s.dryRun() && servicesWanted(s, mpi, warm ? List.of("any") : remote);
        if (!wanted) {
            return new RelaySession(s, false, allocationShell, env, null, err, timeline, onHostLost);
        }
        if (troikaHome == null || !Files.isExecutable(troikaHome.resolve("bin/troika-rsh"))) {
            throw new UsageException("the relay needs the troika installation's bin/troika-rsh on every host; run troika"
                    + " from its distribution, or use --launch-agent ssh");
        }
        Path troikaRsh = troikaHome.resolve("bin/troika-rsh").toAbsolutePath();
        if (troikaRsh.toString().contains(":") || troikaRsh.toString().chars().anyMatch(Character::isWhitespace)) {
            throw new UsageException("troika is installed under '" + troikaRsh.getParent().getParent() + "', whose path "
                    + "holds ':' or a space, which Open MPI's agent setting cannot carry; install it elsewhere");
        }
        for (String h : remote) {
            resolve(h); // an unknown host name is a usage error before anything starts
        }
        return new RelaySession(s, true, allocationShell, env, troikaRsh, err, timeline, onHostLost);
    }

    /** Where lost hosts are reported from now on (a warm session's current generation). */
    public void onHostLost(BiConsumer<String, String> listener) {
        this.onHostLost = listener;
    }

    /** The driver, started for the first remote host (it binds to the address that routes there). */
    private DriverService driver(String firstHost) throws IOException {
        DriverService d = driver;
        if (d == null) {
            d = new DriverService(secret, bindAddress(firstHost), List.of(), HEARTBEAT, LIVENESS_TIMEOUT,
                    (host, why) -> {
                        lost.add(host);
                        err.println("troika: host " + host + " lost: " + why);
                        timeline.instant(Timeline.Kind.FAILURE, "host lost", host, Map.of("why", why));
                        onHostLost.accept(host, why);
                    });
            d.onRegistered(this::registered);
            driver = d;
        }
        return d;
    }

    /** A service registered: its stdin file (the job secret) goes at once; the timeline gets its start span. */
    private void registered(String host) {
        Service sv = services.get(host);
        if (sv != null) {
            sv.deleteStdinFile();
            timeline.span(Timeline.Kind.SERVICE, "task service", host, sv.startedMicros, timeline.nowMicros(), Map.of());
        }
    }

    /**
     * Keeps services on exactly the remote ones of {@code hosts}: starts those not running (or lost), in the
     * background, and stops the others. Returns at once. Nothing when inactive.
     */
    public synchronized void retain(java.util.Collection<String> hosts) throws IOException {
        if (!wanted) {
            return;
        }
        List<String> remote = remoteHosts(hosts);
        for (String h : serviceHosts()) {
            if (!remote.contains(h)) {
                stop(h, "host left the job");
            }
        }
        startMissing(remote).forEach((h, why) -> err.println("troika: cannot start the task service of " + h + ": "
                + why));
    }

    /** Starts the services of {@code remote} not running; returns those that could not be started, and why. */
    private Map<String, String> startMissing(List<String> remote) throws IOException {
        Map<String, String> failed = new LinkedHashMap<>();
        for (String host : remote) {
            Service running = services.get(host);
            if (running != null && !lost.contains(host) && (running.shell.isAlive() || driver.registered(host))) {
                continue;
            }
            if (running != null) {
                stop(host, "restarting its service");
            }
            try {
                resolve(host);
            } catch (UsageException e) {
                failed.put(host, e.getMessage());
                continue;
            }
            DriverService d = driver(host);
            lost.remove(host);
            d.expect(List.of(host));
            long startedMicros = timeline.nowMicros();
            List<String> argv = TaskServiceCommandBuilder.build(base, allocationShell, host,
                    TaskServiceCommandBuilder.serviceWords(troikaRsh, host, d.endpoint(), nextLabel));
            Map<String, String> shellEnv = new LinkedHashMap<>(env);
            TroikaEnv.stripJobSecret(shellEnv);
            if (base.verbose()) {
                err.println("troika: starting the task service of " + host + ": " + String.join(" ", argv));
            }
            // the job secret for this service's stdin only: deleted as soon as it registers
            Path stdinFile = secret.writeToPrivateFile(tmp);
            try {
                ProcessSupervisor shell = ProcessSupervisor.start(new LaunchPlan(argv, shellEnv),
                        ProcessSupervisor.Options.of(seg -> err.print("[task-service " + host + "] " + seg),
                                seg -> err.print("[task-service " + host + "] " + seg)).withStdin(stdinFile));
                services.put(host, new Service(shell, stdinFile, startedMicros, nextLabel));
            } catch (IOException e) {
                Secret.deleteFile(stdinFile);
                d.release(host, "not started");
                failed.put(host, e.getMessage());
            }
        }
        return failed;
    }

    /**
     * Stops {@code host}'s service: Shutdown when it registered (its remote shell ends with it and is waited for at
     * close), else its remote shell is ended now (nothing would tell a service that never registered to stop).
     */
    private void stop(String host, String why) {
        Service sv = services.remove(host);
        boolean registered = driver != null && driver.registered(host);
        if (driver != null) {
            driver.release(host, why);
        }
        if (sv != null) {
            sv.deleteStdinFile();
            stoppedShells.add(sv.shell);
            if (!registered && sv.shell.isAlive()) {
                Thread t = new Thread(() -> {
                    try {
                        sv.shell.terminate(Duration.ofSeconds(2));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "troika-relay-stop-" + host);
                t.setDaemon(true);
                t.start();
            }
        }
    }

    /**
     * Readies the services for one launch over {@code plan}: starts those not running, waits (each host's start timeout
     * counted from its own start) for those not yet registered, hands new hosts the session's files and node store,
     * detects the networks when the hosts changed, and opens this launch's agent key for its hosts. Afterwards
     * {@link #settings()}, {@link #adjusted} and {@link #agent()} describe this launch. Nothing when inactive.
     *
     * @throws HostsNotReadyException naming the hosts whose service did not register in time or whose remote shell
     *     ended first; their services are stopped (the session stays usable for a launch without them)
     */
    public synchronized void launch(HostPlan plan) throws HostsNotReadyException, IOException, InterruptedException {
        if (!wanted) {
            return;
        }
        List<String> remote = remoteHosts(plan);
        launched = true;
        remoteLaunch = false;
        if (remote.isEmpty()) {
            return;
        }
        Map<String, String> notStarted = startMissing(remote);
        if (!notStarted.isEmpty()) {
            throw new HostsNotReadyException(List.copyOf(notStarted.keySet()), notStarted.entrySet().stream()
                    .map(e -> "cannot start the task service of " + e.getKey() + ": " + e.getValue())
                    .collect(java.util.stream.Collectors.joining("; ")));
        }
        awaitRegistered(remote);
        DriverService d = driver;
        d.separateSharedHostnames();
        List<String> fresh = remote.stream().filter(h -> !services.get(h).provisioned).toList();
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            d.sendPrivateFile(fresh, f.getKey(), f.getValue(), base.startTimeout());
        }
        if (nodeStoreJob != null) {
            d.announceNodeStore(fresh, nodeStoreJob);
        }
        fresh.forEach(h -> services.get(h).provisioned = true);
        if (base.networkInterfaces().isEmpty() && remote.size() > 1 && !detectedFor.equals(Set.copyOf(remote))) {
            detectedNetworks = detectNetworks(d, remote, base.verbose(), err);
            detectedFor = Set.copyOf(remote);
        }
        if (relay) {
            String label = nextLabel;
            nextLabel = AgentKey.newLabel();
            List<String> stale = remote.stream().filter(h -> !label.equals(services.get(h).label)).toList();
            d.sendAgentKeyLabel(stale, label, base.startTimeout());
            stale.forEach(h -> services.get(h).label = label);
            Secret.deleteFile(secretFile); // a previous launch's key, if it was never spent
            Secret key = AgentKey.derive(secret, label);
            Path file = key.writeToPrivateFile(tmp);
            secretFile = file;
            d.openAgentKey(key, remote, () -> Secret.deleteFile(file));
        }
        remoteLaunch = true;
    }

    /**
     * Waits until every one of {@code remote} registered: each host's start timeout counts from its service's start;
     * a host whose remote shell ended first fails at once. The failed hosts' services are stopped.
     */
    private void awaitRegistered(List<String> remote) throws HostsNotReadyException, InterruptedException {
        DriverService d = driver;
        Duration timeout = base.startTimeout();
        while (true) {
            List<String> missing = new ArrayList<>();
            List<String> failed = new ArrayList<>();
            long now = System.nanoTime();
            for (String h : remote) {
                Service sv = services.get(h);
                if (d.registered(h)) {
                    sv.deleteStdinFile(); // registered before its entry existed, the callback found none
                    continue;
                }
                missing.add(h);
                if (!sv.shell.isAlive() || now - sv.startedNanos >= timeout.toNanos()) {
                    failed.add(h);
                }
            }
            if (missing.isEmpty()) {
                return;
            }
            if (failed.size() == missing.size()) {
                List<String> ended = new ArrayList<>();
                for (String h : failed) {
                    Service sv = services.get(h);
                    if (sv.shell.isAlive()) {
                        timeline.instant(Timeline.Kind.FAILURE, "task service did not start", h,
                                Map.of("timeoutSeconds", timeout.toSeconds()));
                    } else {
                        String code = exitOf(sv.shell);
                        ended.add(h + " (exit " + code + ")");
                        timeline.instant(Timeline.Kind.FAILURE, "task service did not start", h,
                                Map.of("remoteShellExit", code));
                    }
                    stop(h, "did not start in time");
                }
                if (ended.isEmpty()) {
                    throw new HostsNotReadyException(failed, timeout);
                }
                throw new HostsNotReadyException(failed, "task services did not come up on: " + String.join(", ", ended)
                        + ": the remote shell ended before the service registered (check that troika is installed there"
                        + " and the remote shell works; --verbose shows the command)");
            }
            Thread.sleep(START_POLL.toMillis());
        }
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
     * The interfaces the hosts reach each other on (CIDRs the launcher has too), or {@code null} to leave the choice
     * to Open MPI; tells each host its own interface names for NCCL.
     */
    private static List<String> detectNetworks(DriverService driver, List<String> hosts, boolean verbose,
            PrintStream err) throws IOException, InterruptedException {
        Map<String, List<NicAddress>> nics = new LinkedHashMap<>();
        driver.hosts().stream().filter(h -> hosts.contains(h.host())).forEach(h -> nics.put(h.host(), h.nics()));
        NicSelector.Choice c = NicSelector.select(nics, driver.probe(hosts, Duration.ofSeconds(2),
                Duration.ofSeconds(20), 16), NicInventory.local());
        // each host's own interface names for NCCL: relayed daemons (and their ranks) get them from the task service
        driver.sendNcclInterfaces(c.ifnamesByHost());
        if (verbose) {
            c.reasons().forEach(r -> err.println("troika: network " + r));
            c.ifnamesByHost().forEach((h, n) -> err.println("troika: NCCL_SOCKET_IFNAME on " + h + ": " + String.join(",", n)));
        }
        // CIDRs mean the same on every host; the mpirun planner sets btl and oob includes from them. Only subnets the
        // launcher itself has can go to oob, so use those; if it has none, leave detection's result out.
        if (c.launcherSubnets().isEmpty()) {
            if (!c.empty() && verbose) {
                err.println("troika: network: leaving interface selection to Open MPI (launcher not on " + c.subnets() + ")");
            }
            return null;
        }
        return c.launcherSubnets();
    }

    /**
     * The local address a launcher service that ranks on every one of {@code hosts} must reach binds to (the worker
     * notifier, the progress service): the one that routes to the first host that is not this machine, loopback when
     * every host is this machine or resolves to a loopback address (no packet is sent). This machine is often the
     * first host (the batch host of an allocation), and its name often resolves to a loopback address (Debian's
     * {@code 127.0.1.1 HOSTNAME}): a service bound by the route to it would be out of reach of every other host.
     *
     * @throws UsageException naming the first host whose name does not resolve, and the fix
     */
    public static InetAddress bindAddress(List<String> hosts) throws IOException {
        Set<String> remote = new LinkedHashSet<>(remoteHosts(hosts));
        InetAddress first = null;
        for (String h : hosts) {
            InetAddress a = resolve(h);
            if (first == null && remote.contains(h) && !a.isLoopbackAddress()) {
                first = a;
            }
        }
        return first == null ? InetAddress.getLoopbackAddress() : routeTo(first);
    }

    /** {@code host}'s address, or a one-line usage error naming it. */
    static InetAddress resolve(String host) {
        try {
            return InetAddress.getByName(host);
        } catch (java.net.UnknownHostException e) {
            throw new UsageException("host '" + host + "' does not resolve to an address on this machine (DNS or "
                    + "/etc/hosts); name the hosts as this machine knows them, or by IP address");
        }
    }

    /** The local address that routes to {@code host} (no packet is sent). */
    public static InetAddress bindAddress(String host) throws IOException {
        return routeTo(resolve(host));
    }

    private static InetAddress routeTo(InetAddress target) throws IOException {
        if (target.isLoopbackAddress()) {
            return InetAddress.getLoopbackAddress();
        }
        try (DatagramSocket probe = new DatagramSocket()) {
            probe.connect(target, 9);
            return probe.getLocalAddress();
        }
    }

    public boolean active() {
        return wanted && launched && remoteLaunch;
    }

    /** The settings to plan mpirun with (unchanged when inactive): the session's settings {@link #adjusted}. */
    public RunSettings settings() {
        return adjusted(base);
    }

    /**
     * {@code s} (a launch's settings) as the current launch plans them: with the relay agent, ssh options were for
     * starting the services (the agent takes no plm_rsh_args); detected networks filled in when none were given.
     */
    public RunSettings adjusted(RunSettings s) {
        if (!active()) {
            return s;
        }
        RunSettings a = s;
        if (relay) {
            a = a.toBuilder().sshPort(null).sshIdentityFile(null).build();
        }
        if (s.networkInterfaces().isEmpty() && detectedNetworks != null) {
            a = a.toBuilder().networkInterfaces(detectedNetworks).build();
        }
        return a;
    }

    /** Whether Open MPI's daemons go through the task services (so what they need comes from the services). */
    public boolean relaysDaemons() {
        return active() && relay;
    }

    /**
     * Hands key material to every host's task service (now and, in a warm session, to each host at its first launch),
     * which writes it 0600 in its private directory and gives the commands it runs (daemons, ranks) {@code envName} =
     * that file. Nothing when inactive.
     *
     * @throws IOException naming a host that could not store it within the start timeout
     */
    public synchronized void provideFile(String envName, byte[] content) throws IOException, InterruptedException {
        if (!wanted) {
            return;
        }
        files.put(envName, content.clone());
        if (driver != null) {
            driver.sendPrivateFile(provisioned(), envName, content, base.startTimeout());
        }
    }

    /**
     * Tells every host's task service (now and at each host's first launch) that it holds elastic job {@code jobId}'s
     * node state store, which it removes if it stops without the driver's Shutdown (launcher killed, host cut off).
     * Nothing when inactive.
     */
    public synchronized void announceNodeStore(String jobId) throws IOException {
        if (!wanted) {
            return;
        }
        nodeStoreJob = jobId;
        if (driver != null) {
            driver.announceNodeStore(provisioned(), jobId);
        }
    }

    private List<String> provisioned() {
        synchronized (services) {
            return services.entrySet().stream().filter(e -> e.getValue().provisioned).map(Map.Entry::getKey).toList();
        }
    }

    /** Hosts reported lost so far. */
    public Set<String> lostHosts() {
        return Set.copyOf(lost);
    }

    /** Hosts with a running (or starting) service, in start order. */
    public List<String> serviceHosts() {
        synchronized (services) {
            return List.copyOf(services.keySet());
        }
    }

    /**
     * The launch agent for the mpirun plan, a planning input ({@link org.troika.launcher.spi.LaunchContext#agent()}):
     * {@code bin/troika-rsh} with the driver address, secret file and liveness timeout for mpirun's environment (never
     * the secret), naming the rsh/ssh component inside a batch allocation. {@code null} when inactive or with
     * {@code --launch-agent ssh}: Open MPI's own ssh starts the daemons.
     */
    public LaunchAgent agent() {
        if (!relaysDaemons()) {
            return null;
        }
        return new LaunchAgent(troikaRsh, agentEnv(), allocationShell != null);
    }

    /** What the agent needs in mpirun's environment: the driver and the agent key's file, never the job secret. */
    Map<String, String> agentEnv() {
        return Map.of(TroikaEnv.DRIVER_ADDR, driver.endpoint().toString(), TroikaEnv.SECRET_FILE, secretFile.toString(),
                TroikaEnv.LIVENESS_TIMEOUT_MS, Long.toString(LIVENESS_TIMEOUT.toMillis()));
    }

    @Override
    public void close() {
        List<ProcessSupervisor> shells = new ArrayList<>();
        synchronized (this) {
            if (driver != null) {
                driver.close();
            }
            synchronized (services) {
                for (Service sv : services.values()) {
                    sv.deleteStdinFile();
                    shells.add(sv.shell);
                }
                services.clear();
            }
            shells.addAll(stoppedShells);
            stoppedShells.clear();
            Secret.deleteFile(secretFile);
        }
        stopShells(shells);
    }

    /** Waits for the remote shells of services told to shut down (then ends them); doctor's services too. */
    public static void stopShells(List<ProcessSupervisor> shells) {
        for (ProcessSupervisor p : shells) {
            try {
                // told to shut down by the driver, the services exit and their remote shells with them
                if (p.waitFor(Duration.ofSeconds(10)) == null) {
                    p.terminate(Duration.ofSeconds(3));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            p.close();
        }
    }

}
