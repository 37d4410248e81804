package org.troika.launcher.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner;
import org.troika.common.exec.FileLimit;
import org.troika.common.exec.NativeText;
import org.troika.common.exec.SystemCommandRunner;
import org.troika.launcher.options.RunOptionTable;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.elastic.ElasticDriver;
import org.troika.launcher.elastic.HostDiscovery;
import org.troika.launcher.elastic.HostDiscoveryException;
import org.troika.launcher.elastic.ScriptHostDiscovery;
import org.troika.launcher.exec.ElasticExecutor;
import org.troika.launcher.exec.JobExecutor;
import org.troika.launcher.exec.MpirunGenerationLauncher;
import org.troika.launcher.relay.HostAddresses;
import org.troika.launcher.relay.RelaySession;
import org.troika.launcher.relay.RemoteShell;
import org.troika.launcher.relay.StartProgressReporter;
import org.troika.launcher.exec.SupervisedLaunch;
import org.troika.launcher.hosts.HostResolver;
import org.troika.launcher.mpi.FlavorDetector;
import org.troika.launcher.spi.MpiInstall;
import org.troika.launcher.mpi.MpirunBackend;
import org.troika.launcher.mpi.VersionProbeCache;
import org.troika.launcher.spi.BackendPlan;
import org.troika.launcher.spi.FileSource;
import org.troika.launcher.spi.JobEnvironment;
import org.troika.launcher.spi.LaunchBackend;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.LaunchAgent;
import org.troika.launcher.spi.LaunchContext;
import org.troika.launcher.spi.Subcommand;
import org.troika.launcher.elastic.ElasticListener;
import org.troika.launcher.spi.UserText;
import org.troika.launcher.timeline.Timeline;
import org.troika.launcher.timeline.TimelineElasticListener;
import org.troika.launcher.watchdog.HangWatch;

/**
 * {@code troika run}: parse → resolve hosts → detect the MPI → plan with a backend → print ({@code --dry-run}) or
 * execute. Every step before execution is free of side effects apart from read-only probes.
 */
final class RunCommand implements Subcommand {
    private final FileSource files;
    /** Probe runner; {@code null} = real probes with the caller's environment. */
    private final CommandRunner probes;

    RunCommand() {
        this(FileSource.system(), null);
    }

    RunCommand(FileSource files, CommandRunner probes) {
        this.files = files;
        this.probes = probes;
    }

    @Override
    public String name() {
        return "run";
    }

    @Override
    public String summary() {
        return "plan and run an MPI job (mpirun or jsrun) on -H hosts, a hostfile or the batch allocation";
    }

    @Override
    public int run(List<String> args, Io given) throws Exception {
        ConfigFile.Applied config = ConfigFile.apply(args, RunOptionTable.ALL, files);
        config.warnings().forEach(w -> given.err().println(UserText.line("troika: warning: ", w)));
        Io io = new Io(given.out(), given.err(), config.environment(given.env()));
        RunCommandLine.Parsed parsed;
        try {
            parsed = RunCommandLine.parse(config.args(), files, true);
        } catch (UsageException e) {
            throw config.explain(e);
        }
        if (parsed.help()) {
            io.out().print(RunCommandLine.help("run", "COMMAND [ARGS...]"));
            return 0;
        }
        RunSettings s = parsed.settings();
        HangWatch.timeout(s, io.env()); // a bad TROIKA_HANG_TIMEOUT fails before anything starts
        Path timelineFile = s.dryRun() ? null : Timeline.fileFor(s.output().timeline(), s.elastic().enabled(),
                s.output().dir());
        if (timelineFile != null && s.output().timeline() == null) { // an elastic job's DIR/timeline.json
            Timeline.checkTarget(timelineFile.toString(), "--output-filename", true);
        }
        Timeline timeline = timelineFile == null ? Timeline.off() : Timeline.to(timelineFile);
        timeline.title(s.output().timelineCommand() ? "troika run " + String.join(" ", s.command()) : "troika run");
        boolean badInput = false;
        try {
            return s.elastic().enabled() ? runElastic(s, io, timeline) : runStatic(s, io, timeline);
        } catch (UsageException e) {
            badInput = true; // nothing ran: nothing is written
            throw e;
        } finally {
            if (timeline.enabled() && !badInput) {
                try {
                    timeline.close();
                    io.err().println(UserText.line("troika: timeline: ", timelineFile + " (Perfetto / chrome://tracing), "
                            + Timeline.htmlFileFor(timelineFile)));
                } catch (java.io.UncheckedIOException e) {
                    io.err().println(UserText.line("troika: warning: ", e.getMessage()));
                }
            }
        }
    }

