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
import org.troika.launcher.timeline.ServiceStarts;
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
 * <p>Keys: the job secret reaches the task services on their stdin, from a 0600 file that is deleted as soon as they
 * have all registered (before mpirun starts). mpirun, the launch agents and the daemons get only the launch agent
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
 */
public final class RelaySession implements AutoCloseable {
    /** Heartbeat interval of services and driver ({@link Liveness#HEARTBEAT}). */
    public static final Duration HEARTBEAT = Liveness.HEARTBEAT;
    /** Silence after which a host counts as lost ({@link Liveness#TIMEOUT}). */
    public static final Duration LIVENESS_TIMEOUT = Liveness.TIMEOUT;

    private final RunSettings settings;
    private final boolean relay;
    private final DriverService driver;
    /** The agent key's file for mpirun's agents ({@code null} without the relay agent); deleted once spent. */
    private final Path secretFile;
    private final Path troikaRsh;
    private final List<ProcessSupervisor> shells;
    private final Set<String> lost;
    private boolean insideAllocation;

    private RelaySession(RunSettings settings, boolean relay, DriverService driver, Path secretFile, Path troikaRsh,
            List<ProcessSupervisor> shells, Set<String> lost) {
        this.lost = lost;
        this.settings = settings;
        this.relay = relay;
        this.driver = driver;
        this.secretFile = secretFile;
        this.troikaRsh = troikaRsh;
        this.shells = shells;
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
    public static List<String> remoteHosts(List<String> hosts) {
        Set<String> local = new LinkedHashSet<>(List.of("localhost", "127.0.0.1", "::1"));
        try {
            InetAddress me = InetAddress.getLocalHost();
            local.add(me.getHostName());
            local.add(me.getHostName().split("\\.")[0]);
        } catch (IOException ignored) {
            // no local name
        }
        return hosts.stream().filter(h -> !local.contains(h)).toList();
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
     * {@code --remote-shell} is given.
     *
     * @param allocationShell the allocation's remote shell, or {@code null}
     */
    public static RelaySession start(RunSettings s, String allocationShell, HostPlan plan, MpiInstall mpi,
            Map<String, String> env, Path troikaHome, PrintStream err, BiConsumer<String, String> onHostLost,
            Timeline timeline)
            throws IOException, InterruptedException {
        List<String> remote = remoteHosts(plan);
        if (s.launchAgent() == RunSettings.LaunchAgent.RELAY && !mpi.flavor().isOpenMpiFamily()) {
            throw new UsageException("--launch-agent relay works with Open MPI only (" + mpi.flavor().displayName()
                    + " has no plm_rsh_agent); drop it or use Open MPI");
        }
        if (!servicesWanted(s, mpi, remote) || s.dryRun()) {
            return new RelaySession(s, false, null, null, null, List.of(), Set.of());
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
        Secret secret = Secret.fromEnvOrGenerate(env);
        Path tmp = Path.of(env.getOrDefault("TMPDIR", System.getProperty("java.io.tmpdir")));
        boolean relay = s.launchAgent() != RunSettings.LaunchAgent.SSH;
        // the job secret, for the services' stdin only: gone once they registered, before anything else starts
        Path stdinFile = secret.writeToPrivateFile(tmp);
        String agentLabel = relay ? AgentKey.newLabel() : null;
        Path agentFile = null;
        List<ProcessSupervisor> shells = new ArrayList<>();
        DriverService driver = null;
        RelaySession session = null;
        try {
            Set<String> lostHosts = ConcurrentHashMap.newKeySet();
            driver = new DriverService(secret, bindAddress(remote), remote, HEARTBEAT, LIVENESS_TIMEOUT,
                    (host, why) -> {
                        lostHosts.add(host);
                        err.println("troika: host " + host + " lost: " + why);
                        timeline.instant(Timeline.Kind.FAILURE, "host lost", host, Map.of("why", why));
                        onHostLost.accept(host, why);
                    });
            Map<String, Long> shellStarted = new LinkedHashMap<>();
            for (String host : remote) {
                shellStarted.put(host, timeline.nowMicros());
                List<String> argv = TaskServiceCommandBuilder.build(s, allocationShell, host,
                        TaskServiceCommandBuilder.serviceWords(troikaRsh, host, driver.endpoint(), agentLabel));
                Map<String, String> shellEnv = new LinkedHashMap<>(env);
                TroikaEnv.stripJobSecret(shellEnv);
                if (s.verbose()) {
                    err.println("troika: starting the task service of " + host + ": " + String.join(" ", argv));
                }
                shells.add(ProcessSupervisor.start(new LaunchPlan(argv, shellEnv), ProcessSupervisor.Options.of(
                        seg -> err.print("[task-service " + host + "] " + seg),
                        seg -> err.print("[task-service " + host + "] " + seg)).withStdin(stdinFile)));
            }
            try {
                ServiceStarts.await(driver, remote, s.startTimeout(), timeline, shellStarted);
            } catch (HostsNotReadyException e) {
                throw new IOException(e.getMessage(), e);
            } finally {
                Secret.deleteFile(stdinFile); // every registered service has read its line
                stdinFile = null;
            }
            driver.separateSharedHostnames();
            if (relay) {
                Path file = AgentKey.derive(secret, agentLabel).writeToPrivateFile(tmp);
                agentFile = file;
                driver.openAgentKey(AgentKey.derive(secret, agentLabel), () -> Secret.deleteFile(file));
            }
            RunSettings adjusted = s;
            if (relay) {
                // ssh options were for starting the services; the agent takes no plm_rsh_args
                adjusted = adjusted.toBuilder().sshPort(null).sshIdentityFile(null).build();
            }
            if (s.networkInterfaces().isEmpty() && remote.size() > 1) {
                adjusted = withDetectedNetworks(adjusted, driver, err);
            }
            session = new RelaySession(adjusted, relay, driver, agentFile, troikaRsh, shells, lostHosts);
            session.insideAllocation = allocationShell != null;
            return session;
        } finally {
            if (session == null) {
                if (driver != null) {
                    driver.close();
                }
                stopShells(shells);
                Secret.deleteFile(stdinFile);
                Secret.deleteFile(agentFile);
            }
        }
    }

    private static RunSettings withDetectedNetworks(RunSettings s, DriverService driver, PrintStream err)
            throws IOException, InterruptedException {
        Map<String, List<NicAddress>> nics = new LinkedHashMap<>();
        driver.hosts().forEach(h -> nics.put(h.host(), h.nics()));
        NicSelector.Choice c = NicSelector.select(nics, driver.probe(Duration.ofSeconds(2), Duration.ofSeconds(20), 16),
                NicInventory.local());
        // each host's own interface names for NCCL: relayed daemons (and their ranks) get them from the task service
        driver.sendNcclInterfaces(c.ifnamesByHost());
        if (s.verbose()) {
            c.reasons().forEach(r -> err.println("troika: network " + r));
            c.ifnamesByHost().forEach((h, n) -> err.println("troika: NCCL_SOCKET_IFNAME on " + h + ": " + String.join(",", n)));
        }
        // CIDRs mean the same on every host; the mpirun planner sets btl and oob includes from them. Only subnets the
        // launcher itself has can go to oob, so use those; if it has none, leave detection's result out.
        if (c.launcherSubnets().isEmpty()) {
            if (!c.empty() && s.verbose()) {
                err.println("troika: network: leaving interface selection to Open MPI (launcher not on " + c.subnets() + ")");
            }
            return s;
        }
        return s.toBuilder().networkInterfaces(c.launcherSubnets()).build();
    }

    /**
     * The local address that routes to the first of {@code hosts} (no packet is sent).
     *
     * @throws UsageException naming the first host whose name does not resolve, and the fix
     */
    static InetAddress bindAddress(List<String> hosts) throws IOException {
        for (String h : hosts) {
            resolve(h);
        }
        return bindAddress(hosts.get(0));
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
        InetAddress target = resolve(host);
        if (target.isLoopbackAddress()) {
            return InetAddress.getLoopbackAddress();
        }
        try (DatagramSocket probe = new DatagramSocket()) {
            probe.connect(target, 9);
            return probe.getLocalAddress();
        }
    }

    public boolean active() {
        return driver != null;
    }

    /** The settings to plan mpirun with (unchanged when inactive). */
    public RunSettings settings() {
        return settings;
    }

    /** Whether Open MPI's daemons go through the task services (so what they need comes from the services). */
    public boolean relaysDaemons() {
        return active() && relay;
    }

    /**
     * Hands key material to every host's task service, which writes it 0600 in its private directory and gives the
     * commands it runs (daemons, ranks) {@code envName} = that file. Nothing when inactive.
     *
     * @throws IOException naming a host that could not store it within the start timeout
     */
    public void provideFile(String envName, byte[] content) throws IOException, InterruptedException {
        if (active()) {
            driver.sendPrivateFile(envName, content, settings.startTimeout());
        }
    }

    /**
     * Tells every host's task service that it holds elastic job {@code jobId}'s node state store, which it removes if
     * it stops without the driver's Shutdown (launcher killed, host cut off). Nothing when inactive.
     */
    public void announceNodeStore(String jobId) throws IOException {
        if (active()) {
            driver.announceNodeStore(jobId);
        }
    }

    /** Hosts reported lost so far. */
    public Set<String> lostHosts() {
        return Set.copyOf(lost);
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
        return new LaunchAgent(troikaRsh, agentEnv(), insideAllocation);
    }

    /** What the agent needs in mpirun's environment: the driver and the agent key's file, never the job secret. */
    Map<String, String> agentEnv() {
        return Map.of(TroikaEnv.DRIVER_ADDR, driver.endpoint().toString(), TroikaEnv.SECRET_FILE, secretFile.toString(),
                TroikaEnv.LIVENESS_TIMEOUT_MS, Long.toString(LIVENESS_TIMEOUT.toMillis()));
    }

    @Override
    public void close() {
        if (driver != null) {
            driver.close();
        }
        stopShells(shells);
        Secret.deleteFile(secretFile);
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
