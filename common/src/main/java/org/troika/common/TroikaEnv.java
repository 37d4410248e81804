package org.troika.common;

/**
 * Names of the environment variables troika reads or sets. One place, documented in the README.
 */
public final class TroikaEnv {
    private TroikaEnv() {}

    /** The per-job secret (base64 of 32 random bytes). Never on a command line, never exported to ranks. */
    public static final String SECRET_KEY = "TROIKA_SECRET_KEY";

    /**
     * Removes the job secret ({@link #SECRET_KEY}) from {@code env}, in place, and returns {@code env}: the one rule
     * every environment troika builds for a child (remote shells, mpirun, task-service commands, ranks) goes through.
     * The secret travels on stdin or as a derived, limited key, never in a child's environment.
     */
    public static java.util.Map<String, String> stripJobSecret(java.util.Map<String, String> env) {
        env.remove(SECRET_KEY);
        return env;
    }

    /** The MPI launcher binary troika probes and runs (default {@code mpirun} from PATH). */
    public static final String MPIRUN = "TROIKA_MPIRUN";

    /**
     * A file holding the per-job secret (base64), mode 0600 in a private directory: how the launch agent and the
     * remote daemons find the secret without it being in any process's environment (ranks inherit their daemon's).
     */
    public static final String SECRET_FILE = "TROIKA_SECRET_FILE";
    /** The driver service's endpoints, {@code ADDRESS:PORT[,ADDRESS:PORT...]}, for the launch agent and task services. */
    public static final String DRIVER_ADDR = "TROIKA_DRIVER_ADDR";
    /**
     * Set by {@code ProcessSupervisor} on every process tree it starts: a random value (not a secret) that every
     * descendant inherits, so the tree's processes are found and ended at teardown even after they left its session
     * or process group ({@code setsid -f}, a double fork).
     */
    public static final String COMMAND_TAG = "TROIKA_COMMAND_TAG";
    /** Launch agent: milliseconds without a frame from a task service before the host is declared lost (default 6000). */
    public static final String LIVENESS_TIMEOUT_MS = "TROIKA_LIVENESS_TIMEOUT_MS";

    // Rank environment: set for every rank (see the README's "Rank environment" table).
    public static final String RANK = "TROIKA_RANK";
    public static final String SIZE = "TROIKA_SIZE";
    public static final String LOCAL_RANK = "TROIKA_LOCAL_RANK";
    public static final String LOCAL_SIZE = "TROIKA_LOCAL_SIZE";
    public static final String CROSS_RANK = "TROIKA_CROSS_RANK";
    public static final String CROSS_SIZE = "TROIKA_CROSS_SIZE";
    public static final String HOSTNAME = "TROIKA_HOSTNAME";
    /**
     * The planned host list, {@code host:slots,...} in rank order (gives a rank its host's planned name); exported
     * while it is at most 96 KiB.
     */
    public static final String HOSTS = "TROIKA_HOSTS";
    /**
     * The planned hosts' slot counts in rank order, run-length encoded ({@code 8x9999,4}); lets a rank derive its
     * host's index and its cross rank and size at any host count.
     */
    public static final String HOST_SLOTS = "TROIKA_HOST_SLOTS";

    /**
     * The MPI library a Java rank binds to (a path or a soname such as {@code libmpich.so.12}); overrides the
     * detection from the launcher's variables done by troika-mpi.
     */
    public static final String LIBMPI = "TROIKA_LIBMPI";

    /**
     * How a Java rank calls the MPI library: {@code jna}, {@code ffm} (Foreign Function &amp; Memory, JDK 22+) or
     * {@code auto} (the default: ffm on JDK 22+ when native access is enabled, else jna).
     */
    public static final String MPI_BACKEND = "TROIKA_MPI_BACKEND";

    /**
     * A rank's default tensor-fusion threshold in bytes (troika-mpi's {@code FusionBuffer}; Horovod's
     * {@code HOROVOD_FUSION_THRESHOLD}); {@code troika run --config-file} sets it from {@code params.fusion_threshold_mb}.
     */
    public static final String FUSION_THRESHOLD = "TROIKA_FUSION_THRESHOLD";

    /**
     * The thread level {@code Mpi.init()} asks for: {@code single} (the default), {@code funneled},
     * {@code serialized} or {@code multiple}; set from {@code library_options.mpi_threads_disable} of a config file.
     */
    public static final String MPI_THREAD_LEVEL = "TROIKA_MPI_THREAD_LEVEL";

