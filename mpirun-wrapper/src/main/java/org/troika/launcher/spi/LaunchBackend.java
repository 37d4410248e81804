package org.troika.launcher.spi;

/**
 * Plans the command that starts all ranks ({@code mpirun}, {@code jsrun}). Planning is pure.
 * Implementations outside troika-launcher are found with {@link java.util.ServiceLoader}.
 */
public interface LaunchBackend {
    /** Name used in messages and by {@code --launcher NAME}: {@code mpirun}, {@code jsrun}, {@code srun}. */
    String name();

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
