package org.troika.launcher.spi;

/**
 * Plans the command that starts all ranks ({@code mpirun}, {@code jsrun}). Planning is pure.
 * Implementations outside troika-launcher are found with {@link java.util.ServiceLoader}.
 */
public interface LaunchBackend {
    /** Name used in messages and by {@code --mpi}/{@code --jsrun}: {@code mpirun}, {@code jsrun}. */
    String name();

    /** Whether this backend should be used when the user chose none. */
    boolean isDefaultFor(LaunchContext ctx);

    /**
     * Plans the launch.
     *
     * @throws org.troika.common.UsageException when the request cannot be honoured (one-line message)
     */
    BackendPlan plan(LaunchContext ctx);
}
