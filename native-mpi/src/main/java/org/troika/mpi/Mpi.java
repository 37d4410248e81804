package org.troika.mpi;

import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.troika.common.TroikaEnv;
import org.troika.mpi.jna.JnaMpi;
import org.troika.mpi.spi.NativeMpi;

/**
 * Entry point of the binding: initialises MPI in this process and gives out the world communicator.
 *
 * <pre>{@code
 * try (Mpi mpi = Mpi.init()) {
 *     Communicator world = Mpi.world();
 *     world.allreduce(gradients, Op.SUM);
 * }
 * }</pre>
 *
 * <p>MPI is initialised at most once per process and cannot be re-initialised after {@link #finalizeMpi()}; this class
 * mirrors that process-wide state in one static field, guarded by a lock. {@code MPI_ERRORS_RETURN} is set on the
 * world communicator, so MPI errors become {@link MpiException}s instead of aborting the job.
 */
public final class Mpi implements AutoCloseable {
    private static final Object LOCK = new Object();
    private static Mpi current; // guarded by LOCK
    private static boolean finalizedOnce; // guarded by LOCK
    private static boolean skipFinalize; // guarded by LOCK

    private final NativeMpi backend;
    private final ThreadLevel threadLevel;
    private final Communicator world;

    private Mpi(NativeMpi backend, ThreadLevel threadLevel) {
        this.backend = backend;
        this.threadLevel = threadLevel;
        boolean pin = !"copy".equals(System.getenv(MpiLibrary.HEAP));
        // issue 15: collectives counted for troika's hang watchdog when it watches this rank (else backend itself)
        NativeMpi watched = CollectiveProgress.watch(backend);
        this.world = new Communicator(new Context(watched, pin, backend.tagUpperBound()), backend.commWorld(), false);
    }

    /**
     * {@link #init(ThreadLevel)} with the level {@code TROIKA_MPI_THREAD_LEVEL} names ({@link ThreadLevel#fromEnv}),
     * by default {@link ThreadLevel#SINGLE}.
     */
    public static Mpi init() {
        return init(ThreadLevel.fromEnv(System.getenv()));
    }

    /**
     * Loads the job's MPI library (see {@link MpiLibrary} for the choice) and initialises MPI, or returns the
     * running instance when already initialised.
     *
     * @throws IllegalStateException when no MPI library loads, or MPI was finalised already
     */
    public static Mpi init(ThreadLevel required) {
        synchronized (LOCK) {
            if (current != null) {
                return current;
            }
            return init(load(System.getenv()), required);
        }
    }

    /**
     * Initialises MPI through the given native layer (e.g. a Foreign Function &amp; Memory backend, or a test fake),
     * or returns the running instance when already initialised.
     */
    public static Mpi init(NativeMpi backend, ThreadLevel required) {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(required, "required");
        synchronized (LOCK) {
            if (current != null) {
                return current;
            }
            if (finalizedOnce || backend.finalized()) {
                throw new IllegalStateException("MPI was finalized in this process and cannot be initialised again");
            }
            ThreadLevel provided = backend.initialized() ? required : ThreadLevel.of(backend.initThread(required.value()));
            backend.setErrorsReturn(backend.commWorld());
            current = new Mpi(backend, provided);
            return current;
        }
    }

    /** Loads the first MPI library of {@link MpiLibrary#candidates} that exists, through the chosen backend. */
    static NativeMpi load(Map<String, String> env) {
        return load(env, MpiLibrary.backend(env, Runtime.version().feature(), nativeAccessEnabled()));
    }

    /**
     * Loads the job's MPI library ({@link MpiLibrary#candidates}) through {@code backend} without initialising MPI:
     * for bindings built on troika-mpi (the drop-in {@code mpi} package), which then call
     * {@link #init(NativeMpi, ThreadLevel)}.
     *
     * @throws IllegalStateException when no MPI library loads
     */
    public static NativeMpi load(MpiLibrary.Backend backend) {
        return load(System.getenv(), backend);
    }