    /**
     * {@code 1}: {@code bin/troika-rankenv} gives {@code java} ranks a class-data-sharing archive recorded on their own
     * host (per-user cache); elastic jobs set it unless it is given. {@code 0} or unset: off. troika-spark gives ranks
     * on the driver's machine such an archive unless this is {@code 0} (in the driver's environment or the job's).
     */
    public static final String JAVA_CDS = "TROIKA_JAVA_CDS";

    /** Set to {@code 1} for ranks of an elastic job. */
    public static final String ELASTIC = "TROIKA_ELASTIC";
    /** Elastic: the job's id (letters, digits, {@code _ . -}); names the node-local committed-state store. */
    public static final String JOB_ID = "TROIKA_JOB_ID";
    /** Elastic: this launch's generation id, 1 for the first; later generations run the reset callbacks. */
    public static final String ELASTIC_GENERATION = "TROIKA_ELASTIC_GENERATION";
    /**
     * Elastic: {@code shrink} when the launcher runs mpirun with fault tolerance on (Open MPI 5 {@code --with-ft
     * ulfm}), so the survivors of a dead rank go on in the same processes; unset or {@code relaunch} otherwise.
     */
    public static final String FAULT_TOLERANCE = "TROIKA_FAULT_TOLERANCE";
    /** Elastic: {@code --min-np}; fewer survivors than this end the generation so the driver relaunches. */
    public static final String ELASTIC_MIN_NP = "TROIKA_ELASTIC_MIN_NP";
    /**
     * Elastic, when the generation may grow in place (issue 25, Open MPI 5): the rank command as mpirun started it, so
     * the ranks can spawn more of it onto new hosts: every word followed by a NUL byte, the whole base64-encoded (the
     * words' exact bytes).
     */
    public static final String ELASTIC_SPAWN_COMMAND = "TROIKA_ELASTIC_SPAWN_COMMAND";
    /**
     * Elastic, with {@link #ELASTIC_SPAWN_COMMAND}: the names of the variables mpirun exported to the ranks
     * (comma-separated), which spawned ranks get with the spawning ranks' values.
     */
    public static final String ELASTIC_SPAWN_ENV = "TROIKA_ELASTIC_SPAWN_ENV";
    /**
     * Elastic, relayed growth in place: a file (0600, the host's task service's private directory) of the variables
     * mpirun exported to the ranks other than troika's, one {@code NAME=value} per line, with the launcher's values.
     * troika hands it to the service of each host a growth adds; {@code bin/troika-rankenv} exports them in a rank
     * spawned into a running world ({@link #ELASTIC_JOIN_ID} set), whose daemon mpirun's {@code -x} exports never
     * reach.
     */
    public static final String SPAWN_ENV_FILE = "TROIKA_SPAWN_ENV_FILE";
    /**
     * Elastic, a launch with standby ranks ({@code troika run --standby-ranks}, Open MPI 5): the launch ranks from this
     * number up run on standby hosts and wait outside the training world until a change in place activates them
     * ({@code ElasticWorld.of} keeps them there); the ranks below it form the world.
     */
    public static final String ELASTIC_STANDBY_FROM = "TROIKA_ELASTIC_STANDBY_FROM";
    /** Elastic, set for ranks spawned into a running world only: the generation id of the first of them. */
    public static final String ELASTIC_JOIN_ID = "TROIKA_ELASTIC_JOIN_ID";