    private int runStatic(RunSettings s, Io io, Timeline timeline) throws Exception {
        Timeline.Span planning = timeline.begin(Timeline.Kind.PLAN, "plan", null, Map.of());
        Planned planned = plan(s, io.env());
        planned.resolved().plan().hostNames().forEach(timeline::host);
        planning.end(Map.of("hosts", planned.resolved().plan().hostList(), "mpi",
                planned.mpi().flavor().displayName(), "ranks", planned.resolved().plan().size()));
        for (String w : planned.plan().warnings()) {
            io.err().println(UserText.line("troika: warning: ", w));
        }
        if (s.verbose()) {
            io.err().println("troika: hosts from " + planned.resolved().plan().source() + ": "
                    + planned.resolved().plan().hostList() + "; MPI: " + planned.mpi().flavor().displayName()
                    + (planned.mpi().majorVersion() > 0 ? " " + planned.mpi().majorVersion() : "")
                    + "; backend: " + planned.backend().name());
            planned.reasons().forEach(r -> io.err().println("troika: launcher " + r));
        }
        if (s.dryRun()) {
            // the bytes the arguments stand for (NativeText), never the console charset's '?' for what it lacks
            byte[] line = NativeText.encode(planned.plan().launch().render() + "\n");
            io.out().write(line, 0, line.length);
            io.out().flush();
            return 0;
        }
        if (s.output().dir() != null) {
            SupervisedLaunch.checkRankFolder(s.output().dir()); // before any task service or rank starts
        }
        ensureFileDescriptors(s, planned.resolved().plan().hosts().size());
        // issue 3 (RelaySession, owned by the launch-agent work): task services on the remote hosts and the troika-rsh
        // agent for Open MPI's daemons, plus network detection. Inactive (changes nothing) unless --launch-agent relay
        // or --remote-shell is given; a lost host is printed and ends mpirun (JobExecutor: the agents handed their
        // daemons over to the task services once they ran, so no agent is left to notice).
        // issue 15: the hang watchdog's progress service; ranks get its address and a derived key through the env
        // inside a batch allocation its own launcher (srun, blaunch) starts the task services unless --remote-shell says
        String allocationShell = planned.resolved().allocation() == null ? null
                : planned.resolved().allocation().remoteShell();
        try (HangWatch watch = HangWatch.start(s, io.env(), planned.resolved().plan(), 0, timeline, io.err())) {
            Map<String, String> env = new java.util.LinkedHashMap<>(io.env());
            env.putAll(watch.env());
            // the checked plan above stands unless an input changed: the watchdog's variables, the relay's detected
            // networks and its launch agent (a planning input: nothing is spliced into a plan)
            Planned watched = watch.active() ? plan(s, env, planned.resolved(), planned.mpi(), null) : planned;
            if (!watched.backend().capabilities().contains(LaunchBackend.Capability.RELAY_AGENT)) {
                // jsrun and srun start every rank themselves: no daemons to relay, but the watchdog and timeline apply
                return JobExecutor.execute(watched.plan(), watched.resolved().plan(), s, io.out(), io.err(), timeline,
                        watch);
            }
            if (s.remote().launchAgent() != RunSettings.LaunchAgent.RELAY && s.remote().shell() == null) {
                // no relay asked for (RelaySession.servicesWanted would say no): skip its remote-host check, whose
                // InetAddress.getLocalHost() costs a name lookup on every plain run (4 ms here; seconds with bad DNS)
                return JobExecutor.execute(watched.plan(), watched.resolved().plan(), s, io.out(), io.err(), timeline,
                        watch);
            }
            RelaySession.Request relayed = new RelaySession.Request(s, watched.mpi(), new RemoteShell(s,
                    allocationShell, env), env, troikaHome(), io.err(), StartProgressReporter.stderrIsTerminal(env),
                    timeline);
            HostPlan hosts = watched.resolved().plan();
            try (RelaySession relay = RelaySession.open(relayed, HostAddresses.remoteHosts(hosts), false)) {
                RelaySession.Launch launch = relay.launch(hosts, s);
                Planned run = launch.active() ? plan(launch.settings(), env, watched.resolved(), watched.mpi(),
                        launch.agent()) : watched;
                return JobExecutor.execute(run.plan(), run.resolved().plan(), launch.settings(), io.out(), io.err(),
                        timeline, watch, relay::onHostLost);
            }
        }
    }

