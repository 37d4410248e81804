package org.troika.launcher.spi;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Everything a launch needs, from the CLI (or a library API) down. Immutable; derived facts make a new record
 * through the {@code with*} methods or {@link #toBuilder()}.
 *
 * <p>Nullable fields mean "not given": the planner applies the documented default.
 *
 * @param np number of processes, or {@code null} (default: all slots of the allocation / hosts, else 1)
 * @param hosts explicit hosts from {@code -H} or a hostfile, in order; empty when none were given
 * @param hostSource where {@code hosts} came from ({@code "-H"}, {@code "hostfile PATH"}), or {@code null}
 * @param networkInterfaces NICs to use (names or CIDR subnets); empty = default / detection
 * @param sshPort ssh port, or {@code null}
 * @param sshIdentityFile ssh identity file, or {@code null}
 * @param mpiArgs extra arguments for the MPI launcher, appended verbatim before the command
 * @param bindingArgs binding/mapping arguments that replace the flavour's default, empty = default
 * @param tcp force TCP (no InfiniBand): sets {@code NCCL_IB_DISABLE=1}, {@code -tcp} for Spectrum MPI
 * @param outputFilename directory for per-rank output files, or {@code null}
 * @param prefixTimestamp prefix output lines with a timestamp
 * @param startTimeout how long services and ranks may take to start
 * @param verbose log what is chosen and why; show stack traces
 * @param backend which launcher to plan ({@link Backend#AUTO} = detect)
 * @param mpiFlavor flavour override ({@code openmpi|openmpi5|spectrum|mpich|intel}), or {@code null} = detect
 * @param dryRun print the plan and exit without running anything
 * @param remoteShell how task services are started on hosts ({@code ssh}, {@code blaunch}, {@code srun}, or a
 *     template with {@code {host}}), or {@code null} = default
 * @param launchAgent how Open MPI starts its daemons
 * @param hostDiscoveryScript elastic: executable printing {@code host[:slots]} lines, or {@code null}
 * @param minNp elastic: minimum processes, or {@code null}
 * @param maxNp elastic: maximum processes, or {@code null}
 * @param slotsPerHost elastic: slots for discovered hosts without a count, or {@code null}
 * @param elasticTimeout elastic: how long to wait for min-np slots
 * @param resetLimit elastic: maximum resets, or {@code null} = unlimited
 * @param cooldownMin elastic: blacklist cooldown lower bound, or {@code null} = permanent blacklist
 * @param cooldownMax elastic: blacklist cooldown upper bound, or {@code null}
 * @param discoveryInterval elastic: the pause between two discovery runs, or {@code null} = the default (a
 *     discovery script: adaptive, 250 ms to 1 s from how long the script takes; a fixed host list: 1 s), see
 *     {@code org.troika.launcher.elastic.DiscoveryInterval}
 * @param hangTimeout no progress of a rank for this long is a hang (torn down, a failure); {@code null} = default
 *     (off for static jobs, on for elastic ones), {@link Duration#ZERO} = off
 * @param hangWarning no progress for this long prints a warning; {@code null} = default (60 s when the timeout is
 *     above 120 s, else none), {@link Duration#ZERO} = none
 * @param timeline where to write the job's timeline (Chrome trace JSON, and an HTML page beside it), or {@code null}
 * @param timelineCommand whether the timeline names the command ({@code --timeline-without-command} leaves it out)
 * @param faultTolerance what a dead rank does to an elastic generation ({@link FaultTolerance#AUTO} = shrink where
 *     the MPI supports it)
 * @param javaCds class-data sharing for {@code java} ranks ({@code --java-cds} / {@code --no-java-cds}: the ranks get
 *     {@code TROIKA_JAVA_CDS=1} / {@code 0}), or {@code null} = not given: {@code TROIKA_JAVA_CDS} as the caller's
 *     environment has it, which elastic jobs default to {@code 1}
 * @param command the user's command, untouched
 */
public record RunSettings(
        Integer np,
        List<HostSlots> hosts,
        String hostSource,
        List<String> networkInterfaces,
        Integer sshPort,
        Path sshIdentityFile,
        List<String> mpiArgs,
        List<String> bindingArgs,
        boolean tcp,
        Path outputFilename,
        boolean prefixTimestamp,
        Duration startTimeout,
        boolean verbose,
        Backend backend,
        String mpiFlavor,
        boolean dryRun,
        String remoteShell,
        LaunchAgent launchAgent,
        Path hostDiscoveryScript,
        Integer minNp,
        Integer maxNp,
        Integer slotsPerHost,
        Duration elasticTimeout,
        Integer resetLimit,
        Duration cooldownMin,
        Duration cooldownMax,
        Duration discoveryInterval,
        Duration hangTimeout,
        Duration hangWarning,
        Path timeline,
        boolean timelineCommand,
        FaultTolerance faultTolerance,
        Boolean javaCds,
        List<String> command) {

    /** Default start timeout (services and ranks). */
    public static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(30);
    /** Default elastic timeout. */
    public static final Duration DEFAULT_ELASTIC_TIMEOUT = Duration.ofSeconds(600);

    /**
     * Launcher backend choice ({@code --launcher NAME}): {@code auto} or the name of a backend. Not a closed list: the
     * name is resolved against the backends this troika has loaded (built in and from plugin jars) when the launch is
     * planned, where an unknown name is a one-line usage error listing the known ones.
     *
     * @param launcherName {@code auto}, or a backend's {@code name()} ({@code mpirun}, {@code srun}, {@code jsrun})
     */
    public record Backend(String launcherName) {
        /** Detect: the first plugin backend that claims the launch, else mpirun. */
        public static final Backend AUTO = new Backend("auto");
        /** The built-in mpirun backend ({@code --mpi}). */
        public static final Backend MPI = new Backend("mpirun");

        public Backend {
            Objects.requireNonNull(launcherName, "launcherName");
        }

        /**
         * The choice {@code --launcher value} names (lower-cased; {@link #AUTO} and {@link #MPI} are returned as
         * themselves).
         *
         * @throws org.troika.common.UsageException for a value that cannot be a backend's name
         */
        public static Backend named(String value) {
            String v = value.strip().toLowerCase(java.util.Locale.ROOT);
            if (!v.matches("[a-z0-9][a-z0-9_.-]{0,63}")) {
                throw new org.troika.common.UsageException("--launcher " + UserText.quote(value) + " is not a"
                        + " launcher name; use auto or a backend's name, e.g. mpirun, srun or jsrun");
            }
            return v.equals(AUTO.launcherName) ? AUTO : v.equals(MPI.launcherName) ? MPI : new Backend(v);
        }

        /** Whether troika chooses the backend. */
        public boolean auto() {
            return this.equals(AUTO);
        }
    }

    /** How Open MPI starts its remote daemons. */
    public enum LaunchAgent {
        /** relay through troika task services when they run, else ssh */
        AUTO,
        /** always relay through troika task services ({@code troika rsh}) */
        RELAY,
        /** plain ssh (Open MPI's default agent) */
        SSH
    }

    public RunSettings {
        hosts = List.copyOf(hosts);
        networkInterfaces = List.copyOf(networkInterfaces);
        mpiArgs = List.copyOf(mpiArgs);
        bindingArgs = List.copyOf(bindingArgs);
        command = List.copyOf(command);
        Objects.requireNonNull(startTimeout, "startTimeout");
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(launchAgent, "launchAgent");
        Objects.requireNonNull(elasticTimeout, "elasticTimeout");
        Objects.requireNonNull(faultTolerance, "faultTolerance");
    }

    /** Elastic iff a discovery script or a minimum/maximum np is given. */
    public boolean elastic() {
        return hostDiscoveryScript != null || minNp != null || maxNp != null;
    }

    public RunSettings withHosts(List<HostSlots> newHosts, String source) {
        return toBuilder().hosts(newHosts, source).build();
    }

    public RunSettings withNp(int n) {
        return toBuilder().np(n).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.np = np;
        b.hosts = new ArrayList<>(hosts);
        b.hostSource = hostSource;
        b.networkInterfaces = new ArrayList<>(networkInterfaces);
        b.sshPort = sshPort;
        b.sshIdentityFile = sshIdentityFile;
        b.mpiArgs = new ArrayList<>(mpiArgs);
        b.bindingArgs = new ArrayList<>(bindingArgs);
        b.tcp = tcp;
        b.outputFilename = outputFilename;
        b.prefixTimestamp = prefixTimestamp;
        b.startTimeout = startTimeout;
        b.verbose = verbose;
        b.backend = backend;
        b.mpiFlavor = mpiFlavor;
        b.dryRun = dryRun;
        b.remoteShell = remoteShell;
        b.launchAgent = launchAgent;
        b.hostDiscoveryScript = hostDiscoveryScript;
        b.minNp = minNp;
        b.maxNp = maxNp;
        b.slotsPerHost = slotsPerHost;
        b.elasticTimeout = elasticTimeout;
        b.resetLimit = resetLimit;
        b.cooldownMin = cooldownMin;
        b.cooldownMax = cooldownMax;
        b.discoveryInterval = discoveryInterval;
        b.hangTimeout = hangTimeout;
        b.hangWarning = hangWarning;
        b.timeline = timeline;
        b.timelineCommand = timelineCommand;
        b.faultTolerance = faultTolerance;
        b.javaCds = javaCds;
        b.command = new ArrayList<>(command);
        return b;
    }

    /** Mutable builder for {@link RunSettings}; the CLI and library APIs fill it. */
    public static final class Builder {
        private Integer np;
        private List<HostSlots> hosts = new ArrayList<>();
        private String hostSource;
        private List<String> networkInterfaces = new ArrayList<>();
        private Integer sshPort;
        private Path sshIdentityFile;
        private List<String> mpiArgs = new ArrayList<>();
        private List<String> bindingArgs = new ArrayList<>();
        private boolean tcp;
        private Path outputFilename;
        private boolean prefixTimestamp;
        private Duration startTimeout = DEFAULT_START_TIMEOUT;
        private boolean verbose;
        private Backend backend = Backend.AUTO;
        private String mpiFlavor;
        private boolean dryRun;
        private String remoteShell;
        private LaunchAgent launchAgent = LaunchAgent.AUTO;
        private Path hostDiscoveryScript;
        private Integer minNp;
        private Integer maxNp;
        private Integer slotsPerHost;
        private Duration elasticTimeout = DEFAULT_ELASTIC_TIMEOUT;
        private Integer resetLimit;
        private Duration cooldownMin;
        private Duration cooldownMax;
        private Duration discoveryInterval;
        private Duration hangTimeout;
        private Duration hangWarning;
        private Path timeline;
        private boolean timelineCommand = true;
        private FaultTolerance faultTolerance = FaultTolerance.AUTO;
        private Boolean javaCds;
        private List<String> command = new ArrayList<>();

        private Builder() {}

        public Builder np(Integer v) { np = v; return this; }
        public Builder hosts(List<HostSlots> v, String source) { hosts = new ArrayList<>(v); hostSource = source; return this; }
        public Builder networkInterfaces(List<String> v) { networkInterfaces = new ArrayList<>(v); return this; }
        public Builder sshPort(Integer v) { sshPort = v; return this; }
        public Builder sshIdentityFile(Path v) { sshIdentityFile = v; return this; }
        public Builder mpiArgs(List<String> v) { mpiArgs = new ArrayList<>(v); return this; }
        public Builder bindingArgs(List<String> v) { bindingArgs = new ArrayList<>(v); return this; }
        public Builder tcp(boolean v) { tcp = v; return this; }
        public Builder outputFilename(Path v) { outputFilename = v; return this; }
        public Builder prefixTimestamp(boolean v) { prefixTimestamp = v; return this; }
        public Builder startTimeout(Duration v) { startTimeout = v; return this; }
        public Builder verbose(boolean v) { verbose = v; return this; }
        public Builder backend(Backend v) { backend = v; return this; }
        public Builder mpiFlavor(String v) { mpiFlavor = v; return this; }
        public Builder dryRun(boolean v) { dryRun = v; return this; }
        public Builder remoteShell(String v) { remoteShell = v; return this; }
        public Builder launchAgent(LaunchAgent v) { launchAgent = v; return this; }
        public Builder hostDiscoveryScript(Path v) { hostDiscoveryScript = v; return this; }
        public Builder minNp(Integer v) { minNp = v; return this; }
        public Builder maxNp(Integer v) { maxNp = v; return this; }
        public Builder slotsPerHost(Integer v) { slotsPerHost = v; return this; }
        public Builder elasticTimeout(Duration v) { elasticTimeout = v; return this; }
        public Builder resetLimit(Integer v) { resetLimit = v; return this; }
        public Builder cooldown(Duration min, Duration max) { cooldownMin = min; cooldownMax = max; return this; }
        public Builder discoveryInterval(Duration v) { discoveryInterval = v; return this; }
        public Builder hangTimeout(Duration v) { hangTimeout = v; return this; }
        public Builder hangWarning(Duration v) { hangWarning = v; return this; }
        public Builder timeline(Path v) { timeline = v; return this; }
        public Builder timelineCommand(boolean v) { timelineCommand = v; return this; }
        public Builder faultTolerance(FaultTolerance v) { faultTolerance = v; return this; }
        public Builder javaCds(Boolean v) { javaCds = v; return this; }
        public Builder command(List<String> v) { command = new ArrayList<>(v); return this; }

        public RunSettings build() {
            return new RunSettings(np, hosts, hostSource, networkInterfaces, sshPort, sshIdentityFile, mpiArgs,
                    bindingArgs, tcp, outputFilename, prefixTimestamp, startTimeout, verbose, backend, mpiFlavor,
                    dryRun, remoteShell, launchAgent, hostDiscoveryScript, minNp, maxNp, slotsPerHost,
                    elasticTimeout, resetLimit, cooldownMin, cooldownMax, discoveryInterval, hangTimeout, hangWarning,
                    timeline, timelineCommand, faultTolerance, javaCds, command);
        }
    }
}