    /** Whether the FFM backend can run here: JDK 22+ and troika-mpi's multi-release jar holds it. */
    public static boolean ffmAvailable() {
        if (Runtime.version().feature() < 22) {
            return false;
        }
        try {
            Class.forName(FFM_CLASS, false, Mpi.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static NativeMpi load(Map<String, String> env, MpiLibrary.Backend backend) {
        List<String> failures = new ArrayList<>();
        for (String library : MpiLibrary.candidates(env)) {
            try {
                return backend == MpiLibrary.Backend.FFM ? loadFfm(library) : JnaMpi.load(library);
            } catch (UnsatisfiedLinkError e) {
                failures.add(library + ": " + e.getMessage());
            }
        }
        throw new IllegalStateException("no MPI library could be loaded (" + String.join("; ", failures)
                + "): install Open MPI or MPICH, or set " + TroikaEnv.LIBMPI + " to the library's path");
    }

    private static final String FFM_CLASS = "org.troika.mpi.ffm.FfmMpi";

    /** The FFM backend lives in the multi-release jar's JDK 22 part; loaded reflectively so this class stays JDK 17. */
    private static NativeMpi loadFfm(String library) {
        try {
            return (NativeMpi) Class.forName(FFM_CLASS).getMethod("load", String.class).invoke(null, library);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(TroikaEnv.MPI_BACKEND + "=ffm needs JDK 22+ and troika-mpi's multi-release "
                    + "jar built with a JDK 22+ compiler; this is JDK " + Runtime.version().feature()
                    + ": unset it or use jna", e);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof UnsatisfiedLinkError u) {
                throw u;
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException("FFM backend failed to load " + library, e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("FFM backend is broken: " + e, e);
        }
    }

    /** {@code Module.isNativeAccessEnabled()} (JDK 22+) for this class's module, and the FFM class is present. */
    private static boolean nativeAccessEnabled() {
        if (!ffmAvailable()) {
            return false;
        }
        try {
            return (boolean) Module.class.getMethod("isNativeAccessEnabled").invoke(Mpi.class.getModule());
        } catch (ReflectiveOperationException | LinkageError e) {
            return false;
        }
    }

    /** Whether MPI is initialised and not yet finalised through this class. */
    public static boolean isInitialized() {
        synchronized (LOCK) {
            return current != null;
        }
    }

    /** The running instance. */
    public static Mpi current() {
        synchronized (LOCK) {
            if (current == null) {
                throw new IllegalStateException("MPI is not initialised: call Mpi.init() first");
            }
            return current;
        }
    }

    /** {@code MPI_COMM_WORLD}. */
    public static Communicator world() {
        return current().world;
    }

    /**
     * {@code MPI_Comm_get_parent}: the inter-communicator to the processes that spawned this one
     * ({@link Communicator#spawn}), or empty when this process was started by the launcher.
     */
    public static java.util.Optional<Intercommunicator> parent() {
        Mpi m = current();
        Context ctx = m.world.context();
        long h = DynamicProcesses.of(ctx.mpi).parent();
        return h == ctx.mpi.commNull() ? java.util.Optional.empty() : java.util.Optional.of(new Intercommunicator(ctx, h));
    }

    /**
     * {@code MPI_Intercomm_create_from_groups} (MPI 4.0): the inter-communicator between the processes of {@code local}
     * (every one of them calls, this process among them) and those of {@code remote} (which call it with the groups
     * swapped), both sides naming the same {@code tag}, unique among the creations of the job. Groups of any
     * communicators; errors are returned. Unlike {@link Communicator#intercommCreate} no communicator carries it, so
     * it also works while a process of one has failed (ULFM), where Open MPI 5.0.7 fails {@code MPI_Intercomm_create}
     * over a peer communicator with a dead process ({@code MPI_ERR_INTERN}, measured). Close it when done.
     *
     * @throws UnsupportedOperationException when the MPI library lacks the call (Open MPI 4)
     */
    public static Intercommunicator intercommCreateFromGroups(Group local, int localLeader, Group remote,
            int remoteLeader, String tag) {
        java.util.Objects.requireNonNull(local, "local");
        java.util.Objects.requireNonNull(remote, "remote");
        if (localLeader < 0 || localLeader >= local.size()) {
            throw new IllegalArgumentException("local leader " + localLeader + " is not a rank of the local group of "
                    + local.size());
        }
        if (remoteLeader < 0 || remoteLeader >= remote.size()) {
            throw new IllegalArgumentException("remote leader " + remoteLeader
                    + " is not a rank of the remote group of " + remote.size());
        }
        if (tag.isEmpty() || !tag.chars().allMatch(c -> c > ' ' && c < 127)) {
            throw new IllegalArgumentException("tag '" + tag + "' must be printable ASCII without spaces");
        }
        Context ctx = current().world.context();
        try {
            byte[] name = tag.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            return new Intercommunicator(ctx, DynamicProcesses.of(ctx.mpi).intercommCreateFromGroups(local.handle(),
                    localLeader, remote.handle(), remoteLeader, name));
        } catch (UnsatisfiedLinkError e) {
            throw new UnsupportedOperationException("the MPI library " + ctx.mpi.libraryName() + " lacks "
                    + "MPI_Intercomm_create_from_groups (MPI 4.0): use Open MPI 5 or later", e);
        }
    }

    /**
     * From now on {@link #finalizeMpi()} ends troika's use of MPI without calling {@code MPI_Finalize}. For a process
     * whose job lost a process that exited without finalizing (a rank that left an elastic world, see docs/elastic.md):
     * Open MPI 5.0.7's finalize then waits for it forever on several hosts, while ending without it is what the job's
     * fault tolerance ({@code mpirun --with-ft ulfm}) expects of such processes. Irreversible.
     */
    public static void skipFinalize() {
        synchronized (LOCK) {
            skipFinalize = true;
        }
    }

    /** Finalises MPI (collective over all ranks); does nothing when not initialised. */
    public static void finalizeMpi() {
        synchronized (LOCK) {
            if (current == null) {
                return;
            }
            Mpi mpi = current;
            current = null;
            finalizedOnce = true;
            mpi.world.close();
            if (!skipFinalize) {
                mpi.backend.finalizeMpi();
            }
        }
    }

    /** {@code MPI_Wtime()}: seconds since an arbitrary point in the past. */
    public static double wtime() {
        return current().backend.wtime();
    }

    /** {@code MPI_Abort} on the world communicator: ends every rank of the job. */
    public static void abort(int code) {
        current().backend.abort(current().backend.commWorld(), code);
    }

    /** {@code MPI_Query_thread}: the thread level MPI runs at. */
    public static ThreadLevel queryThread() {
        return ThreadLevel.of(current().backend.queryThread());
    }

    /** Whether Java arrays go to blocking collectives without a copy (FFM backend, unless TROIKA_MPI_HEAP=copy). */
    public boolean pinsArrays() {
        return world.pinsArrays();
    }

    /** The thread level MPI provides. */
    public ThreadLevel threadLevel() {
        return threadLevel;
    }

    /** The native layer in use (library name, ABI, version). */
    public NativeMpi backend() {
        return backend;
    }

    /** Same as {@link #finalizeMpi()}. */
    @Override
    public void close() {
        finalizeMpi();
    }
}