    /**
     * Elastic: the driver runs generations, each one a static launch planned here ({@link #plan}) and run by the
     * {@link MpirunGenerationLauncher}; driver lines go to stderr, the ranks' output through.
     */
    private int runElastic(RunSettings s, Io io, Timeline timeline) throws Exception {
        if (s.dryRun()) {
            throw new UsageException("--dry-run cannot print an elastic launch (each generation is planned when it "
                    + "starts, from the hosts of that moment); drop --dry-run or the elastic flags");
        }
        LaunchBackend backend = elasticBackend(s, ServiceIndex.load(LaunchBackend.class, ServiceIndex.distLib()));
        List<String> firstHosts = new ArrayList<>(); // with the standby ones: each gets a task service
        HostDiscovery discovery = firstDiscoveryChecked(HostDiscovery.forSettings(s,
                probes != null ? probes : ScriptHostDiscovery.systemRunner(io.env())), firstHosts);
        if (s.output().dir() != null) {
            SupervisedLaunch.checkRankFolder(s.output().dir()); // before the first generation
        }
        ensureFileDescriptors(s, firstHosts.size());
        // the allocation (if any) does not change between generations: its launcher starts the task services
        org.troika.launcher.spi.Allocation allocation = allocation(io.env());
        String allocationShell = allocation == null ? null : allocation.remoteShell();
        try (MpirunGenerationLauncher launcher = new MpirunGenerationLauncher(s, io.env(), troikaHome(), io.out(),
                io.err(), new MpirunGenerationLauncher.Planner() {
                    @Override
                    public MpiInstall mpi(RunSettings gs, Map<String, String> env) {
                        return detectMpi(gs, env);
                    }

                    @Override
                    public LaunchBackend backend() {
                        return backend;
                    }

                    @Override
                    public BackendPlan plan(RunSettings gs, HostPlan hosts, MpiInstall mpi, Map<String, String> env,
                            LaunchAgent agent) {
                        // the generation's host plan as it is: its hosts are not resolved a second time
                        return RunCommand.this.plan(gs, env, new HostResolver.Resolved(hosts, allocation), mpi, agent,
                                backend).plan();
                    }
                }, timeline, new RemoteShell(s, allocationShell, io.env()))) {
            return ElasticExecutor.run(ElasticDriver.forSettings(s, discovery, launcher,
                    new TimelineElasticListener(ElasticListener.printing(io.err()), timeline)), io.err());
        }
    }

    /**
     * Runs {@code discovery} once now, before anything is started: a script that fails, times out or prints
     * something malformed at the start is bad input (exit 2, one line, nothing launched). The driver's first call
     * gets this result; later calls go to {@code discovery}, where a failure is reported and the job goes on.
     */
    private static HostDiscovery firstDiscoveryChecked(HostDiscovery discovery, List<String> firstOut) {
        HostDiscovery.Found first;
        try {
            first = discovery.discoverAll();
        } catch (HostDiscoveryException e) {
            throw new UsageException(e.getMessage());
        }
        first.hosts().forEach(h -> firstOut.add(h.name()));
        firstOut.addAll(first.standby());
        boolean[] used = {false};
        return () -> {
            if (!used[0]) {
                used[0] = true;
                return first;
            }
            return discovery.discoverAll();
        };
    }

