package org.troika.spark;

import org.troika.launcher.mpi.FailedRank;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Serializable;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaFutureAction;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.troika.common.PrivateFiles;
import org.troika.common.TroikaEnv;
import org.troika.common.UsageException;
import org.troika.common.exec.SystemCommandRunner;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.mpi.FlavorDetector;
import org.troika.launcher.spi.MpiInstall;
import org.troika.launcher.spi.BackendPlan;
import org.troika.launcher.exec.LaunchOutcome;
import org.troika.launcher.exec.SupervisedLaunch;
import org.troika.launcher.mpi.VersionProbeCache;
import org.troika.rsh.agent.AgentKey;
import org.troika.launcher.relay.AgentKeyRotation;
import org.troika.launcher.relay.ServiceStart;
import org.troika.launcher.relay.TaskServicePool;
import org.troika.wire.Endpoint;
import org.troika.rsh.driver.HostsNotReadyException;
import org.troika.wire.Secret;

/**
 * Runs an MPI job inside the executors of a Spark application, with one call:
 *
 * <pre>
 *   List&lt;String&gt; r = TroikaSpark.run(spark, env -&gt; "rank " + env.rank(), RunOptions.builder().np(4).build());
 * </pre>
 *
 * <pre>
 *   driver JVM                                        executors
 *   ──────────                                        ─────────
 *   JobService (wire, job secret) ◄── SparkTask ──── barrier task 0..np-1 (one per rank)
 *   DriverService (host registry) ◄── Register ───── TaskService in the lowest-index task of each host hash
 *   mpirun -H hash:slots,...  ── troika-rsh agent ─► TaskService ─► orted ─► java RankMain (one per rank)
 *   JobService (rank key) ◄── FetchFunction / RankResult ──────────────────── ranks
 * </pre>
 *
 * In Spark local mode every task runs in the driver's JVM, which is then the executor: mpirun starts the ranks itself
 * ({@code -H localhost:np}) as its children, with no DriverService, task service, launch agent or orted, and the
 * ranks map a class-data-sharing archive of this machine ({@link RankCds}). The job secret stays in the driver and the
 * tasks; agents get the launch agent key ({@link AgentKey}), ranks the rank key ({@link JobService#rankKey}).
 *
 * Failure handling: a failing rank fails the Spark job and this call with the rank, host and exit code; tasks that do
 * not register within the start timeout are named by count; cancelling the Spark job (or a lost task) stops mpirun, and
 * the tasks stop their task services, which stop orted and the ranks. Fewer task slots than processes fails at once.
 */
public final class TroikaSpark {
    static final Duration HEARTBEAT = BarrierTask.HEARTBEAT;
    static final Duration LIVENESS = BarrierTask.LIVENESS;
    static final Duration TEARDOWN = Duration.ofSeconds(60);
    /** Grace between SIGTERM and SIGKILL when the Spark side ends first and mpirun is torn down. */
    static final Duration TEARDOWN_GRACE = Duration.ofSeconds(3);

    private TroikaSpark() {}

