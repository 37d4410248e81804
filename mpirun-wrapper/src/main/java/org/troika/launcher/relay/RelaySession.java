package org.troika.launcher.relay;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.troika.common.TroikaEnv;
import org.troika.common.UsageException;
import org.troika.launcher.options.RunOptionTable;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.LaunchAgent;
import org.troika.launcher.spi.MpiInstall;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.timeline.Timeline;
import org.troika.rsh.Liveness;
import org.troika.rsh.driver.DriverService;
import org.troika.rsh.driver.HostsNotReadyException;
import org.troika.wire.RelayMessage;
import org.troika.wire.Secret;

/**
 * The relay of one job (issue 3): readies each launch's remote hosts and tells the launch what to plan with. It holds
 * the job's {@link TaskServicePool} (services through the job's {@link RemoteShell}), its {@link AgentKeyRotation} and
 * its {@link NetworkChoice}, and composes them per launch:
 *
 * <pre>
 *   try (RelaySession relay = RelaySession.open(request, remoteHosts, false)) {   // a static run: one launch
 *       RelaySession.Launch l = relay.launch(hostPlan, settings);   // services up, agent key open, networks chosen
 *       BackendPlan p = plan(l.settings(), l.agent());              // the agent is a planning input
 *       ... execute p ...
 *   }                                                               // Shutdown to every service; files removed
 * </pre>
 *
 * An elastic job keeps one warm session ({@code open(..., true)}): {@link #retain} starts the services of hosts that
 * joined (in the background, while a generation runs) and stops those of hosts that left; each {@link #launch} waits
 * only for services not yet up and opens a fresh agent key for its hosts.
 *
 * <p>When it runs: services start when {@code --launch-agent relay} is given, or a {@code --remote-shell} is given and
 * the agent is not {@code ssh}; only for Open MPI-family launchers and only for hosts that are not this machine. With
 * {@code --launch-agent ssh} and a remote shell, services still run for network detection but mpirun keeps ssh.
 * Otherwise the session is inactive and changes nothing.
 *
 * <p>Keys: see {@link TaskServicePool} (the job secret on each service's stdin) and {@link AgentKeyRotation} (mpirun,
 * the agents and the daemons get only the launch's agent key, spent before any rank starts).
 *
 * <p>A start that takes longer than {@link StartProgressReporter#QUIET} says where it is on stderr, until every daemon
 * of the launch has started ({@link StartProgressReporter}).
 *
 * <p>Threading: {@link #launch} and {@link #close} come from one thread at a time (a job's launches are sequential);
 * {@link #retain} may come from another (the elastic driver's), and goes to the pool, which is thread-safe.
 */
public final class RelaySession implements AutoCloseable {
    /**
     * What a session needs.
     *
     * @param settings the run's settings (the launch agent, remote shell, start timeout, verbosity)
     * @param mpi the MPI in use (only Open MPI's daemons go through the relay)
     * @param shell the job's remote shell
     * @param env the caller's environment ({@code TROIKA_SECRET_KEY} there, or a generated one, is the job secret)
     * @param troikaHome the installation (its {@code bin/troika-rsh} is the agent and the service), or {@code null}
     * @param err where lost hosts, failed starts and the start progress go
     * @param progressInPlace whether {@code err} is a terminal (the progress line updates in place)
     * @param timeline records each host's service start and loss
     */
    public record Request(RunSettings settings, MpiInstall mpi, RemoteShell shell, Map<String, String> env,
            Path troikaHome, PrintStream err, boolean progressInPlace, Timeline timeline) {}

    /**
     * One launch as the relay readied it.
     *
     * @param settings the settings to plan the launch with: with the relay agent, ssh options were for starting the
     *     services (the agent takes no plm_rsh_args); detected networks filled in when none were given
     * @param agent the launch agent, a planning input ({@link org.troika.launcher.spi.LaunchContext#agent()}), or
     *     {@code null}: Open MPI's own ssh starts the daemons
     * @param active whether anything of the relay applies to this launch (else {@code settings} is the given one)
     * @param spares the plan's spare hosts ({@link HostPlan#spares}) readied with it: services up and provisioned,
     *     the launch's agent key open for them; those not ready at once are left out
     */
    public record Launch(RunSettings settings, LaunchAgent agent, boolean active, List<String> spares) {
        public Launch {
            spares = List.copyOf(spares);
        }

        /** A launch without spare hosts. */
        public Launch(RunSettings settings, LaunchAgent agent, boolean active) {
            this(settings, agent, active, List.of());
        }
    }