    /**
     * Raises troika's file-descriptor limit to what a launch over {@code hosts} hosts needs, or
     * stops with one line naming the limit and the fix, before anything starts ({@link FileLimit}): a connection per
     * host at the driver when task services run. Nothing per rank: the hang watchdog's reports and an elastic
     * generation's leaves are datagrams on one socket each.
     */
    private static void ensureFileDescriptors(RunSettings s, int hosts) {
        boolean relay = s.remote().launchAgent() == RunSettings.LaunchAgent.RELAY || s.remote().shell() != null;
        FileLimit.ensure(FileLimit.need(relay ? hosts : 0), hosts + " hosts");
    }

    /** The batch allocation this runs in, or {@code null} (outside one, or when it cannot be read). */
    private org.troika.launcher.spi.Allocation allocation(Map<String, String> env) {
        List<JobEnvironment> all = new ArrayList<>(jobEnvironments());
        all.sort(java.util.Comparator.comparingInt(JobEnvironment::priority));
        for (JobEnvironment je : all) {
            if (je.detect(env)) {
                try {
                    return je.allocation(env, files, probes(probes, env));
                } catch (UsageException e) {
                    return null; // the generation's own planning reports it
                }
            }
        }
        return null;
    }

    /** The outcome of planning: everything {@code --dry-run} prints and the executor runs. */
    record Planned(HostResolver.Resolved resolved, MpiInstall mpi, LaunchBackend backend, BackendPlan plan,
            List<String> reasons) {}

    /** Plans a static launch. Reads the hostfile and probes {@code mpirun --version}; starts nothing else. */
    Planned plan(RunSettings s, Map<String, String> env) {
        CommandRunner probes = probes(this.probes, env);
        HostResolver.Resolved resolved = HostResolver.resolve(s, env, jobEnvironments(), files, probes);
        return plan(s, env, resolved, detectMpi(s, env), null);
    }

    /** The MPI in use: {@code --mpi-flavor}, else detected from {@code mpirun --version} (cached probe). */
    private MpiInstall detectMpi(RunSettings s, Map<String, String> env) {
        CommandRunner probes = probes(this.probes, env);
        return s.launcher().mpiFlavor() != null
                ? FlavorDetector.forFlavorName(s.launcher().mpiFlavor())
                : FlavorDetector.detect(new VersionProbeCache(probes, VersionProbeCache.defaultDir(env), env),
                        FlavorDetector.mpirunCommand(env));
    }

    /** Plans over resolved hosts and a known MPI, with the relay's launch agent (or {@code null}) as an input. */
    Planned plan(RunSettings s, Map<String, String> env, HostResolver.Resolved resolved, MpiInstall mpi,
            LaunchAgent agent) {
        return plan(s, env, resolved, mpi, agent, null);
    }

    /** {@link #plan(RunSettings, Map, HostResolver.Resolved, MpiInstall, LaunchAgent)} with {@code given} (or
     *  {@code null}: {@link #chooseBackend}) as the backend. */
    private Planned plan(RunSettings s, Map<String, String> env, HostResolver.Resolved resolved, MpiInstall mpi,
            LaunchAgent agent, LaunchBackend given) {
        LaunchContext ctx = new LaunchContext(s, resolved.plan(), mpi, env, resolved.allocation(), scratchDir(env),
                name -> onPath(name, env), troikaHome(), agent);
        List<String> reasons = new ArrayList<>();
        LaunchBackend backend = given != null ? given : chooseBackend(s, ctx, reasons);
        return new Planned(resolved, mpi, backend, backend.plan(ctx), reasons);
    }

    static CommandRunner probes(CommandRunner given, Map<String, String> env) {
        return given != null ? given : new SystemCommandRunner(env);
    }

    /** The batch-system plugins: from the distribution's service index ({@link ServiceIndex}) or the class path. */
    static List<JobEnvironment> jobEnvironments() {
        return ServiceIndex.load(JobEnvironment.class, ServiceIndex.distLib());
    }