    /**
     * Runs {@code fn} once per rank in {@code options.np()} processes started inside Spark executors and returns the
     * results by rank.
     *
     * @throws TroikaSparkException when a rank fails, the start times out or the Spark job is cancelled
     * @throws UsageException for impossible requests (too few task slots, no Open MPI)
     */
    public static <R extends Serializable> List<R> run(SparkSession spark, RankFunction<R> fn, RunOptions options) {
        try {
            return new Job<>(spark.sparkContext(), fn, options, System.out, System.err).run();
        } catch (IOException e) {
            throw new TroikaSparkException("troika-spark: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TroikaSparkException("troika-spark: interrupted; the MPI job was torn down", e);
        }
    }

    /** Task slots Spark can run at once for one barrier stage (cores / spark.task.cpus over all executors). */
    static int taskSlots(SparkContext sc) {
        try {
            return sc.maxNumConcurrentTasks(sc.resourceProfileManager().defaultResourceProfile());
        } catch (LinkageError e) {
            return sc.defaultParallelism();
        }
    }

    /**
     * Fails fast (instead of Spark's ten minutes of barrier retries) when Spark has fewer task slots than processes;
     * outside local mode it first waits up to {@code timeout} for executors to register.
     */
    static void checkSlots(SparkContext sc, int np, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int slots = taskSlots(sc);
        while (slots < np && !sc.isLocal() && System.nanoTime() < deadline) {
            Thread.sleep(200);
            slots = taskSlots(sc);
        }
        if (slots < np) {
            throw new UsageException(slotsMessage(np, slots, sc.master()));
        }
    }

    static String slotsMessage(int np, int slots, String master) {
        return "troika-spark: " + np + " processes need " + np + " Spark task slots at once (barrier mode), but "
                + master + " has " + slots + " (cores / spark.task.cpus); give Spark at least " + np
                + " cores (e.g. local[" + np + "]) or run fewer processes";
    }

    /** The failure line for the first failed rank (pure). */
    static String failureMessage(int mpirunCode, Map<Integer, JobService.Outcome> outcomes, Optional<FailedRank> parsed,
            HostPlan hosts, Map<String, String> executorByHost) {
        Integer rank = outcomes.entrySet().stream().filter(e -> !e.getValue().ok()).map(Map.Entry::getKey).findFirst()
                .orElse(parsed.map(FailedRank::rank).orElse(null));
        if (rank == null) {
            return "troika-spark: the MPI job failed with exit code " + mpirunCode + " (mpirun named no rank)";
        }
        String host = rank < hosts.slots().size() ? hosts.slots().get(rank).host() : "?";
        int code = parsed.filter(f -> f.rank() == rank).map(FailedRank::exitCode).orElse(mpirunCode);
        JobService.Outcome o = outcomes.get(rank);
        return "troika-spark: rank " + rank + " on host " + host + " (executor " + executorByHost.getOrDefault(host, "?")
                + ") failed with exit code " + code + (o != null && !o.ok() ? ": " + o.error() : "");
    }

    /** One job: the steps of {@link #run} with their resources. */
    private static final class Job<R extends Serializable> {
        private final SparkContext sc;
        private final RankFunction<R> fn;
        private final RunOptions options;
        private final PrintStream out;
        private final PrintStream err;
        private final int np;
        private final long deadline;

        Job(SparkContext sc, RankFunction<R> fn, RunOptions options, PrintStream out, PrintStream err) {
            this.sc = sc;
            this.fn = fn;
            this.options = options;
            this.out = out;
            this.err = err;
            this.np = options.np() != null ? options.np() : sc.defaultParallelism();
            this.deadline = System.nanoTime() + options.startTimeout().toNanos();
        }

        private Duration left() {
            return Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
        }

        List<R> run() throws IOException, InterruptedException {
            checkSlots(sc, np, options.startTimeout());
            Map<String, String> env = System.getenv();
            // the probe's output is cached per mpirun binary (as troika run does): no process start per job
            MpiInstall mpi = FlavorDetector.detect(new VersionProbeCache(new SystemCommandRunner(env),
                    VersionProbeCache.defaultDir(env), env), FlavorDetector.mpirunCommand(env));
            SparkLaunchPlanner.requireOpenMpi(mpi);
            Secret secret = Secret.generate();
            InetAddress bind = InetAddress.getByName(sc.getConf().get("spark.driver.host", "127.0.0.1"));
            String filter = Closures.filterFor(fn, options.allowedClasses());
            Path work = PrivateFiles.createTempDirectory("troika-spark-");
            AgentKeyRotation keys = new AgentKeyRotation(secret, work, options.startTimeout());
            byte[] id = new byte[6];
            new SecureRandom().nextBytes(id);
            String group = "troika-spark-" + HexFormat.of().formatHex(id);
            try (JobService jobs = new JobService(secret, bind, np, Closures.serialize(fn), filter)) {
                JavaFutureAction<List<Integer>> tasks = submit(jobs, secret, group, keys.nextLabel());
                try {
                    if (!jobs.awaitTasks(left(), tasks::isDone)) {
                        if (tasks.isDone()) {
                            throw sparkEnded(tasks, "before all tasks registered");
                        }
                        throw new TroikaSparkException("troika-spark: start timeout: " + jobs.tasks().size() + " of " + np
                                + " Spark tasks registered within " + options.startTimeout().toMillis() + " ms");
                    }
                    HostLayout layout = HostLayout.of(jobs.tasks().entrySet().stream()
                            .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().hostHash())));
                    // local mode: every task runs in this JVM, so mpirun starts the ranks here itself
                    List<R> results = sc.isLocal() ? runHere(jobs, layout, secret, mpi, work, tasks, filter)
                            : runRelayed(jobs, layout, secret, keys, bind, mpi, work, tasks, filter);
                    jobs.finish(null);
                    await(tasks);
                    return results;
                } catch (RuntimeException | IOException | InterruptedException e) {
                    jobs.finish(e.getMessage() == null ? e.toString() : e.getMessage());
                    sc.cancelJobGroup(group);
                    awaitQuietly(tasks);
                    throw e;
                }
            } finally {
                keys.close();
                PrivateFiles.deleteTreeQuietly(work);
            }
        }