    private final Request request;
    private final boolean relay;
    private final Path troikaRsh;
    private final TaskServicePool pool;
    private final AgentKeyRotation keys;
    private final NetworkChoice networks;
    private StartProgressReporter progress;

    private RelaySession(Request r, Path troikaRsh, int hosts) {
        this.request = r;
        this.relay = r.settings().remote().launchAgent() != RunSettings.LaunchAgent.SSH;
        this.troikaRsh = troikaRsh;
        if (troikaRsh == null) {
            this.pool = null;
            this.keys = null;
            this.networks = null;
            return;
        }
        RunSettings s = r.settings();
        Secret secret = Secret.fromEnvOrGenerate(r.env());
        Path tmp = Path.of(r.env().getOrDefault("TMPDIR", System.getProperty("java.io.tmpdir")));
        Duration start = s.timeouts().startFor(hosts);
        this.keys = relay ? new AgentKeyRotation(secret, tmp, start) : null;
        this.networks = s.remote().networkInterfaces().isEmpty() ? new NetworkChoice(s.verbose(), r.err()) : null;
        this.pool = TaskServicePool.open(TaskServicePool.Config.of("troika", secret,
                ServiceStart.throughShell(r.shell(), troikaRsh, tmp, ServiceStart.tagged(r.err()),
                        s.verbose() ? r.err() : null), HostAddresses::routeTo,
                start, r.err()).withAgentLabel(keys == null ? h -> null : keys::labelFor)
                .withTimeline(r.timeline()));
    }

    /** Whether task services should run for this launch (pure). */
    public static boolean servicesWanted(RunSettings s, MpiInstall mpi, List<String> remoteHosts) {
        if (remoteHosts.isEmpty() || !mpi.flavor().isOpenMpiFamily()) {
            return false;
        }
        return s.remote().launchAgent() == RunSettings.LaunchAgent.RELAY || s.remote().shell() != null;
    }

    /**
     * A session that starts nothing yet, or an inactive one when no services are wanted: neither the relay agent nor a
     * remote shell, not Open MPI, a dry run, or ({@code warm} false) no remote host in {@code remote}.
     *
     * @param remote the remote hosts known now (an elastic job's may change)
     * @param warm whether the session outlives launches (then it is active even while every host is this machine)
     * @throws UsageException for impossible requests (relay without an installation, Hydra with relay, a host name
     *     that does not resolve)
     */
    public static RelaySession open(Request r, List<String> remote, boolean warm) {
        RunSettings s = r.settings();
        if (s.remote().launchAgent() == RunSettings.LaunchAgent.RELAY && !r.mpi().flavor().isOpenMpiFamily()) {
            throw new UsageException("--launch-agent relay works with Open MPI only (" + r.mpi().flavor().displayName()
                    + " has no plm_rsh_agent); drop it or use Open MPI");
        }
        if (s.dryRun() || !servicesWanted(s, r.mpi(), warm ? List.of("any") : remote)) {
            return new RelaySession(r, null, 0);
        }
        r.shell().check(); // a bad --remote-shell template is a usage error before anything starts
        if (r.troikaHome() == null || !Files.isExecutable(r.troikaHome().resolve("bin/troika-rsh"))) {
            throw new UsageException("the relay needs the troika installation's bin/troika-rsh on every host; run troika"
                    + " from its distribution, or use --launch-agent ssh");
        }
        Path troikaRsh = r.troikaHome().resolve("bin/troika-rsh").toAbsolutePath();
        if (troikaRsh.toString().contains(":") || troikaRsh.toString().chars().anyMatch(Character::isWhitespace)) {
            throw new UsageException("troika is installed under '" + troikaRsh.getParent().getParent() + "', whose path "
                    + "holds ':' or a space, which Open MPI's agent setting cannot carry; install it elsewhere");
        }
        for (String h : remote) {
            HostAddresses.resolve(h); // an unknown host name is a usage error before anything starts
        }
        return new RelaySession(r, troikaRsh, remote.size());
    }

    /** Whether the session runs services at all (else every call changes nothing). */
    public boolean wanted() {
        return pool != null;
    }

    /** Where lost hosts are reported from now on (a warm session's current generation). */
    public void onHostLost(BiConsumer<String, String> listener) {
        if (pool != null) {
            pool.onHostLost(listener);
        }
    }

    /**
     * Where the services' reports of ended rank processes go from now on (a warm session's current generation; see
     * {@link TaskServicePool#onRankEnded}).
     */
    public void onRankEnded(BiConsumer<String, RelayMessage.RankEnded> listener) {
        if (pool != null) {
            pool.onRankEnded(listener);
        }
    }