    /**
     * The backend {@code --launcher} names, or with {@code auto} the first plugin backend that claims the launch
     * (jsrun inside LSF with Spectrum MPI, srun inside Slurm), else mpirun. {@code reasons} receives each plugin's
     * one-line reason for {@code --verbose}.
     */
    static LaunchBackend chooseBackend(RunSettings s, LaunchContext ctx, List<String> reasons) {
        if (s.launcher().backend().equals(RunSettings.Backend.MPI)) {
            return new MpirunBackend(); // no plugin scan for the built-in one
        }
        List<LaunchBackend> extra = ServiceIndex.load(LaunchBackend.class, ServiceIndex.distLib());
        if (!s.launcher().backend().auto()) {
            return named(s.launcher().backend(), extra);
        }
        for (LaunchBackend b : extra) {
            boolean chosen = b.isDefaultFor(ctx);
            String why = b.reason(ctx);
            if (why != null) {
                reasons.add(b.name() + (chosen ? " chosen: " : " not chosen: ") + why);
            }
            if (chosen) {
                return b;
            }
        }
        return new MpirunBackend();
    }

    /**
     * The backend {@code --launcher NAME} names among the built-in mpirun and {@code plugins}; an unknown name is a
     * one-line usage error that lists the names this troika has loaded.
     */
    static LaunchBackend named(RunSettings.Backend choice, List<LaunchBackend> plugins) {
        List<LaunchBackend> all = loaded(plugins);
        for (LaunchBackend b : all) {
            if (b.name().equals(choice.launcherName())) {
                return b;
            }
        }
        throw new UsageException("--launcher " + UserText.quote(choice.launcherName()) + " is not known; use auto, "
                + String.join(", ", all.stream().map(LaunchBackend::name).sorted().toList())
                + " (the backends this troika has loaded; others come as plugin jars in its lib/)");
    }

    /**
     * The backend of an elastic job's generations, chosen once before anything starts: the one {@code --launcher}
     * names, which must declare {@link LaunchBackend.Capability#ELASTIC} (and {@link LaunchBackend.Capability#SHRINK}
     * for {@code --fault-tolerance shrink}), else mpirun ({@code auto}: elastic generations keep mpirun unless asked).
     */
    static LaunchBackend elasticBackend(RunSettings s, List<LaunchBackend> plugins) {
        if (s.launcher().backend().auto()) {
            return new MpirunBackend();
        }
        LaunchBackend b = named(s.launcher().backend(), plugins);
        if (!b.capabilities().contains(LaunchBackend.Capability.ELASTIC)) {
            throw new UsageException("--launcher " + b.name() + " cannot run elastic jobs; use --launcher "
                    + String.join(" or ", capable(LaunchBackend.Capability.ELASTIC, plugins))
                    + ", or drop the elastic options");
        }
        if (s.launcher().faultTolerance() == org.troika.launcher.spi.FaultTolerance.SHRINK
                && !b.capabilities().contains(LaunchBackend.Capability.SHRINK)) {
            throw new UsageException("--fault-tolerance shrink needs a launcher that runs the MPI's fault tolerance"
                    + " (ULFM), which " + b.name() + " cannot; use --launcher "
                    + String.join(" or ", capable(LaunchBackend.Capability.SHRINK, plugins))
                    + ", or --fault-tolerance relaunch");
        }
        return b;
    }

    /** The names of the loaded backends (mpirun and {@code plugins}) that declare {@code c}, sorted. */
    private static List<String> capable(LaunchBackend.Capability c, List<LaunchBackend> plugins) {
        return loaded(plugins).stream().filter(b -> b.capabilities().contains(c)).map(LaunchBackend::name).sorted()
                .toList();
    }

    /** The built-in mpirun backend, then {@code plugins}. */
    private static List<LaunchBackend> loaded(List<LaunchBackend> plugins) {
        List<LaunchBackend> all = new ArrayList<>();
        all.add(new MpirunBackend());
        all.addAll(plugins);
        return all;
    }

    /**
     * A scratch directory path for this launch. The executor creates it only if files are planned, with
     * {@code Files.createDirectory} (mode 0700), which fails if the path exists, so the name need not be secret.
     */
    private static Path scratchDir(Map<String, String> env) {
        String tmp = env.getOrDefault("TMPDIR", System.getProperty("java.io.tmpdir"));
        return Path.of(tmp, "troika-" + ProcessHandle.current().pid() + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE));
    }

    private static Path troikaHome() {
        String home = System.getProperty("troika.home");
        return home == null ? null : Path.of(home);
    }

    static boolean onPath(String name, Map<String, String> env) {
        for (String dir : env.getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                return true;
            }
        }
        return false;
    }
}
