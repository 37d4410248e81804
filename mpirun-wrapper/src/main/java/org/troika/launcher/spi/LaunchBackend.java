package org.troika.launcher.spi;

import java.util.Set;

/**
 * Plans the command that starts all ranks ({@code mpirun}, {@code jsrun}). Planning is pure.
 * Implementations outside troika-launcher are found with {@link java.util.ServiceLoader}.
 */
public interface LaunchBackend {
    /** Name used in messages and by {@code --launcher NAME}: {@code mpirun}, {@code jsrun}, {@code srun}. */
    String name();

    /**
     * What a backend can do beyond planning one static launch. Callers ask {@link #capabilities()} instead of
     * recognising a backend by its class, so a backend from a plugin jar gets the same treatment as a built-in one.
     */
    enum Capability {
        /**
         * Its launcher starts remote daemons through a launch agent, so troika's relay (task services on the hosts,
         * {@code troika rsh} as the agent) can serve them; without it the launcher starts every rank itself.
         */
        RELAY_AGENT,
        /**
         * It runs the generations of an elastic job: each generation is one launch it plans over that generation's
         * hosts, and its ranks reach the driver (host updates, leave and shrink events) with the worker key from the
         * launch environment ({@code TROIKA_WORKER_KEY}) when no relay hands them a key file.
         */
        ELASTIC,
        /**
         * Its launches can run with the MPI's fault tolerance (ULFM), so that the survivors of an elastic generation
         * shrink in place ({@code --fault-tolerance shrink}); the MPI must support it too.
         */
        SHRINK
    }

    /** What this backend can do besides planning a static launch; none by default. */
    default Set<Capability> capabilities() {
        return Set.of();
    }

    /** Whether this backend should be used when the user chose none. */
    boolean isDefaultFor(LaunchContext ctx);

    /**
     * One line for {@code --verbose}: why this backend is, or is not, the default for {@code ctx} (e.g. "not inside
     * a Slurm allocation"), or {@code null} when there is nothing to say.
     */
    default String reason(LaunchContext ctx) {
        return null;
    }

    /**
     * Plans the launch.
     *
     * @throws org.troika.common.UsageException when the request cannot be honoured (one-line message)
     */
    BackendPlan plan(LaunchContext ctx);
}