    /**
     * Keeps services on exactly the remote ones of {@code hosts}: starts those not starting or up, in the background,
     * and stops the others. Returns at once.
     */
    public void retain(Collection<String> hosts) {
        if (pool != null) {
            pool.retain(HostAddresses.remoteHosts(hosts));
        }
    }

    /**
     * Hands key material to every host's task service (now and, in a warm session, to each host as it is readied),
     * which writes it 0600 and names it {@code envName} to the commands it runs. Nothing when inactive.
     */
    public void provideFile(String envName, byte[] content) throws IOException, InterruptedException {
        if (pool != null) {
            pool.provideFile(envName, content);
        }
    }

    /** Tells every host (now and as it is readied) that it holds elastic job {@code jobId}'s node store. */
    public void announceNodeStore(String jobId) throws IOException {
        if (pool != null) {
            pool.announceNodeStore(jobId);
        }
    }

    /**
     * After {@link #close}: hosts whose services removed the node store themselves at the job's end (no end-of-job
     * cleanup needed there).
     */
    public Set<String> nodeStoreRemoved() {
        return pool == null ? Set.of() : pool.nodeStoreRemoved();
    }

    /** Hosts whose service was lost and not started again. */
    public Set<String> lostHosts() {
        return pool == null ? Set.of() : pool.lostHosts();
    }

    /** Hosts with a service starting or up, in start order. */
    public List<String> serviceHosts() {
        return pool == null ? List.of() : pool.hosts();
    }

    /**
     * Readies the relay for one launch over {@code plan} with settings {@code s}: starts the services not running,
     * waits for those not yet up (each host's start timeout counted from its own start), hands new hosts the session's
     * files, chooses the networks when the hosts changed, and opens this launch's agent key for its hosts. The plan's
     * spare hosts (daemons, no ranks) are readied only where their service is registered, waiting for those still
     * starting at most as long again as the launch's own hosts took (at least {@link #SPARE_GRACE}): a spare host never
     * fails the launch ({@link Launch#spares}).
     *
     * @throws HostsNotReadyException naming the hosts whose service did not register in time or whose remote shell
     *     ended first; their services are stopped (the session stays usable for a launch without them)
     */
    public Launch launch(HostPlan plan, RunSettings s) throws HostsNotReadyException, IOException,
            InterruptedException {
        List<String> remote = HostAddresses.remoteHosts(plan);
        if (pool == null || remote.isEmpty()) {
            return new Launch(s, null, false);
        }
        finishProgress();
        StartReport report = new StartReport(remote);
        progress = StartProgressReporter.every("troika", request.progressInPlace(), report::snapshot, request.err());
        try {
            long readying = System.nanoTime();
            pool.ready(remote);
            Duration ownHosts = Duration.ofNanos(System.nanoTime() - readying);
            DriverService d = pool.driver();
            List<String> nets = networks == null ? null : networks.choose(d, remote);
            RunSettings planned = s;
            if (s.remote().networkInterfaces().isEmpty() && nets != null) {
                planned = planned.with(RunOptionTable.NETWORK_INTERFACES, nets);
            }
            if (!relay) {
                finishProgress();
                return new Launch(planned, null, true);
            }
            List<String> spares = readySpares(plan, remote, ownHosts);
            List<String> keyed = new java.util.ArrayList<>(remote);
            keyed.addAll(spares);
            Path keyFile = keys.open(d, keyed);
            report.daemonsFrom(d);
            planned = planned.with(RunOptionTable.SSH_PORT, null).with(RunOptionTable.SSH_IDENTITY_FILE, null);
            return new Launch(planned, new LaunchAgent(troikaRsh, agentEnv(d, keyFile),
                    request.shell().inAllocation()), true, spares);
        } catch (HostsNotReadyException | IOException | InterruptedException | RuntimeException e) {
            finishProgress();
            throw e;
        }
    }