        private JavaFutureAction<List<Integer>> submit(JobService jobs, Secret secret, String group,
                String agentLabel) {
            JavaSparkContext jsc = JavaSparkContext.fromSparkContext(sc);
            String[] keys = {"spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel"};
            Map<String, String> saved = new LinkedHashMap<>();
            for (String k : keys) {
                saved.put(k, sc.getLocalProperty(k));
            }
            sc.setJobGroup(group, "troika MPI job of " + np + " processes", true);
            try {
                JavaRDD<Integer> seeds = jsc.parallelize(IntStream.range(0, np).boxed().toList(), np);
                BarrierTask task = new BarrierTask(jobs.endpoint(), secret, options.hostPerExecutor(), agentLabel);
                return BarrierStage.map(seeds, task, Integer.class).collectAsync();
            } finally {
                saved.forEach(sc::setLocalProperty);
            }
        }

        /**
         * Spark local mode: the ranks are mpirun's children on this machine ({@code -H localhost:np}), like the
         * executor (this JVM) that runs every task; no task service, launch agent or orted. The rank key goes into a
         * 0600 file in the job's private folder; ranks map this machine's class-data-sharing archive ({@link RankCds}).
         */
        private List<R> runHere(JobService jobs, HostLayout layout, Secret secret, MpiInstall mpi, Path work,
                JavaFutureAction<List<Integer>> tasks, String filter) throws IOException, InterruptedException {
            jobs.assignNoServices();
            Path keyFile = JobService.rankKey(secret).writeToPrivateFile(work);
            Map<String, String> env = rankEnvironment(jobs);
            env.put(RankMain.KEY_FILE_ENV, keyFile.toString());
            Map<String, String> cdsEnv = new LinkedHashMap<>(System.getenv());
            cdsEnv.putAll(options.env());
            String java = javaCommand();
            String cp = rankClasspathOption();
            RankCds.Plan cds = RankCds.plan(cdsEnv, layout.hostNames().get(0), java, options.jvmOptions(), cp);
            // JNA's library path up front, as troika-rankenv gives it with TROIKA_JAVA_CDS=1: no ldconfig per rank
            List<String> startup = "0".equals(cdsEnv.get(TroikaEnv.JAVA_CDS)) || JnaPath.setIn(options.jvmOptions())
                    ? List.of() : JnaPath.jvmOptions(new SystemCommandRunner(System.getenv()));
            if (options.verbose()) {
                err.println("troika-spark: " + cds.describe());
            }
            try {
                BackendPlan plan = SparkLaunchPlanner.localPlan(SparkLaunchPlanner.localSettings(options, np,
                        SparkLaunchPlanner.rankCommand(java, options.jvmOptions(), cp, cds, startup)), mpi, asRoot(),
                        env, layout);
                List<R> results = launch(plan, layout, jobs, tasks, filter);
                RankCds.keep(cds);
                return results;
            } finally {
                RankCds.discard(cds);
            }
        }

