package org.troika.launcher.exec;

import org.troika.launcher.mpi.MpiFailureParser;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.troika.common.TroikaEnv;
import org.troika.common.exec.ProcessSupervisor;
import org.troika.launcher.options.RunOptionTable;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.elastic.Generation;
import org.troika.launcher.elastic.GenerationLauncher;
import org.troika.launcher.elastic.GenerationResult;
import org.troika.launcher.elastic.HostUpdate;
import org.troika.launcher.elastic.RankExit;
import org.troika.launcher.elastic.World;
import org.troika.launcher.elastic.WorldChange;
import org.troika.wire.ElasticMessage;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.MpiInstall;
import org.troika.launcher.mpi.RankLaunch;
import org.troika.launcher.spi.BackendPlan;
import org.troika.launcher.spi.LaunchBackend;
import org.troika.launcher.timeline.Timeline;
import org.troika.launcher.watchdog.HangReport;
import org.troika.launcher.watchdog.HangWatch;
import org.troika.launcher.relay.HostAddresses;
import org.troika.launcher.relay.GenerationRelay;
import org.troika.launcher.relay.RelaySession;
import org.troika.launcher.relay.RemoteShell;
import org.troika.launcher.relay.StartProgressReporter;
import org.troika.rsh.Liveness;
import org.troika.rsh.driver.HostsNotReadyException;
import org.troika.wire.Secret;

/**
 * The real {@link GenerationLauncher}: each generation is one static launch planned by the ordinary planner with the
 * job's backend ({@link Planner#backend}: mpirun, or any backend that declares
 * {@link LaunchBackend.Capability#ELASTIC}, such as srun) over the generation's hosts, through the job's
 * {@link GenerationRelay} (one warm {@link RelaySession}) when the backend's daemons can be relayed
 * ({@link LaunchBackend.Capability#RELAY_AGENT}) and a remote shell or the relay agent is set, supervised by a
 * {@link SupervisedLaunch}. A backend without relayed daemons (srun starts every rank itself) gets the worker key in
 * its launch environment ({@link #withWorkerKeyInEnvironment}) instead of key files on the hosts.
 *
 * <p>Rank environment (on top of the caller's, through the planner's {@code -x} exports): {@code TROIKA_ELASTIC=1},
 * {@code TROIKA_JOB_ID}, {@code TROIKA_ELASTIC_GENERATION}, and for rank 0's host updates
 * {@code TROIKA_WORKER_ADDR} (this generation's {@link WorkerNotifier}). The worker key (never the job secret) is not
 * a launcher path: hosts share nothing, so each host's task service receives it over the authenticated channel and
 * writes it 0600 in its own private directory ({@code TROIKA_WORKER_SECRET_FILE} in the daemons' environment, which
 * ranks inherit); only ranks on this machine read the launcher's own copy (mpirun's environment, never exported).
 * Elastic jobs on remote hosts therefore run Open MPI's daemons through the relay (with {@code --launch-agent auto},
 * the default, the task services start through ssh, the allocation's launcher or {@code --remote-shell}).
 *
 * <p>Cleanup: at the end (success, failure, Ctrl-C) every host any generation ran on gets
 * {@code troika-rsh cleanup --job ID} through the remote shell ({@link GenerationRelay#close}), which removes its node
 * state store; this machine's store and key file are removed directly.
 *
 * <p>Each generation is one {@link SupervisedLaunch}; {@link GenerationExits} turns its outcome into the ranks' exits.
 * A host the relay's liveness check declares lost (killed, partitioned) ends the generation with that host's ranks as
 * failures (exit 255): the driver blacklists it within seconds. {@code rendezvousReached} is rank 0's registration
 * with the notifier, which it sends at its first commit.
 *
 * <p>Not thread-safe: one driver thread launches and watches.
 */
public final class MpirunGenerationLauncher implements GenerationLauncher, AutoCloseable {
    /**
     * With {@code --fault-tolerance shrink}: how long mpirun may stay up after every rank is dead or has left the
     * elastic run before it is ended (PRRTE 3.0.8 at times does not exit by itself after a rank died).
     */
    static final Duration SHRUNK_EXIT_GRACE = Duration.ofSeconds(10);
    /**
     * How long a host change waits for the world's next rank 0 to subscribe after the one that heard the driver died
     * or left (it subscribes right after the world's shrink or change; its connect timeout is 10 s), before the
     * generation ends for a relaunch instead.
     */
    static final Duration TAKEOVER_GRACE = Duration.ofSeconds(10);
    /**
     * With fault tolerance: how long the survivors have, after a rank's host saw its process end, to report the world
     * without it; past that they are stuck (a collective the MPI's revoke does not reach, a runtime that never told
     * them) and the generation ends, to resume from the last commit. The survivors' report takes 0.3 to 1.5 s on this
     * machine at load 25-35 (bench/ulfm-detect.sh); 10 s ran out once at load 31, in a run whose daemons had taken
     * 12 s to start (slow or stuck survivors: not known).
     */
    static final Duration SHRINK_REPORT_TIMEOUT = Duration.ofSeconds(20);

    /**
     * Plans one static launch with the same planner {@code troika run} uses, over the generation's own host plan (not
     * resolved again) with the relay's launch agent as a planning input (pure apart from the MPI probe).
     */
    public interface Planner {
        /**
         * The backend every generation is planned with, chosen once for the job; its capabilities decide whether
         * generations go through the relay ({@link LaunchBackend.Capability#RELAY_AGENT}) or the ranks get the worker
         * key in the launch environment.
         */
        LaunchBackend backend();

        /** The MPI in use (detected once, cached by the probe). */
        MpiInstall mpi(RunSettings settings, Map<String, String> env);

        /** The launch over {@code hosts}; {@code agent} is the relay's launch agent or {@code null}. */
        BackendPlan plan(RunSettings settings, HostPlan hosts, MpiInstall mpi, Map<String, String> env,
                org.troika.launcher.spi.LaunchAgent agent);
    }