    /**
     * Readies {@code added} hosts for a growth of the running launch (issue 25): waits for their services (started
     * when discovery added them), hands them {@code spawnEnvironment} ({@link TroikaEnv#SPAWN_ENV_FILE}: the ranks
     * spawned there get mpirun's exports from it; only these hosts need it, so no other host is sent it), and opens a
     * fresh agent key for them alone in the running launch's key file, so the daemons mpirun starts there for a rank's
     * spawn get through the relay.
     *
     * @param spawnEnvironment the content of {@link TroikaEnv#SPAWN_ENV_FILE}, or {@code null} for none
     * @return false when the relay does not start this launch's daemons (no agent, no key file): it cannot grow
     * @throws HostsNotReadyException naming the added hosts whose service did not register in time
     */
    public boolean readyForAdded(List<String> added, byte[] spawnEnvironment) throws HostsNotReadyException,
            IOException, InterruptedException {
        if (pool == null || !relay || added.isEmpty()) {
            return false;
        }
        finishProgress(); // the launch's start is over: its daemon count is not the added hosts'
        pool.ready(added);
        if (spawnEnvironment != null) {
            pool.sendFile(added, TroikaEnv.SPAWN_ENV_FILE, spawnEnvironment);
        }
        return keys.openForAdded(pool.driver(), added);
    }

    /**
     * Hands {@code content} to the services of {@code hosts} now ({@link TaskServicePool#sendFile}): they write it 0600
     * and name it {@code envName} to the commands they run. Nothing when inactive.
     */
    public void sendFile(List<String> hosts, String envName, byte[] content) throws IOException, InterruptedException {
        if (pool != null) {
            pool.sendFile(hosts, envName, content);
        }
    }

    /**
     * How long at least a launch waits, after its own hosts are up, for spare hosts whose service is still starting (a
     * job's first launch starts them all together; the wait is as long as the launch's own hosts took where that is
     * longer); those still starting then get no daemon from this launch.
     */
    static final Duration SPARE_GRACE = Duration.ofSeconds(1);

    /** The plan's spare hosts whose service is registered (after the grace), provisioned now (failures left out). */
    private List<String> readySpares(HostPlan plan, List<String> remote, Duration ownHosts) throws IOException,
            InterruptedException {
        Set<String> ranked = Set.copyOf(remote);
        List<String> candidates = HostAddresses.remoteHosts(plan.spares()).stream().filter(h -> !ranked.contains(h))
                .toList();
        // a job's first launch starts the standby hosts' services with the others: those still starting get a grace
        // after the launch's own hosts are up (as long again as those took, at least SPARE_GRACE), not their start
        // timeout, so a standby host that does not come up delays the launch by that much at most
        long deadline = System.nanoTime() + Math.max(SPARE_GRACE.toNanos(), ownHosts.toNanos());
        while (candidates.stream().anyMatch(h -> pool.state(h) == HostState.STARTING)
                && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        List<String> spares = candidates.stream().filter(h -> {
            HostState st = pool.state(h);
            return st == HostState.REGISTERED || st == HostState.PROVISIONED;
        }).toList();
        if (spares.isEmpty()) {
            return spares;
        }
        try {
            pool.ready(spares);
            return spares;
        } catch (HostsNotReadyException e) {
            return spares.stream().filter(h -> !e.missing().contains(h)).toList();
        }
    }

    /** What the agent needs in mpirun's environment: the driver and the agent key's file, never the job secret. */
    static Map<String, String> agentEnv(DriverService d, Path keyFile) {
        return Map.of(TroikaEnv.DRIVER_ADDR, d.endpoint().toString(), TroikaEnv.SECRET_FILE, keyFile.toString(),
                TroikaEnv.LIVENESS_TIMEOUT_MS, Long.toString(Liveness.AGENT_TIMEOUT.toMillis()));
    }

    /** The start progress of one launch: its hosts' services, then (relay) its daemons' lookups. */
    private final class StartReport {
        private final List<String> hosts;
        private volatile DriverService daemons;

        StartReport(List<String> hosts) {
            this.hosts = hosts;
        }

        void daemonsFrom(DriverService d) {
            this.daemons = d;
        }

        StartProgress.Snapshot snapshot() {
            StartProgress.Hosts h = pool.progress(hosts);
            DriverService d = daemons;
            if (d == null) {
                return new StartProgress.Snapshot(h, relay ? hosts.size() : 0, 0, null);
            }
            Set<String> started = d.agentLookups();
            List<String> waiting = hosts.stream().filter(x -> !started.contains(x)).toList();
            return new StartProgress.Snapshot(h, hosts.size(), hosts.size() - waiting.size(),
                    waiting.isEmpty() ? null : waiting.get(0));
        }
    }

    private void finishProgress() {
        StartProgressReporter p = progress;
        progress = null;
        if (p != null) {
            p.finish();
        }
    }

    @Override
    public void close() {
        finishProgress();
        if (pool != null) {
            pool.close();
        }
        if (keys != null) {
            keys.close();
        }
    }
}
