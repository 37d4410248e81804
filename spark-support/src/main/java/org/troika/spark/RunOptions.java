package org.troika.spark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.troika.common.UsageException;
import org.troika.launcher.options.RunOptionTable;
import org.troika.launcher.spi.RunSettings;

/**
 * Options of one {@link TroikaSpark#run} job. Immutable; build with {@link #builder()}.
 *
 * @param np number of processes, or {@code null} = Spark's default parallelism
 * @param startTimeout how long tasks, task services and ranks may take to come up (default 600 s)
 * @param mpiArgs extra {@code mpirun} arguments, verbatim
 * @param env extra environment for {@code mpirun}, exported to every rank
 * @param networkInterfaces NIC names or IPv4 subnets for MPI traffic; empty = Open MPI's choice
 * @param verbose print the mpirun command line and what was chosen
 * @param prefixTimestamp prefix every output line with a timestamp (lines are always tagged with the rank)
 * @param allowedClasses extra {@link java.io.ObjectInputFilter} patterns ({@code com.acme.*}, {@code com.acme.**}) the
 *     function and results may contain, besides the function's own package, {@code org.troika.**} and basic JDK types
 * @param rankClasspath class path of the rank JVMs, or {@code null} = this JVM's {@code java.class.path} (right
 *     for local mode and for executors that see the driver's files at the same paths); with {@code null} the rank
 *     JVM starts on troika's jars alone and loads the function's classes from the driver's class path in a child
 *     loader (start-up: no JDK service lookup over every Spark jar)
 * @param javaCommand the {@code java} the ranks run, or {@code null} = this JVM's
 * @param jvmOptions extra options for the rank JVMs
 * @param hostPerExecutor one MPI host per executor JVM instead of per machine or container (ranks of different
 *     executors then talk over TCP, not shared memory); meant for trying multi-host layouts on one machine
 */
public record RunOptions(Integer np, Duration startTimeout, List<String> mpiArgs, Map<String, String> env,
        List<String> networkInterfaces, boolean verbose, boolean prefixTimestamp, List<String> allowedClasses,
        String rankClasspath, String javaCommand, List<String> jvmOptions, boolean hostPerExecutor) {

    /** Default start timeout. */
    public static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(600);

    /** @throws IllegalArgumentException for a value {@code troika run} refuses too (the same checks) */
    public RunOptions {
        Objects.requireNonNull(startTimeout, "startTimeout");
        try {
            RunSettings.of(List.of()).with(RunOptionTable.NP, np).with(RunOptionTable.START_TIMEOUT, startTimeout)
                    .with(RunOptionTable.NETWORK_INTERFACES, networkInterfaces);
        } catch (UsageException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        mpiArgs = List.copyOf(mpiArgs);
        env = Map.copyOf(env);
        networkInterfaces = List.copyOf(networkInterfaces);
        allowedClasses = List.copyOf(allowedClasses);
        jvmOptions = List.copyOf(jvmOptions);
    }

    /** The defaults: np from Spark, 600 s start timeout, nothing extra. */
    public static RunOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Mutable builder. */
    public static final class Builder {
        private Integer np;
        private Duration startTimeout = DEFAULT_START_TIMEOUT;
        private List<String> mpiArgs = new ArrayList<>();
        private Map<String, String> env = new LinkedHashMap<>();
        private List<String> networkInterfaces = new ArrayList<>();
        private boolean verbose;
        private boolean prefixTimestamp;
        private List<String> allowedClasses = new ArrayList<>();
        private String rankClasspath;
        private String javaCommand;
        private List<String> jvmOptions = new ArrayList<>();
        private boolean hostPerExecutor;

        private Builder() {}

        public Builder np(int v) { np = v; return this; }
        public Builder startTimeout(Duration v) { startTimeout = v; return this; }
        public Builder mpiArgs(List<String> v) { mpiArgs = new ArrayList<>(v); return this; }
        public Builder env(Map<String, String> v) { env = new LinkedHashMap<>(v); return this; }
        public Builder networkInterfaces(List<String> v) { networkInterfaces = new ArrayList<>(v); return this; }
        public Builder verbose(boolean v) { verbose = v; return this; }
        public Builder prefixTimestamp(boolean v) { prefixTimestamp = v; return this; }
        public Builder allowedClasses(List<String> v) { allowedClasses = new ArrayList<>(v); return this; }
        public Builder rankClasspath(String v) { rankClasspath = v; return this; }
        public Builder javaCommand(String v) { javaCommand = v; return this; }
        public Builder jvmOptions(List<String> v) { jvmOptions = new ArrayList<>(v); return this; }
        public Builder hostPerExecutor(boolean v) { hostPerExecutor = v; return this; }

        public RunOptions build() {
            return new RunOptions(np, startTimeout, mpiArgs, env, networkInterfaces, verbose, prefixTimestamp,
                    allowedClasses, rankClasspath, javaCommand, jvmOptions, hostPerExecutor);
        }
    }
}