    /**
     * A rank spawned into a running world ({@link #ELASTIC_JOIN_ID} set) is rank R of its spawn
     * ({@code OMPI_COMM_WORLD_RANK}, else {@code PMIX_RANK}): its id in the generation is the spawn's first id plus R,
     * as {@code ElasticWorld} counts it and the launcher tracks it (its host's task service reports its end, the rank
     * reports its progress, under that id). Empty for any other process.
     *
     * @throws IllegalArgumentException when {@link #ELASTIC_JOIN_ID} is set but it or the rank in the spawn is not a
     *     number
     */
    public static java.util.OptionalInt spawnedRankId(java.util.Map<String, String> env) {
        String join = env.get(ELASTIC_JOIN_ID);
        if (join == null) {
            return java.util.OptionalInt.empty();
        }
        String rank = env.getOrDefault("OMPI_COMM_WORLD_RANK", env.get("PMIX_RANK"));
        if (!join.matches("[0-9]{1,9}") || rank == null || !rank.matches("[0-9]{1,9}")) {
            throw new IllegalArgumentException(ELASTIC_JOIN_ID + "='" + join + "' with rank '" + rank
                    + "' in its spawn is no spawned rank's id");
        }
        return java.util.OptionalInt.of(Integer.parseInt(join) + Integer.parseInt(rank));
    }
    /** Elastic, with {@link #ELASTIC_JOIN_ID}: how many changes in place the world went through with them. */
    public static final String ELASTIC_EPOCH = "TROIKA_ELASTIC_EPOCH";
    /**
     * Elastic, with {@link #ELASTIC_JOIN_ID}, only for a spawn next to ranks already running on a host: per entry of
     * the spawn's {@link #HOSTS}, {@code SIZE:L1.L2...} (the host's local size once they joined, then the spawned
     * ranks' local ranks there, the smallest the running ones leave free), or {@code -} for a host where the spawned
     * ranks are alone; {@code bin/troika-rankenv} sets TROIKA_LOCAL_RANK and TROIKA_LOCAL_SIZE from it and unsets it.
     */
    public static final String ELASTIC_SPAWN_LOCALS = "TROIKA_ELASTIC_SPAWN_LOCALS";
    /**
     * Elastic, with {@link #ELASTIC_JOIN_ID}: the size of the running world the spawned ranks join (after the change's
     * leaves and activations); they are merged after its ranks, so {@code bin/troika-rankenv} sets TROIKA_RANK to this
     * plus the rank in the spawn and TROIKA_SIZE to this plus the spawn's size, and unsets it.
     */
    public static final String ELASTIC_SPAWN_BASE = "TROIKA_ELASTIC_SPAWN_BASE";
    /**
     * Elastic: the driver's worker notification service, {@code ADDRESS:PORT}: host change announcements to rank 0,
     * and the ranks' reports of their world (shrinks, leaves) to the launcher.
     */
    public static final String WORKER_ADDR = "TROIKA_WORKER_ADDR";
    /**
     * troika's variables every rank of an elastic generation shares and a rank spawned into it needs from its parent:
     * its job, generation, fault tolerance and {@code --min-np}, and the driver's address (where it reports, and
     * listens once it is the world's rank 0). They come with the spawn where its 255 bytes have room, and always in
     * its host's file of exports ({@link #SPAWN_ENV_FILE}).
     */
    public static final java.util.List<String> GENERATION_SHARED = java.util.List.of(JOB_ID, ELASTIC,
            ELASTIC_GENERATION, FAULT_TOLERANCE, ELASTIC_MIN_NP, WORKER_ADDR);
    /**
     * Elastic: a file (0600, private directory) holding the worker key, base64: HMAC-SHA256(job secret,
     * "troika-worker-v1"). Ranks never get the job secret itself, only this key, which opens nothing but the
     * notification service.
     */
    public static final String WORKER_SECRET_FILE = "TROIKA_WORKER_SECRET_FILE";
    /**
     * The worker key itself, base64, for ranks that a launcher without troika's relay starts with its own environment
     * ({@code srun}): no task service writes a key file on their hosts. Read when {@link #WORKER_SECRET_FILE} is not
     * set.
     */
    public static final String WORKER_KEY = "TROIKA_WORKER_KEY";

    // Hang watchdog (issue 15): set by troika for ranks whose progress it watches.
    /** The launcher's progress service, {@code ADDRESS:PORT}: ranks report progress there. */
    public static final String PROGRESS_ADDR = "TROIKA_PROGRESS_ADDR";
    /**
     * The progress key, base64: HMAC-SHA256(job secret, "troika-progress-v1"). It opens nothing but the progress
     * service; ranks never get the job secret.
     */
    public static final String PROGRESS_KEY = "TROIKA_PROGRESS_KEY";
    /** How often (milliseconds) a rank's reporter samples its progress and sends it when it changed. */
    public static final String PROGRESS_INTERVAL_MS = "TROIKA_PROGRESS_INTERVAL_MS";
    /** {@code --hang-timeout} as an environment variable (seconds; 0 turns the watchdog off). */
    public static final String HANG_TIMEOUT = "TROIKA_HANG_TIMEOUT";
    /**
     * {@code off}: PRRTE's daemons start without the guard (on a host: its task service's {@code prted}; on the
     * launch node: {@code mpirun}'s {@code prterun}).
     */
    public static final String PRTED_GUARD = "TROIKA_PRTED_GUARD";
}