        /**
         * Executors in their own JVMs: a task service in one task per host hash (the barrier tasks start them: the
         * pool only expects them), mpirun's daemons started through the launch agent with this job's agent key
         * ({@link AgentKey}), the rank key sent to every host over the relay.
         */
        private List<R> runRelayed(JobService jobs, HostLayout layout, Secret secret, AgentKeyRotation keys,
                InetAddress bind, MpiInstall mpi, Path work, JavaFutureAction<List<Integer>> tasks, String filter)
                throws IOException, InterruptedException {
            // fake hosts on one kernel get their own UTS namespace (needs root)
            TaskServicePool.Config config = TaskServicePool.Config.of("troika-spark", secret, ServiceStart.elsewhere(),
                    host -> bind, left(), err).withLiveness(HEARTBEAT, LIVENESS).withSeparateSharedHostnames(asRoot())
                    .withAgentLabel(keys::labelFor);
            try (TaskServicePool pool = TaskServicePool.open(config)) {
                List<String> hosts = layout.hostNames();
                pool.start(hosts); // the driver expects them; the tasks learn its address from the job service
                jobs.assign(layout, pool.endpoint());
                // each task service writes it 0600 on its host and names it to orted, whose ranks inherit it
                pool.provideFile(RankMain.KEY_FILE_ENV, JobService.rankKey(secret).encode()
                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                try {
                    pool.ready(hosts);
                } catch (HostsNotReadyException e) {
                    throw new TroikaSparkException("troika-spark: start timeout: " + e.getMessage(), e);
                }
                Path agentKeyFile = keys.open(pool.driver(), hosts);
                return launch(plan(layout, agentKeyFile, pool.endpoint(), jobs, mpi, work), layout, jobs, tasks,
                        filter);
            }
        }

        /** Runs the planned mpirun and turns its end into the results by rank, or the failure of the first rank. */
        private List<R> launch(BackendPlan plan, HostLayout layout, JobService jobs,
                JavaFutureAction<List<Integer>> tasks, String filter) throws IOException, InterruptedException {
            HostPlan hosts = HostPlan.assign("spark", layout.hosts(), np);
            if (options.verbose()) {
                err.println("troika-spark: hosts " + hosts.hostList() + "; running " + plan.launch().render());
            }
            plan.warnings().forEach(w -> err.println("troika-spark: warning: " + w));
            LaunchOutcome outcome = supervise(SupervisedLaunch.Spec.of(plan, hosts, out, err), jobs, tasks);
            int code = outcome.exitCode();
            Map<Integer, JobService.Outcome> outcomes = jobs.outcomes();
            boolean rankFailed = outcomes.values().stream().anyMatch(o -> !o.ok());
            if (code != 0 && !rankFailed) {
                sparkSideFirst(jobs, tasks);
            }
            if (code != 0 || rankFailed) {
                Map<String, String> executors = new LinkedHashMap<>();
                layout.serviceTask().forEach((h, t) -> executors.put(h, jobs.tasks().get(t).executor()));
                throw new TroikaSparkException(failureMessage(code, outcomes, Optional.ofNullable(outcome.first()),
                        hosts, executors));
            }
            if (!jobs.awaitOutcomes(Duration.ofSeconds(10))) {
                throw new TroikaSparkException("troika-spark: mpirun ended but only " + jobs.outcomes().size() + " of "
                        + np + " ranks reported a result");
            }
            return decode(jobs.outcomes(), filter);
        }

        private static boolean asRoot() {
            return "root".equals(System.getProperty("user.name"));
        }

        private String javaCommand() {
            return options.javaCommand() != null ? options.javaCommand()
                    : Path.of(System.getProperty("java.home"), "bin", "java").toString();
        }

        /**
         * The rank JVM's {@code -cp}: a given rank class path is its whole class path; by default troika's jars from
         * the driver's, and the function's classes are loaded from the rest ({@link RankMain#CLASSPATH_ENV}).
         */
        private String rankClasspathOption() {
            return options.rankClasspath() != null ? options.rankClasspath() : rankClasspath();
        }

        /** mpirun's environment, exported to the ranks by name: the driver's, without troika's keys, plus the job's. */
        private Map<String, String> rankEnvironment(JobService jobs) {
            Map<String, String> env = new LinkedHashMap<>(System.getenv());
            TroikaEnv.stripJobSecret(env);
            env.remove(TroikaEnv.SECRET_FILE);
            env.remove(TroikaEnv.DRIVER_ADDR);
            env.remove(RankMain.KEY_FILE_ENV);
            env.putAll(options.env());
            env.put(RankMain.SERVICE_ENV, jobs.endpoint().toString());
            env.remove(RankMain.CLASSPATH_ENV);
            if (options.rankClasspath() == null) {
                env.put(RankMain.CLASSPATH_ENV, System.getProperty("java.class.path"));
            }
            return env;
        }

        /**
         * mpirun failed and no rank reported a failure: if a task was killed or lost (cancel, executor loss), that
         * ended orted and mpirun, and it is what to report. Tasks close their job-service connection before stopping
         * their task service, so a lost task is visible within moments of mpirun's exit.
         */
        private void sparkSideFirst(JobService jobs, JavaFutureAction<List<Integer>> tasks) throws InterruptedException {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (!tasks.isDone() && jobs.lostTasks().isEmpty() && System.nanoTime() < until) {
                Thread.sleep(50);
            }
            if (!tasks.isDone() && !jobs.lostTasks().isEmpty()) {
                try {
                    tasks.get(TEARDOWN.toMillis(), TimeUnit.MILLISECONDS);
                } catch (ExecutionException | TimeoutException | RuntimeException e) {
                    // inspected below
                }
            }
            if (tasks.isDone()) {
                throw sparkEnded(tasks, "while the MPI job ran; the MPI job was torn down");
            }
            if (!jobs.lostTasks().isEmpty()) {
                throw new TroikaSparkException("troika-spark: " + jobs.lostTasks().values().iterator().next()
                        + "; the MPI job ended");
            }
        }

        private BackendPlan plan(HostLayout layout, Path agentKeyFile, Endpoint driver, JobService jobs,
                MpiInstall mpi, Path work) throws IOException {
            String java = javaCommand();
            Path agent = work.resolve("troika-rsh");
            Files.writeString(agent, SparkLaunchPlanner.agentScript(java, agentClasspath()));
            Files.setPosixFilePermissions(agent, PosixFilePermissions.fromString("rwx------"));
            Map<String, String> agentEnv = Map.of(TroikaEnv.DRIVER_ADDR, driver.toString(),
                    TroikaEnv.SECRET_FILE, agentKeyFile.toString(), TroikaEnv.LIVENESS_TIMEOUT_MS,
                    Long.toString(LIVENESS.toMillis()));
            // ranks on executors get no class-data-sharing archive: it would have to be recorded on their hosts
            RunSettings s = SparkLaunchPlanner.settings(options, layout, np, SparkLaunchPlanner.rankCommand(java,
                    options.jvmOptions(), rankClasspathOption(), RankCds.Plan.off("ranks run in executors")));
            return SparkLaunchPlanner.plan(s, mpi, asRoot(), rankEnvironment(jobs), agent, agentEnv);
        }

        /** Runs mpirun; stops it when the Spark job ends first (cancelled, a task failed) or a task is lost. */
        private LaunchOutcome supervise(SupervisedLaunch.Spec spec, JobService jobs,
                JavaFutureAction<List<Integer>> tasks) throws IOException, InterruptedException {
            try (SupervisedLaunch launch = SupervisedLaunch.start(spec)) {
                while (launch.waitFor(Duration.ofMillis(200)) == null) {
                    if (tasks.isDone() || !jobs.lostTasks().isEmpty()) {
                        launch.tearDown(TEARDOWN_GRACE);
                        launch.await();
                        if (tasks.isDone()) {
                            throw sparkEnded(tasks, "while the MPI job ran; the MPI job was torn down");
                        }
                        throw new TroikaSparkException("troika-spark: " + jobs.lostTasks().values().iterator().next()
                                + "; the MPI job was torn down");
                    }
                }
                return launch.await();
            }
        }

        private List<R> decode(Map<Integer, JobService.Outcome> outcomes, String filter) throws IOException {
            List<R> results = new ArrayList<>(np);
            ClassLoader loader = fn.getClass().getClassLoader();
            for (int r = 0; r < np; r++) {
                try {
                    @SuppressWarnings("unchecked")
                    R value = (R) Closures.deserialize(outcomes.get(r).data(), filter, loader);
                    results.add(value);
                } catch (ClassNotFoundException | ClassCastException e) {
                    throw new TroikaSparkException("troika-spark: the result of rank " + r + " cannot be read: " + e, e);
                }
            }
            return results;
        }


        private static TroikaSparkException sparkEnded(JavaFutureAction<List<Integer>> tasks, String when) {
            try {
                tasks.get();
                return new TroikaSparkException("troika-spark: the Spark job ended " + when);
            } catch (ExecutionException e) {
                Throwable c = e.getCause() == null ? e : e.getCause();
                return new TroikaSparkException("troika-spark: the Spark job failed or was cancelled " + when + ": "
                        + c.getMessage(), c);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new TroikaSparkException("troika-spark: interrupted", e);
            } catch (RuntimeException e) {
                return new TroikaSparkException("troika-spark: the Spark job was cancelled " + when + ": "
                        + e.getMessage(), e);
            }
        }

        private void await(JavaFutureAction<List<Integer>> tasks) throws InterruptedException {
            try {
                tasks.get(TEARDOWN.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw new TroikaSparkException("troika-spark: the MPI job succeeded but its Spark job failed: "
                        + e.getCause().getMessage(), e.getCause());
            } catch (TimeoutException e) {
                throw new TroikaSparkException("troika-spark: the Spark tasks did not end within "
                        + TEARDOWN.toSeconds() + " s after the MPI job");
            }
        }

        private static void awaitQuietly(JavaFutureAction<List<Integer>> tasks) {
            try {
                tasks.get(TEARDOWN.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException | RuntimeException ignored) {
                // the job failed or was cancelled, as intended
            }
        }
    }

    /** troika-rsh's, troika-wire's and troika-common's jars (or class directories), for the agent script. */
    static String agentClasspath() {
        return locations(List.of(org.troika.rsh.agent.RshMain.class, org.troika.wire.Secret.class, TroikaEnv.class),
                "the launch agent");
    }

    /**
     * The rank JVM's own class path: the jars (or folders) of {@link RankMain} and what it and a rank function use
     * from troika (worker, MPI binding, JNA, wire, common). Everything else comes from {@link RankMain#CLASSPATH_ENV}.
     */
    static String rankClasspath() {
        List<Class<?>> classes = new ArrayList<>(List.of(RankMain.class, org.troika.worker.RankEnv.class,
                org.troika.mpi.Mpi.class, org.troika.wire.Secret.class, TroikaEnv.class));
        try {
            classes.add(Class.forName("com.sun.jna.Native", false, TroikaSpark.class.getClassLoader()));
        } catch (ClassNotFoundException e) {
            // no JNA here: the FFM binding (JDK 22+) needs none
        }
        return locations(classes, "the ranks");
    }

    private static String locations(List<Class<?>> classes, String forWhat) {
        java.util.LinkedHashSet<String> parts = new java.util.LinkedHashSet<>();
        for (Class<?> c : classes) {
            try {
                parts.add(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
            } catch (java.net.URISyntaxException | RuntimeException e) {
                throw new IllegalStateException("cannot locate " + c.getName() + "'s jar for " + forWhat, e);
            }
        }
        return String.join(":", parts);
    }


}