    private final RunSettings base;
    private final Map<String, String> env;
    private final Path troikaHome;
    private final PrintStream out;
    private final PrintStream err;
    private final Planner planner;
    private final String jobId;
    private final Secret workerKey;
    private final Path workerKeyFile;
    private final Timeline timeline;
    private volatile Running current;
    private final List<Running> started = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** The job's warm relay (task services outlive generations) and the end-of-job cleanup of its hosts. */
    private final GenerationRelay relay;

    /**
     * Records each generation's services, mpirun, hangs and lost hosts on {@code timeline}; every generation runs under
     * the hang watchdog when the settings ask for it (elastic default: on).
     *
     * @param base the elastic run settings (hosts, np and elastic fields are replaced per generation)
     * @param env the caller's environment; {@code TROIKA_SECRET_KEY} there (or a generated one) is the job secret
     * @param troikaHome the installation (for the relay), or {@code null}
     * @param shell the job's remote shell (the allocation's own launcher inside one, unless {@code --remote-shell})
     */
    public MpirunGenerationLauncher(RunSettings base, Map<String, String> env, Path troikaHome, PrintStream out,
            PrintStream err, Planner planner, Timeline timeline, RemoteShell shell) throws IOException {
        this.timeline = timeline;
        this.base = base;
        this.troikaHome = troikaHome;
        this.out = out;
        this.err = err;
        this.planner = planner;
        Secret job = Secret.fromEnvOrGenerate(env);
        // every generation's relay uses the same job secret, and the ranks' worker key derives from it
        Map<String, String> e = new LinkedHashMap<>(env);
        e.put(TroikaEnv.SECRET_KEY, job.encode());
        e.remove(TroikaEnv.WORKER_SECRET_FILE); // an outer job's key file names nothing on this job's hosts
        e.remove(TroikaEnv.WORKER_KEY); // nor is an outer job's key this job's
        this.env = Map.copyOf(e);
        this.jobId = "e" + ProcessHandle.current().pid() + "-"
                + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong() & 0xffffffffL);
        this.workerKey = WorkerNotifier.workerKey(job);
        this.workerKeyFile = workerKey.writeToPrivateFile(Path.of(env.getOrDefault("TMPDIR",
                System.getProperty("java.io.tmpdir"))));
        // the worker key reaches every remote host over the authenticated channel, never as a path
        this.relay = new GenerationRelay(shell, troikaHome, err, StartProgressReporter.stderrIsTerminal(env), timeline,
                jobId, Map.of(TroikaEnv.WORKER_SECRET_FILE, workerKey.encode().getBytes(
                        java.nio.charset.StandardCharsets.US_ASCII)));
    }

    public String jobId() {
        return jobId;
    }

    /** The static settings of one generation: its hosts and size, no elastic fields. */
    public static RunSettings generationSettings(RunSettings base, Generation gen) {
        return base.with(new RunSettings.Hosts(gen.size(), gen.plan().hosts(), "elastic generation " + gen.id()))
                .with(RunSettings.Elastic.NONE);
    }

    /** Open MPI 4's grace between SIGTERM and SIGKILL of ranks when it aborts a job. */
    static final String SIGKILL_TIMEOUT = "OMPI_MCA_odls_base_sigkill_timeout";

    /**
     * What the launch of {@code generation} (and, through its exports, its ranks) gets on top of {@code env} (pure).
     */
    public static Map<String, String> rankEnv(Map<String, String> env, String jobId, int generation,
            String workerAddr) {
        Map<String, String> e = new LinkedHashMap<>(env);
        e.put(TroikaEnv.ELASTIC, "1");
        e.put(TroikaEnv.JOB_ID, jobId);
        e.put(TroikaEnv.ELASTIC_GENERATION, Integer.toString(generation));
        e.put(TroikaEnv.WORKER_ADDR, workerAddr);
        // never a launcher path in the exported environment: see withLocalWorkerKey and the class comment
        e.remove(TroikaEnv.WORKER_SECRET_FILE);
        // Open MPI 4 waits odls_base_sigkill_timeout (1 s) between SIGTERM and SIGKILL when it ends a job after the
        // first non-zero exit, which every generation end is (exit 75 or a failure); the committed state is on the
        // node before any rank leaves, so nothing needs that second (generation end: 1.45 s -> 0.16 s, measured)
        e.putIfAbsent(SIGKILL_TIMEOUT, "0");
        // every generation starts the same java ranks again: from the second one on (per host) they map the class
        // archive the first recorded (bin/troika-rankenv; measured about 50 ms less CPU per rank JVM start)
        e.putIfAbsent(TroikaEnv.JAVA_CDS, "1");
        return e;
    }

    /**
     * {@code plan} with the launcher's worker key file in mpirun's own environment (pure): ranks mpirun starts on this
     * machine inherit it; it is not in the {@code -x} exports, so remote ranks keep the copy their host's task service
     * wrote.
     */
    public static BackendPlan withLocalWorkerKey(BackendPlan plan, Path workerKeyFile) {
        Map<String, String> env = new LinkedHashMap<>(plan.launch().env());
        env.put(TroikaEnv.WORKER_SECRET_FILE, workerKeyFile.toString());
        return plan.withLaunch(plan.launch().withEnv(env));
    }

    /**
     * {@code plan} with the worker key itself ({@link TroikaEnv#WORKER_KEY}, base64) in the launcher's environment
     * (pure): for a backend that starts every rank itself and passes its whole environment on ({@code srun}), so that
     * remote ranks get the key with their environment. No relay runs for such a backend, so no host has a key file.
     */
    public static BackendPlan withWorkerKeyInEnvironment(BackendPlan plan, Secret workerKey) {
        Map<String, String> env = new LinkedHashMap<>(plan.launch().env());
        env.put(TroikaEnv.WORKER_KEY, workerKey.encode());
        return plan.withLaunch(plan.launch().withEnv(env));
    }

    /**
     * The settings a generation launches with (pure): with a backend whose daemons the relay can start, the default
     * launch agent and an Open MPI, the relay, so that remote hosts get the worker key from their task services
     * (plain ssh daemons could not).
     */
    static RunSettings withRelayForKeys(RunSettings s, MpiInstall mpi, LaunchBackend backend) {
        return backend.capabilities().contains(LaunchBackend.Capability.RELAY_AGENT)
                && s.remote().launchAgent() == RunSettings.LaunchAgent.AUTO && mpi.flavor().isOpenMpiFamily()
                ? s.with(RunOptionTable.LAUNCH_AGENT, RunSettings.LaunchAgent.RELAY) : s;
    }

    /**
     * The usable hosts changed: services start on added ones now, while the current generation runs, so that the next
     * generation waits for none of them; those of hosts that left (and run no launch still going) stop.
     */
    @Override
    public void hostsChanged(List<String> hosts) {
        served = List.copyOf(hosts);
        relay.hostsChanged(hosts);
    }

    /** The hosts to keep ready, as the driver last said ({@link #hostsChanged}). */
    private volatile List<String> served = List.of();

    /**
     * The standby hosts ({@code host:0}), as the driver last said: where a generation grows in place they, and no
     * usable host beyond a generation's size, get PRRTE's daemon from the launch, and with {@code --standby-ranks} a
     * waiting rank (a JVM per host for as long as the generation runs).
     */
    @Override
    public void standbyChanged(List<String> standby) {
        declaredStandby = Set.copyOf(standby);
    }

    private volatile Set<String> declaredStandby = Set.of();

    /**
     * The hosts a generation on {@code ranked} keeps ready without ranks (pure; one pass, sets): those of {@code served}
     * that discovery lists as standby and that run no rank, in {@code served}'s order.
     */
    static List<String> spareHosts(List<String> served, Set<String> standby, List<String> ranked) {
        Set<String> busy = Set.copyOf(ranked);
        return served.stream().filter(h -> standby.contains(h) && !busy.contains(h)).toList();
    }

    /** How many ranks {@code launched} places on each host (pure; hosts without a rank are absent). */
    static Map<String, Integer> placedPerHost(HostPlan launched) {
        Map<String, Integer> on = new java.util.HashMap<>();
        launched.slots().forEach(slot -> on.merge(slot.host(), 1, Integer::sum));
        return Map.copyOf(on);
    }

    /** Each launch rank's local rank on its host, by generation id (pure; standby ranks included). */
    static Map<Integer, Integer> launchLocals(HostPlan launched) {
        Map<Integer, Integer> local = new java.util.HashMap<>();
        launched.slots().forEach(slot -> local.put(slot.rank(), slot.localRank()));
        return Map.copyOf(local);
    }

    /**
     * {@code change}'s spawns as sent to the ranks (pure): each host's slot count for the MPI ({@code placed} plus the
     * spawn), and, on a host where processes of the world keep running (its members that stay or are activated, and
     * standby ranks still waiting: {@code waitingAfter}), the smallest local ranks none of them holds ({@code local}:
     * by id) and the host's local size once they joined. Spawned ranks alone on their host count from 0, unsent.
     * One pass over the target world and the change.
     */
    static List<ElasticMessage.ChangeWorld.Spawn> spawns(WorldChange change, Map<String, Integer> placed,
            Map<Integer, Integer> local, Map<String, List<Integer>> waitingAfter) {
        Map<String, Set<Integer>> held = new java.util.HashMap<>();
        for (World.Member m : change.target().members()) {
            Integer l = local.get(m.id());
            if (m.id() < change.firstJoinId() && l != null) {
                held.computeIfAbsent(m.host(), h -> new java.util.HashSet<>()).add(l);
            }
        }
        waitingAfter.forEach((host, ids) -> ids.forEach(id -> {
            Integer l = local.get(id);
            if (l != null) {
                held.computeIfAbsent(host, h -> new java.util.HashSet<>()).add(l);
            }
        }));
        List<ElasticMessage.ChangeWorld.Spawn> out = new ArrayList<>();
        for (WorldChange.Join j : change.join()) {
            int slots = placed.getOrDefault(j.host(), 0) + j.count();
            Set<Integer> taken = held.get(j.host());
            if (taken == null || taken.isEmpty()) {
                out.add(new ElasticMessage.ChangeWorld.Spawn(j.host(), j.count(), slots));
                continue;
            }
            List<Integer> free = new ArrayList<>(j.count());
            for (int l = 0; free.size() < j.count(); l++) {
                if (!taken.contains(l)) {
                    free.add(l);
                }
            }
            out.add(new ElasticMessage.ChangeWorld.Spawn(j.host(), j.count(), slots, free, taken.size() + j.count()));
        }
        return out;
    }

    /** {@code local} with the local ranks of {@code sent}'s ranks, ids from {@code firstJoinId} in order (pure). */
    static Map<Integer, Integer> localsAfter(Map<Integer, Integer> local, List<ElasticMessage.ChangeWorld.Spawn> sent,
            int firstJoinId) {
        Map<Integer, Integer> after = new java.util.HashMap<>(local);
        int id = firstJoinId;
        for (ElasticMessage.ChangeWorld.Spawn s : sent) {
            for (int k = 0; k < s.count(); k++) {
                after.put(id++, s.locals().isEmpty() ? k : s.locals().get(k));
            }
        }
        return Map.copyOf(after);
    }

    /** {@code placed} with {@code change}'s spawned ranks added to their hosts (pure). */
    static Map<String, Integer> placedAfter(Map<String, Integer> placed, WorldChange change) {
        Map<String, Integer> on = new java.util.HashMap<>(placed);
        change.join().forEach(j -> on.merge(j.host(), j.count(), Integer::sum));
        return Map.copyOf(on);
    }

    /**
     * The hosts where {@code change}'s world keeps processes of its launch running (pure): those of its ranks that
     * stay or are activated, and those with standby ranks still waiting ({@code waiting}, before the change). A rank
     * spawned onto one of them starts under the daemon already there.
     */
    static Set<String> runningHosts(WorldChange change, Map<String, List<Integer>> waiting) {
        Set<String> on = new java.util.HashSet<>();
        for (World.Member m : change.target().members()) {
            if (m.id() < change.firstJoinId()) {
                on.add(m.host());
            }
        }
        waiting.forEach((host, ids) -> {
            if (!ids.isEmpty()) {
                on.add(host);
            }
        });
        return on;
    }

    @Override
    public RunningGeneration launch(Generation gen) {
        Running running = new Running(gen);
        relay.used(gen.hostNames());
        current = running;
        started.add(running);
        Thread t = new Thread(running::run, "troika-generation-" + gen.id());
        t.setDaemon(true);
        t.start();
        return running;
    }

    /**
     * Tears a still running generation down (SIGTERM, grace, SIGKILL; its relay session closes after), then removes
     * the worker key file and this machine's committed-state store.
     */
    @Override
    public void close() {
        Running r = current;
        try {
            closeGeneration(r);
        } finally {
            relay.close(); // Shutdown to every task service; every remote host any generation ran on cleaned up
            try {
                Files.deleteIfExists(workerKeyFile);
                Files.deleteIfExists(workerKeyFile.getParent());
            } catch (IOException ignored) {
                // best effort: the directory is private
            }
            org.troika.common.PrivateFiles.deleteTreeQuietly(org.troika.common.NodeStorePaths.directory(
                    org.troika.common.NodeStorePaths.DEFAULT_BASE, jobId));
        }
    }

    /** Tears a still running generation down and waits for every generation's thread to finish. */
    private void closeGeneration(Running r) {
        if (r != null && !r.result.isDone()) {
            SupervisedLaunch l = r.launch;
            try {
                if (l != null) {
                    l.tearDown(ProcessSupervisor.DEFAULT_GRACE);
                }
                r.result.get(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // best effort: the supervisors' guards still end the processes when this JVM exits
            }
        }
        for (Running g : started) {
            try {
                g.finished.await(30, TimeUnit.SECONDS); // its notifier and watchdog closed
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
    }

    /** One generation's launch, run on its own thread. */
    private final class Running implements RunningGeneration {
        private final Generation gen;
        private final CompletableFuture<GenerationResult> result = new CompletableFuture<>();
        /** Counted down when the generation's relay session and notifier are closed too. */
        private final java.util.concurrent.CountDownLatch finished = new java.util.concurrent.CountDownLatch(1);
        private final Set<String> lost = ConcurrentHashMap.newKeySet();
        private volatile WorkerNotifier notifier;
        /** The generation's launch once it started. */
        private volatile SupervisedLaunch launch;
        /** What the ranks reported about the generation's world. */
        private ShrinkTracker shrink;
        private int pendingBits;
        /** What this generation can change in place, once its launch is planned. */
        private volatile World.InPlace inPlace = World.InPlace.NONE;
        /**
         * The standby hosts this generation's launch gave a daemon and no rank ({@link RelaySession.Launch#spares}): a
         * growth onto one needs no agent key, and the spawn's {@code PMIX_ADD_HOST} finds PRRTE's daemon there.
         */
        private volatile List<String> spares = List.of();
        /**
         * The launch's standby ranks not activated yet ({@code --standby-ranks N}): the ids of each spare host's waiting
         * ranks (their launch ranks, from the generation's size up), in order; replaced whole, never changed.
         */
        private volatile Map<String, List<Integer>> standby = Map.of();
        /**
         * Whether a change that adds ranks on hosts without a daemon of the launch was sent (then no leave in place,
         * {@link #inPlace()}).
         */
        private volatile boolean grown;
        /** Whether a change that spawns ranks was sent (then no other spawn in place, {@link #inPlace()}). */
        private volatile boolean spawned;
        /**
         * Per host, how many processes this generation's MPI placed there at most: the launch's ranks (standby ranks
         * included) and every rank spawned there since, ranks that left still counted (their slots may not be free
         * yet). A spawn tells the MPI this plus its count as the host's slots ({@code PMIX_ADD_HOST} sets a host's slot
         * count, its running processes included; where the ranks go is the spawn's {@code host} key's, so a count too
         * high only leaves slots unused). Replaced whole.
         */
        private volatile Map<String, Integer> placed = Map.of();
        /** Every process's local rank on its host, by generation id (launched, activated or spawned). Replaced whole. */
        private volatile Map<Integer, Integer> locals = Map.of();
        /** The hosts whose services have the spawned ranks' exports file for this generation. Replaced whole. */
        private volatile Set<String> withSpawnEnvironment = Set.of();
        /** Changes in place sent to rank 0 so far. */
        private int changes;
        /** Each change in place not yet reported made, by change number: the id of the rank it was sent to. */
        private final Map<Integer, Sent> changeSentTo = new java.util.HashMap<>();
        /** Whether a change in place was lost and the world was told to leave for a relaunch: no more changes. */
        private boolean leaving;
        /**
         * The ranks that died or departed so far. The world's rank that hears the driver ({@link
         * WorkerNotifier#listener()}, the launch's rank 0 at first) among them: no change reaches this world until the
         * world's next rank 0 subscribes ({@link #deaf()}).
         */
        private final Set<Integer> gone = new java.util.HashSet<>();
        /** When the rank that heard the driver went ({@link System#nanoTime()}), while {@link #deaf()}. */
        private long listenerLostAt;
        /** Whether {@link #endForRelaunch} ended the generation. */
        private boolean relaunching;
        /** Whether {@link #endIfLingering} started its watch. */
        private boolean lingerWatched;
        /**
         * The launcher's name when the next generation may start before this one's launcher ended ({@link
         * #endedByReports}), else {@code null}: mpirun's launches are independent of each other; an srun step waits
         * for the nodes of the step before it ("Requested nodes are busy"), so overlapping would gain nothing.
         */
        private volatile String overlapping;

        Running(Generation gen) {
            this.gen = gen;
        }

        void run() {
            try {
                result.complete(launchAndWait());
            } catch (IOException | UncheckedIOException | org.troika.common.UsageException e) {
                result.complete(GenerationResult.launchFailed(e.getMessage()));
            } catch (InterruptedException e) {
                result.complete(GenerationResult.launchFailed("interrupted"));
            } catch (RuntimeException e) {
                result.complete(GenerationResult.launchFailed(e.toString()));
            } finally {
                try {
                    relay.ended(gen.id()); // hosts only this launch kept lose their services now
                } finally {
                    finished.countDown();
                }
            }
        }

        private GenerationResult launchAndWait() throws IOException, InterruptedException {
            RunSettings given = generationSettings(base, gen);
            try (HangWatch watch = HangWatch.start(base, env, gen.plan(), gen.id(), timeline, err);
                    WorkerNotifier n = startNotifier(watch)) {
                synchronized (this) {
                    notifier = n;
                    if (pendingBits != 0) {
                        n.announce(System.currentTimeMillis(), pendingBits);
                    }
                }
                Map<String, String> e = new LinkedHashMap<>(rankEnv(env, jobId, gen.id(), n.endpoint().toString()));
                e.putAll(watch.env());
                if (base.elastic().minNp() != null) {
                    e.put(TroikaEnv.ELASTIC_MIN_NP, Integer.toString(base.elastic().minNp()));
                }
                MpiInstall mpi = planner.mpi(given, e);
                LaunchBackend backend = planner.backend();
                boolean relayed = backend.capabilities().contains(LaunchBackend.Capability.RELAY_AGENT);
                overlapping = relayed ? backend.name() : null;
                RunSettings s = withRelayForKeys(given, mpi, backend);
                // planned before any service starts, so bad input launches nothing; the relay may change the inputs
                BackendPlan checked = planner.plan(s, gen.plan(), mpi, e, null);
                boolean shrinks = "shrink".equals(checked.launch().env().get(TroikaEnv.FAULT_TOLERANCE));
                RelaySession.Launch launch;
                try {
                    // a backend that starts every rank itself (srun) has no daemons to relay: its hosts are only
                    // recorded for the end-of-job cleanup
                    launch = !relayed ? relay.unrelayed(gen.plan(), s) : relay.ready(gen.id(),
                            gen.plan().withSpares(spareCandidates(shrinks, mpi, relayed)), s, mpi, e,
                            (host, why) -> {
                                if (gen.hostNames().contains(host)) {
                                    hostLost(host);
                                } // a spare's service is started again when a generation needs it
                            }, (host, ended) -> {
                                if (ended.generation() == gen.id()) {
                                    rankProcessEnded(ended.rank(), host, s.verbose());
                                }
                            });
                } catch (HostsNotReadyException x) {
                    // not the end of the job: those hosts are blacklisted and the next generation runs without them
                    err.println("troika elastic: generation " + gen.id() + ": " + x.getMessage());
                    GenerationResult r = new GenerationResult(GenerationExits.of(gen.plan(),
                            LaunchOutcome.exited(GenerationExits.HOST_LOST_EXIT).withLost(Set.copyOf(x.missing()))),
                            false);
                    result.complete(r);
                    return r;
                }
                // standby hosts whose service is up get PRRTE's daemon from the start (-H host:0, no rank): a growth
                // onto one then starts the rank alone, not a daemon through the relay first
                spares = launch.spares();
                World.InPlace can = World.InPlace.of(mpi, shrinks, relayed && launch.agent() != null);
                boolean grows = can.grow();
                // --standby-ranks N: those hosts get N ranks too, which wait outside the world (ElasticWorld.of) until a
                // growth activates them; the ranks' launch is the generation's plan with N more ranks per spare host
                HostPlan launched = gen.plan().withSpares(spares);
                if (base.elastic().standbyRanksPerHost() > 0 && !grows && gen.id() == 1) {
                    err.println("troika elastic: --standby-ranks: this job cannot grow in place (that needs Open MPI 5"
                            + " with --fault-tolerance shrink, its daemons started through troika's relay); standby"
                            + " hosts get no rank");
                }
                int perHost = grows ? base.elastic().standbyRanksPerHost() : 0;
                List<String> waiting = perHost > 0 ? spares : List.of();
                if (!waiting.isEmpty()) {
                    launched = launched.withStandbyRanks(waiting, perHost);
                    e.put(TroikaEnv.ELASTIC_STANDBY_FROM, Integer.toString(gen.size()));
                    Map<String, List<Integer>> ids = new LinkedHashMap<>();
                    for (int i = 0; i < waiting.size(); i++) {
                        int first = gen.size() + i * perHost;
                        ids.put(waiting.get(i), java.util.stream.IntStream.range(first, first + perHost).boxed()
                                .toList());
                    }
                    standby = Map.copyOf(ids);
                }
                BackendPlan planned = launch.active()
                        ? planner.plan(launch.settings(), launched, mpi, e, launch.agent())
                        : checked;
                BackendPlan plan = relayed ? withLocalWorkerKey(planned, workerKeyFile)
                        : withWorkerKeyInEnvironment(planned, workerKey);
                // ranks spawned into this world later get mpirun's exports from their host's service (troika-rankenv),
                // not only what fits into the spawn's 255-byte info value: the hosts added get them before a spawn,
                // the spare hosts before their daemon starts
                relay.spawnEnvironment(relayed ? RankLaunch.spawnEnvironmentFile(plan.launch().env()) : null);
                inPlace = can;
                if (!spares.isEmpty()) {
                    try {
                        relay.sendSpawnEnvironment(spares);
                    } catch (IOException x) {
                        err.println("troika elastic: generation " + gen.id() + ": no daemon on the standby hosts at the"
                                + " start (" + x.getMessage() + "); a growth onto them starts one");
                        spares = List.of();
                        standby = Map.of();
                        e.remove(TroikaEnv.ELASTIC_STANDBY_FROM);
                        launched = gen.plan();
                        plan = withLocalWorkerKey(planner.plan(launch.settings(), gen.plan(), mpi, e, launch.agent()),
                                workerKeyFile);
                    }
                }
                placed = placedPerHost(launched);
                locals = launchLocals(launched);
                withSpawnEnvironment = Set.copyOf(spares);
                if (s.verbose()) {
                    err.println("troika elastic: generation " + gen.id() + ": " + plan.launch().render());
                    if (!standby.isEmpty()) {
                        err.println("troika elastic: generation " + gen.id() + ": standby ranks " + gen.size() + "-"
                                + (gen.size() + waiting.size() * perHost - 1) + " wait on " + String.join(",", waiting)
                                + " (" + perHost + " each)");
                    }
                }
                // The launch agents and the driver watch the same heartbeats. When an agent gives up on a
                // partitioned host first, mpirun ends before the driver reports that host lost and no rank is
                // named: the launch gives the driver its liveness window to name the host, or the next generation
                // would plan on it again. Not when every rank reported its leave (a relaunch for a host change under
                // fault tolerance: PRRTE names no rank for ranks that all exit with 75, and that window cost ~8 s).
                SupervisedLaunch.Spec spec = SupervisedLaunch.Spec.of(plan, launched, out, err).withWatch(watch)
                        .withTimeline(timeline, backend.name() + " (generation " + gen.id() + ")", Map.of("generation",
                                gen.id(), "worldSize", gen.size()))
                        .withFreshRankFiles(gen.id() == 1)
                        .withLostHostWindow(launch.active() ? Liveness.TIMEOUT.plusSeconds(2)
                                : Duration.ZERO, shrink::accountedFor);
                try (SupervisedLaunch l = SupervisedLaunch.start(spec)) {
                    started(l);
                    LaunchOutcome o = l.await();
                    if (o.exitCode() != 0 && o.missingProgram()) {
                        err.println("troika elastic: " + MpiFailureParser.MISSING_PROGRAM_HINT);
                    }
                    boolean toldToChange;
                    synchronized (this) {
                        toldToChange = changes > 0;
                    }
                    // a launch with spare daemons too: PRRTE 3.0.8 ends the whole job with exit 0 when it loses one
                    // (a standby host that dies), and only the ranks' leave reports tell that from a finished training
                    boolean tracked = shrink.changed() || toldToChange || !spares.isEmpty();
                    List<Integer> unfinished = tracked && o.exitCode() == 0 && o.lost().isEmpty() && o.hang() == null
                            ? shrink.notLeft() : List.of();
                    if (!unfinished.isEmpty()) {
                        err.println("troika elastic: generation " + gen.id() + ": mpirun exited 0 but rank(s) "
                                + unfinished.stream().map(String::valueOf).collect(Collectors.joining(","))
                                + " never left Elastic.run (the MPI runtime ended the job); relaunching from the"
                                + " last commit");
                    }
                    GenerationResult r = new GenerationResult(GenerationExits.of(gen.plan(),
                            o.withWorld(tracked ? shrink.exits(o.exitCode()) : null)), n.registered());
                    result.complete(r);
                    return r;
                }
            }
        }

        /** The launch runs: hosts lost while it started end it now. */
        private void started(SupervisedLaunch l) {
            synchronized (this) {
                launch = l;
            }
            for (String h : lost) {
                l.hostLost(h);
            }
        }

        /** A host of this generation was declared lost (on the relay's liveness thread): the launch ends. */
        private void hostLost(String host) {
            SupervisedLaunch l;
            synchronized (this) {
                lost.add(host);
                l = launch;
            }
            if (l != null) {
                l.hostLost(host);
            }
        }

        /**
         * A rank's host saw its process end (its task service; fault-tolerant generations only). Unless the rank left
         * or the survivors already named it dead, they get {@link #SHRINK_REPORT_TIMEOUT} to report the world without
         * it; if they do not, they are stuck and the generation ends (the dead rank's host is blacklisted, the next
         * generation resumes from the last commit) instead of waiting for the hang watchdog.
         */
        private void rankProcessEnded(int rank, String host, boolean verbose) {
            if (!shrink.processEnded(rank)) {
                return;
            }
            if (verbose) {
                err.println("troika elastic: generation " + gen.id() + ": the process of rank " + rank + " on host "
                        + host + " ended (seen by its task service)");
            }
            Thread t = new Thread(() -> {
                try {
                    Thread.sleep(SHRINK_REPORT_TIMEOUT.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
                SupervisedLaunch l = launch;
                try {
                    if (!shrink.unconfirmed(rank) || l == null || l.waitFor(Duration.ZERO) != null) {
                        return;
                    }
                } catch (InterruptedException e) {
                    return;
                }
                shrink.declareDead(rank);
                shrink.endedByLauncher(); // what the teardown kills next is no failure of those ranks' hosts
                err.println("troika elastic: generation " + gen.id() + ": rank " + rank + " on host " + host
                        + " died and the survivors did not recover within " + SHRINK_REPORT_TIMEOUT.toSeconds()
                        + " s; ending the generation (the next one resumes from the last commit)");
                timeline.instant(Timeline.Kind.FAILURE, "rank " + rank + " died, survivors stuck", host,
                        Map.of("rank", rank, "generation", gen.id()));
                l.tearDown(SupervisedLaunch.LOST_HOST_GRACE);
            }, "troika-generation-shrink-report");
            t.setDaemon(true);
            t.start();
        }

        /** This generation's notifier: rank 0's host updates, and the ranks' reports to {@link #shrink}. */
        private WorkerNotifier startNotifier(HangWatch watch) throws IOException {
            shrink = new ShrinkTracker(gen.plan(), shrinkNews(watch));
            return new WorkerNotifier(workerKey, HostAddresses.routeTo(gen.hostNames()), gen.id(), gen.size(),
                    shrink);
        }

        /**
         * What the ranks report under fault tolerance: a dead rank is told at once (and blacklisted at the generation's
         * end), and the hang watchdog forgets it (and watches a rank that joined in place); once every rank is dead or
         * has left, mpirun gets {@link #SHRUNK_EXIT_GRACE} to exit by itself.
         */
        private ShrinkTracker.News shrinkNews(HangWatch watch) {
            return new ShrinkTracker.News() {
                @Override
                public void died(int rank, String host) {
                    watch.forget(rank);
                    err.println("troika elastic: generation " + gen.id() + ": rank " + rank + " on host " + host
                            + " died; the survivors go on (fault tolerance: shrink)");
                    rankGone(rank, "died");
                }

                @Override
                public void departed(int rank, String host) {
                    watch.forget(rank);
                    rankGone(rank, "left");
                }

                @Override
                public void joined(int rank, String host) {
                    watch.join(rank, host);
                }

                @Override
                public void over() {
                    endIfLingering();
                }

                @Override
                public void leftTogether() {
                    endedByReports();
                }
            };
        }

        /**
         * A rank died or departed ({@code how}). The world's next rank 0 takes over listening (it subscribes as soon as
         * it is rank 0); until it has, no change is made in place, and a host change waits {@link #TAKEOVER_GRACE} for
         * it ({@link #announce}). When the rank heard the driver and a change in place sent to it is not reported made,
         * that change never will be (the world would train on as it was, ranks on hosts that left included): it is
         * announced instead, so the world leaves at its next commit and the next generation resumes from that commit
         * on the hosts discovery lists (a teardown when no rank takes over in time).
         */
        private void rankGone(int rank, String how) {
            int lost = 0;
            synchronized (this) {
                gone.add(rank);
                changeSentTo.keySet().removeIf(c -> c <= shrink.changesMade());
                for (Sent sent : changeSentTo.values()) {
                    lost |= sent.to() == rank ? sent.bits() : 0;
                }
                if (rank == listenerId()) {
                    listenerLostAt = System.nanoTime();
                }
                if (lost != 0) {
                    if (leaving || relaunching || result.isDone()) {
                        return;
                    }
                    leaving = true;
                }
            }
            if (lost != 0) {
                // the world leaves for a relaunch at its next commit (the next rank 0 hears it: it subscribes as it
                // becomes rank 0), so every rank ends with its output said; a teardown is the fallback when none does
                err.println("troika elastic: generation " + gen.id() + ": rank " + rank + ", the rank that hears the"
                        + " driver, " + how + " before the world made the change in place; the world leaves at its next"
                        + " commit (the next generation resumes from it)");
                announce(HostUpdate.of((lost & HostUpdate.ADDED.bits()) != 0, (lost & HostUpdate.REMOVED.bits()) != 0));
            }
        }

        /** A change in place sent to the rank with id {@code to}: what it changes, as {@link HostUpdate} bits. */
        private record Sent(int to, int bits) {}

        /**
         * While the rank that heard the driver has just gone, waits (at most until {@link #TAKEOVER_GRACE} after it
         * went) for the world's next rank 0 to subscribe: it does right after the shrink or change that made it rank 0,
         * so a host change discovery saw meanwhile is still made in place rather than announced for a relaunch.
         */
        private void awaitListener() {
            while (true) {
                synchronized (this) {
                    if (!deaf() || result.isDone()
                            || System.nanoTime() - listenerLostAt >= TAKEOVER_GRACE.toNanos()) {
                        return;
                    }
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        /**
         * Whether no rank of the world listens: the one that subscribed last (the launch's rank 0 before any did) died
         * or departed, and no later rank 0 subscribed. Guarded by this.
         */
        private boolean deaf() {
            return gone.contains(listenerId());
        }

        /** The id of the rank that hears the driver: the one that subscribed last, the launch's rank 0 before any. */
        private int listenerId() {
            WorkerNotifier n = notifier;
            int l = n == null ? -1 : n.listener();
            return l < 0 ? 0 : l;
        }

        /** Ends the generation (once) for a relaunch from the last commit, saying {@code why}. */
        private void endForRelaunch(String why) {
            SupervisedLaunch l;
            synchronized (this) {
                if (relaunching || result.isDone()) {
                    return;
                }
                relaunching = true;
                l = launch;
                shrink.endedByLauncher();
            }
            err.println("troika elastic: generation " + gen.id() + ": " + why + "; ending the generation (the next one"
                    + " resumes from the last commit)");
            if (l == null) {
                return;
            }
            Thread t = new Thread(() -> l.tearDown(SupervisedLaunch.LOST_HOST_GRACE), "troika-generation-relaunch");
            t.setDaemon(true);
            t.start();
        }

        /**
         * Every rank reported leaving for a host change: the generation's result is what they reported, now, and the
         * driver plans the next generation while mpirun still ends (the ranks' JVMs exit, then PRRTE spends ~0.75 s in
         * its kill sleeps after ranks exit 75). The launch keeps its output sinks and its hosts their services
         * ({@link GenerationRelay#ended}) until mpirun has ended; it gets {@link #SHRUNK_EXIT_GRACE} to do so.
         */
        private void endedByReports() {
            String launcher = overlapping;
            if (launcher == null) {
                return;
            }
            WorkerNotifier n = notifier;
            GenerationResult r = new GenerationResult(shrink.exits(org.troika.common.ElasticExitCodes.HOSTS_UPDATED),
                    n != null && n.registered());
            if (!result.complete(r)) {
                return;
            }
            timeline.instant(Timeline.Kind.GENERATION, "every rank left for the host change", null,
                    Map.of("generation", gen.id()));
            if (base.verbose()) {
                err.println("troika elastic: generation " + gen.id() + ": every rank left for the host change; the"
                        + " next generation starts while " + launcher + " ends");
            }
            endIfLingering();
        }

        /** mpirun gets {@link #SHRUNK_EXIT_GRACE} to exit by itself, then it is torn down (once). */
        private void endIfLingering() {
            synchronized (this) {
                if (lingerWatched) {
                    return;
                }
                lingerWatched = true;
            }
            Thread t = new Thread(() -> {
                try {
                    SupervisedLaunch l = launch;
                    if (l != null && l.waitFor(SHRUNK_EXIT_GRACE) == null) {
                        l.tearDown(SupervisedLaunch.LOST_HOST_GRACE);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "troika-generation-shrunk-exit");
            t.setDaemon(true);
            t.start();
        }

        @Override
        public Optional<GenerationResult> awaitEnd(Duration timeout) throws InterruptedException {
            try {
                return Optional.of(result.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
            } catch (TimeoutException e) {
                return Optional.empty();
            } catch (ExecutionException e) {
                return Optional.of(GenerationResult.launchFailed(String.valueOf(e.getCause())));
            }
        }

        /**
         * What this generation can still change in place: after a growth that started a daemon ({@code
         * PMIX_ADD_HOST} onto a host without one), no leave (PRRTE 5.0.7 then ends the whole job, exit 0, once the
         * left host's daemon goes: "PRTE has lost communication with a remote daemon", measured with ElasticRunTest's
         * grow-then-leave), so a host removed from such a world relaunches. A world grown only onto the launch's spare
         * daemons (standby hosts) still leaves in place (ElasticShrinkRunTest.aWorldGrownOntoAStandbyHost...).
         * After a change that spawned, no second spawn: Open MPI 5.0.7 fails it across hosts whatever the hosts
         * (an added one, a spare daemon's, each after either), spawned by rank 0 alone or by the whole world: the
         * spawning rank cannot find the new rank's address ({@code opal_modex_recv} -46, "unable to reach each
         * other", the job aborts; on one host it works), measured stop 53 with ElasticShrinkRunTest's
         * grow-then-grow. Standby ranks are still activated (no spawn), so a host added later joins by a relaunch
         * unless it is a standby host with a waiting rank.
         */
        @Override
        public World.InPlace inPlace() {
            World.InPlace can = inPlace;
            return new World.InPlace(can.grow(), can.leave() && !grown, can.spawn() && !spawned);
        }

        @Override
        public Map<String, List<Integer>> standbyRanks() {
            return standby;
        }

        /**
         * The standby hosts (discovery's {@code host:0}) among the hosts kept ready, when this generation can grow in
         * place: its launch gives those whose service is up a daemon from the start (and, with {@code
         * --standby-ranks}, a waiting rank). Not the usable hosts a generation leaves without ranks ({@code
         * --max-np}): a large discovered pool would get a daemon per host for a growth that may never come, and what
         * the user lists as standby is the bound. None else.
         */
        private List<String> spareCandidates(boolean shrinks, MpiInstall mpi, boolean relayed) {
            if (!World.InPlace.of(mpi, shrinks, relayed).grow()) {
                return List.of();
            }
            return spareHosts(served, declaredStandby, gen.hostNames());
        }

        /**
         * Sends the change to rank 0 (false before it registered: the driver then announces the update). A change that
         * adds hosts first readies them (their services up, a fresh agent key for them alone in mpirun's key file);
         * when that fails the change is not sent (the driver relaunches).
         */
        @Override
        public boolean changeInPlace(WorldChange change) {
            awaitListener();
            synchronized (this) {
                if (notifier == null || pendingBits != 0 || result.isDone() || deaf() || leaving) {
                    return false;
                }
            }
            ShrinkTracker tracked = shrink;
            if (tracked != null && !change.target().keepsTheLaunch(tracked::gone)) {
                err.println("troika elastic: generation " + gen.id() + ": no process of the launch would be left in"
                        + " the world (Open MPI 5's runtime ends a world of spawned ranks alone when one of them"
                        + " leaves); relaunching instead");
                return false;
            }
            List<String> spare = spares;
            Set<String> running = runningHosts(change, standby);
            // hosts without a daemon of this launch (neither a spare nor running a rank of it): their services get
            // ready and an agent key, and mpirun starts a daemon there for the spawn
            List<String> added = change.join().stream().map(WorldChange.Join::host)
                    .filter(h -> !spare.contains(h) && !running.contains(h)).toList();
            // hosts whose daemon runs ranks already: the ranks spawned next to them read the exports there
            Set<String> haveEnvironment = withSpawnEnvironment;
            List<String> beside = change.join().stream().map(WorldChange.Join::host)
                    .filter(h -> running.contains(h) && !haveEnvironment.contains(h)).toList();
            try {
                if (!beside.isEmpty()) {
                    relay.sendSpawnEnvironment(beside);
                }
                if (!added.isEmpty() && !relay.readyForAdded(added)) {
                    return false;
                }
            } catch (IOException | HostsNotReadyException e) {
                err.println("troika elastic: generation " + gen.id() + ": cannot grow in place (" + e.getMessage()
                        + "); relaunching instead");
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            synchronized (this) {
                WorkerNotifier n = notifier;
                if (n == null || pendingBits != 0 || result.isDone() || deaf() || leaving) {
                    return false;
                }
                Map<String, Integer> on = placed;
                Map<String, List<Integer>> waitingAfter = change.waitingAfter(standby);
                List<ElasticMessage.ChangeWorld.Spawn> join = spawns(change, on, locals, waitingAfter);
                List<ElasticMessage.ChangeWorld.Activate> activate = change.activate().stream()
                        .map(a -> new ElasticMessage.ChangeWorld.Activate(a.host(), a.id())).toList();
                int to = n.changeWorld(new ElasticMessage.ChangeWorld(changes + 1, change.leave(), join,
                        change.firstJoinId(), activate));
                boolean sent = to >= 0;
                if (sent) {
                    changes++;
                    changeSentTo.put(changes, new Sent(to, HostUpdate.of(!join.isEmpty() || !activate.isEmpty(),
                            !change.leave().isEmpty()).bits()));
                    standby = waitingAfter;
                    placed = placedAfter(on, change);
                    locals = localsAfter(locals, join, change.firstJoinId());
                    Set<String> env = new java.util.HashSet<>(haveEnvironment);
                    env.addAll(beside);
                    env.addAll(added);
                    withSpawnEnvironment = Set.copyOf(env);
                    grown |= !added.isEmpty(); // onto spare daemons alone: leaves stay in place (inPlace())
                    spawned |= !join.isEmpty();
                }
                return sent;
            }
        }

        @Override
        public void announce(HostUpdate update) {
            long wait;
            synchronized (this) {
                WorkerNotifier n = notifier;
                if (n == null) {
                    pendingBits |= update.bits();
                    return;
                }
                if (!deaf()) {
                    n.announce(System.currentTimeMillis(), update.bits());
                    return;
                }
                // the rank that heard the driver is gone: the next rank 0 gets the announcement when it subscribes
                n.hold(System.currentTimeMillis(), update.bits());
                wait = TAKEOVER_GRACE.toNanos() - (System.nanoTime() - listenerLostAt);
            }
            Thread t = new Thread(() -> {
                try {
                    Thread.sleep(Math.max(0, wait) / 1_000_000);
                } catch (InterruptedException e) {
                    return;
                }
                synchronized (this) {
                    if (!deaf()) {
                        return; // a rank 0 took over and got the announcement
                    }
                }
                // nobody would ever take the announcement: the world would train on with hosts discovery no longer lists
                endForRelaunch("the rank that heard the driver is gone and no rank took over within "
                        + TAKEOVER_GRACE.toSeconds() + " s, so the host change cannot reach the world");
            }, "troika-generation-takeover");
            t.setDaemon(true);
            t.start();
        }
    }

}
