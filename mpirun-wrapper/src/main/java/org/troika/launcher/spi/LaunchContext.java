package org.troika.launcher.spi;

import java.nio.file.Path;
import java.util.Map;

/**
 * Inputs of a launch backend's planning: all values, no I/O.
 *
 * @param settings the run settings (hosts resolved)
 * @param hostPlan the rank table
 * @param mpi the MPI in use
 * @param env the caller's environment (not modified)
 * @param allocation the batch allocation, or {@code null} outside a batch job
 * @param scratchDir a private directory (mode 0700) the executor creates before launch and deletes afterwards;
 *     backends may name files inside it and return their contents in {@link BackendPlan#files()}
 * @param onPath whether an executable name is on the caller's PATH (probe result)
 * @param troikaHome the troika installation ({@code bin/}, {@code lib/}) when running from the distribution, else
 *     {@code null}; planners use it to reference troika's own helper programs
 * @param agent the launch agent Open MPI's daemons start through (the relay), or {@code null} for the MPI's own
 */
public record LaunchContext(RunSettings settings, HostPlan hostPlan, MpiInstall mpi, Map<String, String> env,
        Allocation allocation, Path scratchDir, java.util.function.Predicate<String> onPath, Path troikaHome,
        LaunchAgent agent) {
    public LaunchContext {
        env = Map.copyOf(env);
    }

    /** A context without a launch agent. */
    public LaunchContext(RunSettings settings, HostPlan hostPlan, MpiInstall mpi, Map<String, String> env,
            Allocation allocation, Path scratchDir, java.util.function.Predicate<String> onPath, Path troikaHome) {
        this(settings, hostPlan, mpi, env, allocation, scratchDir, onPath, troikaHome, null);
    }
}
