package org.troika.launcher.spi;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import org.troika.common.UsageException;

/**
 * Everything a launch needs, from the CLI (or a library API) down: immutable, in groups that check themselves. Each
 * group's compact constructor holds its rules (a bad value is a {@link UsageException} naming the flag and the fix), so
 * every caller (the CLI, Spark, tests) gets the same checks; only rules across groups live here. A copy with other
 * values is made with {@link #with(Group)} or {@link #with(Setting, Object)}, which rebuild each record through its
 * constructor: nothing is dropped and nothing skips a check.
 *
 * <p>Nullable components mean "not given": the planner applies the documented default. The option table
 * ({@code org.troika.launcher.options.RunOptionTable}) says which flag lands where.
 *
 * @param hosts how many processes on which given hosts
 * @param remote how hosts are reached
 * @param launcher what starts the ranks and how
 * @param output where output goes besides the console
 * @param elastic the limits of an elastic job ({@link Elastic#NONE} for a static one)
 * @param timeouts start and hang timeouts
 * @param verbose log what is chosen and why; show stack traces
 * @param dryRun print the plan and exit without running anything
 * @param command the user's command, untouched
 */
public record RunSettings(Hosts hosts, Remote remote, Launcher launcher, Output output, Elastic elastic,
        Timeouts timeouts, boolean verbose, boolean dryRun, List<String> command) {

    /** One of the groups of {@link RunSettings}. */
    public sealed interface Group permits Hosts, Remote, Launcher, Output, Elastic, Timeouts {}

    public RunSettings {
        Objects.requireNonNull(hosts, "hosts");
        Objects.requireNonNull(remote, "remote");
        Objects.requireNonNull(launcher, "launcher");
        Objects.requireNonNull(output, "output");
        Objects.requireNonNull(elastic, "elastic");
        Objects.requireNonNull(timeouts, "timeouts");
        command = List.copyOf(command);
        if (hosts.np() != null && elastic.maxNp() != null && hosts.np() > elastic.maxNp()) {
            throw new UsageException("-np " + hosts.np() + " is above --max-np " + elastic.maxNp()
                    + "; lower -np or raise --max-np");
        }
    }

    /** The defaults for {@code command}: nothing given. */
    public static RunSettings of(List<String> command) {
        return new RunSettings(Hosts.NONE, Remote.DEFAULT, Launcher.DEFAULT, Output.DEFAULT, Elastic.NONE,
                Timeouts.DEFAULT, false, false, command);
    }

    /** A copy with {@code group} in place of this one's group of its type. */
    public RunSettings with(Group group) {
        return SettingPath.of(group.getClass()).set(this, group);
    }

    /** A copy with {@code command} as the user's command. */
    public RunSettings withCommand(List<String> command) {
        return SettingPath.of("command").set(this, command);
    }

    /** A copy with {@code setting} (an option of the table, say) set to {@code value}. */
    public <T> RunSettings with(Setting<T> setting, T value) {
        return setting.set(this, value);
    }

    /**
     * How many processes on which given hosts.
     *
     * @param np number of processes, or {@code null} (default: all slots of the allocation / hosts, else 1)
     * @param list explicit hosts from {@code -H} or a hostfile, in order; empty when none were given
     * @param source where {@code list} came from ({@code "-H"}, {@code "hostfile PATH"}), or {@code null}
     */
    public record Hosts(Integer np, List<HostSlots> list, String source) implements Group {
        /** Nothing given. */
        public static final Hosts NONE = new Hosts(null, List.of(), null);

        public Hosts {
            list = List.copyOf(list);
            Checks.ranks(np, "-np");
            if (np != null && !list.isEmpty()) {
                long slots = list.stream().mapToLong(HostSlots::slots).sum();
                if (np > slots) {
                    throw new UsageException("-np " + np + " is more than the " + slots + " slots of " + source
                            + "; lower -np or add hosts/slots");
                }
            }
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

    /**
     * How hosts are reached.
     *
     * @param networkInterfaces NICs to use (names or CIDR subnets), each once; empty = default / detection
     * @param sshPort ssh port, or {@code null}
     * @param sshIdentityFile ssh identity file, or {@code null}
     * @param shell how task services are started on hosts ({@code ssh}, {@code blaunch}, {@code srun}, or a template
     *     with {@code {host}}), or {@code null} = default
     * @param launchAgent how Open MPI starts its daemons
     */
    public record Remote(List<String> networkInterfaces, Integer sshPort, Path sshIdentityFile, String shell,
            LaunchAgent launchAgent) implements Group {
        /** Nothing given. */
        public static final Remote DEFAULT = new Remote(List.of(), null, null, null, LaunchAgent.AUTO);
        private static final Pattern NIC_NAME = Pattern.compile("[A-Za-z0-9_.@-]+");
        private static final Pattern IPV4_CIDR = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}/\\d{1,2}");

        /** Whether {@code nic} is an IPv4 subnet ({@code 10.1.0.0/16}) rather than an interface name. */
        public static boolean isSubnet(String nic) {
            return IPV4_CIDR.matcher(nic).matches();
        }

        public Remote {
            networkInterfaces = List.copyOf(networkInterfaces);
            Objects.requireNonNull(launchAgent, "launchAgent");
            for (String nic : networkInterfaces) {
                if (!NIC_NAME.matcher(nic).matches() && !isSubnet(nic)) {
                    throw new UsageException("bad network interface " + UserText.quote(nic) + ": give interface names"
                            + " (eth0) or IPv4 subnets (10.1.0.0/16), comma-separated");
                }
            }
            if (new HashSet<>(networkInterfaces).size() != networkInterfaces.size()) {
                throw new UsageException("a network interface is named twice in " + networkInterfaces
                        + "; name each once");
            }
            if (sshPort != null && (sshPort < 1 || sshPort > 65535)) {
                throw new UsageException("--ssh-port " + sshPort + " is not a TCP port; use 1-65535");
            }
            if (shell != null && shell.isBlank()) {
                throw new UsageException("--remote-shell is empty; use ssh, blaunch, srun or a template with {host}");
            }
        }
    }

    /**
     * Launcher backend choice ({@code --launcher NAME}): {@code auto} or the name of a backend. Not a closed list: the
     * name is resolved against the backends this troika has loaded (built in and from plugin jars) when the launch is
     * planned, where an unknown name is a one-line usage error listing the known ones.
     *
     * @param launcherName {@code auto}, or a backend's {@code name()} ({@code mpirun}, {@code srun}, {@code jsrun})
     */
    public record Backend(String launcherName) {
        private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_.-]{0,63}");
        /** Detect: the first plugin backend that claims the launch, else mpirun. */
        public static final Backend AUTO = new Backend("auto");
        /** The built-in mpirun backend ({@code --mpi}). */
        public static final Backend MPI = new Backend("mpirun");

        public Backend {
            Objects.requireNonNull(launcherName, "launcherName");
            check(launcherName, launcherName);
        }

        /**
         * Written out: a record's generated {@code equals} makes its first caller set up method handles (~20 ms of
         * every {@code troika run}'s start, which compares the backend once).
         */
        @Override
        public boolean equals(Object o) {
            return o instanceof Backend b && b.launcherName.equals(launcherName);
        }

        @Override
        public int hashCode() {
            return launcherName.hashCode();
        }

        private static void check(String name, String given) {
            if (!NAME.matcher(name).matches()) {
                throw new UsageException("--launcher " + UserText.quote(given) + " is not a launcher name; use auto or"
                        + " a backend's name, e.g. mpirun, srun or jsrun");
            }
        }

        /**
         * The choice {@code --launcher value} names (lower-cased; {@link #AUTO} and {@link #MPI} are returned as
         * themselves).
         *
         * @throws UsageException for a value that cannot be a backend's name
         */
        public static Backend named(String value) {
            String v = value.strip().toLowerCase(Locale.ROOT);
            check(v, value);
            return v.equals(AUTO.launcherName) ? AUTO : v.equals(MPI.launcherName) ? MPI : new Backend(v);
        }

        /** Whether troika chooses the backend. */
        public boolean auto() {
            return this.equals(AUTO);
        }
    }

    /**
     * What starts the ranks, and how.
     *
     * @param backend which launcher to plan ({@link Backend#AUTO} = detect)
     * @param mpiFlavor flavour override (one of {@link #FLAVORS}), or {@code null} = detect
     * @param mpiArgs extra arguments for the MPI launcher, appended verbatim before the command
     * @param bindingArgs binding/mapping arguments that replace the flavour's default, empty = default
     * @param tcp force TCP (no InfiniBand): sets {@code NCCL_IB_DISABLE=1}, {@code -tcp} for Spectrum MPI
     * @param javaCds class-data sharing for {@code java} ranks ({@code TROIKA_JAVA_CDS=1} / {@code 0}), or
     *     {@code null} = not given: {@code TROIKA_JAVA_CDS} as the caller's environment has it, which elastic jobs
     *     default to {@code 1}
     * @param faultTolerance what a dead rank does to an elastic generation ({@link FaultTolerance#AUTO} = shrink
     *     where the MPI supports it)
     */
    public record Launcher(Backend backend, String mpiFlavor, List<String> mpiArgs, List<String> bindingArgs,
            boolean tcp, Boolean javaCds, FaultTolerance faultTolerance) implements Group {
        /** The flavour names {@code --mpi-flavor} takes. */
        public static final List<String> FLAVORS = List.of("openmpi", "openmpi5", "spectrum", "mpich", "intel");
        /** Nothing given. */
        public static final Launcher DEFAULT = new Launcher(Backend.AUTO, null, List.of(), List.of(), false, null,
                FaultTolerance.AUTO);

        public Launcher {
            Objects.requireNonNull(backend, "backend");
            Objects.requireNonNull(faultTolerance, "faultTolerance");
            mpiArgs = List.copyOf(mpiArgs);
            bindingArgs = List.copyOf(bindingArgs);
            if (mpiFlavor != null && !FLAVORS.contains(mpiFlavor)) {
                throw new UsageException("--mpi-flavor " + UserText.quote(mpiFlavor) + " is not known; use "
                        + String.join(", ", FLAVORS.subList(0,
                                FLAVORS.size() - 1)) + " or " + FLAVORS.get(FLAVORS.size() - 1));
            }
        }
    }

    /**
     * Where output goes besides the console.
     *
     * @param dir directory for per-rank output files, or {@code null}
     * @param prefixTimestamp prefix output lines with a timestamp
     * @param timeline where to write the job's timeline (Chrome trace JSON, and an HTML page beside it), or
     *     {@code null}
     * @param timelineCommand whether the timeline names the command ({@code --timeline-without-command} leaves it out)
     */
    public record Output(Path dir, boolean prefixTimestamp, Path timeline, boolean timelineCommand) implements Group {
        /** Nothing given. */
        public static final Output DEFAULT = new Output(null, false, null, true);

        public Output {
            if (dir != null && dir.toString().isBlank()) {
                throw new UsageException("--output-filename is empty; give a directory");
            }
        }
    }

    /**
     * A failed host's blacklist cooldown range ({@code --blacklist-cooldown-range MIN MAX}).
     *
     * @throws UsageException unless both are given and 1 s ≤ min ≤ max ≤ 3600 s
     */
    public record Cooldown(Duration min, Duration max) {
        public Cooldown {
            if (min == null || max == null) {
                throw new UsageException("--blacklist-cooldown-range needs both MIN and MAX seconds");
            }
            if (min.compareTo(Duration.ofSeconds(1)) < 0 || max.compareTo(Duration.ofHours(1)) > 0
                    || min.compareTo(max) > 0) {
                throw new UsageException("--blacklist-cooldown-range " + min.toSeconds() + " " + max.toSeconds()
                        + " is invalid; give MIN MAX in seconds with 1 <= MIN <= MAX <= 3600");
            }
        }
    }

    /**
     * The limits of an elastic job. It is elastic iff a discovery script or a minimum/maximum np is given
     * ({@link #enabled()}).
     *
     * @param discoveryScript executable printing {@code host[:slots]} lines, or {@code null}
     * @param minNp minimum processes, or {@code null}
     * @param maxNp maximum processes, or {@code null}
     * @param slotsPerHost slots for discovered hosts without a count, or {@code null}
     * @param timeout how long to wait for min-np slots, or {@code null} = {@link #DEFAULT_TIMEOUT}
     * @param resetLimit maximum resets, or {@code null} = unlimited
     * @param cooldown the blacklist cooldown range, or {@code null} = permanent blacklist
     * @param discoveryInterval the pause between two discovery runs, at least {@link #MIN_DISCOVERY_INTERVAL}, or
     *     {@code null} = the default (a discovery script: adaptive, 250 ms to 1 s from the CPU and time its runs take; a
     *     fixed host list: 1 s), see {@code org.troika.launcher.elastic.DiscoveryInterval}
     * @param standbyRanks how many ranks a generation that can grow in place starts on each standby host, which wait
     *     outside the world until a growth activates them ({@code --standby-ranks N}); {@code null} = none
     */
    public record Elastic(Path discoveryScript, Integer minNp, Integer maxNp, Integer slotsPerHost, Duration timeout,
            Integer resetLimit, Cooldown cooldown, Duration discoveryInterval, Integer standbyRanks) implements Group {
        /** A static job. */
        public static final Elastic NONE = new Elastic(null, null, null, null, null, null, null, null, null);
        /** Default elastic timeout. */
        public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(600);
        /** The shortest discovery interval that may be given. */
        public static final Duration MIN_DISCOVERY_INTERVAL = Duration.ofMillis(50);

        public Elastic {
            Checks.ranks(minNp, "--min-np");
            Checks.ranks(maxNp, "--max-np");
            Checks.ranks(slotsPerHost, "--slots-per-host");
            Checks.ranks(standbyRanks, "--standby-ranks");
            if (minNp != null && maxNp != null && minNp > maxNp) {
                throw new UsageException("--min-np " + minNp + " is above --max-np " + maxNp
                        + "; make min-np <= max-np");
            }
            if (resetLimit != null && resetLimit < 0) {
                throw new UsageException("--reset-limit must be 0 or more, got " + resetLimit);
            }
            Checks.positive(timeout, "--elastic-timeout");
            if (discoveryInterval != null && discoveryInterval.compareTo(MIN_DISCOVERY_INTERVAL) < 0) {
                throw new UsageException("--discovery-interval " + Checks.seconds(discoveryInterval)
                        + " is too short; give at least " + Checks.seconds(MIN_DISCOVERY_INTERVAL) + " seconds");
            }
        }

        /** Whether the job is elastic: a discovery script or a minimum/maximum np is given. */
        public boolean enabled() {
            return discoveryScript != null || minNp != null || maxNp != null;
        }

        /**
         * How many waiting ranks each standby host gets where the generation can grow in place ({@code --standby-ranks
         * N}); 0 = none.
         */
        public int standbyRanksPerHost() {
            return standbyRanks == null ? 0 : standbyRanks;
        }

        /** {@link #timeout()}, else {@link #DEFAULT_TIMEOUT}. */
        public Duration timeoutOrDefault() {
            return timeout != null ? timeout : DEFAULT_TIMEOUT;
        }
    }

    /**
     * How long things may take.
     *
     * @param start how long services and ranks may take to start; {@code null} = the default, which grows with the
     *     host count ({@link #startFor})
     * @param hang no progress of a rank for this long is a hang (torn down, a failure); {@code null} = default (off
     *     for static jobs, on for elastic ones), {@link Duration#ZERO} = off
     * @param hangWarning no progress for this long prints a warning; {@code null} = default (60 s when the timeout is
     *     above 120 s, else none), {@link Duration#ZERO} = none
     */
    public record Timeouts(Duration start, Duration hang, Duration hangWarning) implements Group {
        /** Default start timeout (services and ranks) up to {@link #DEFAULT_START_HOSTS} hosts. */
        public static final Duration DEFAULT_START = Duration.ofSeconds(30);
        /** Hosts the default start timeout covers before it grows. */
        public static final int DEFAULT_START_HOSTS = 1_000;
        /**
         * What the default start timeout grows by for each host beyond {@link #DEFAULT_START_HOSTS}: 120 s at 10,000
         * hosts. Flux's flat rsh start of 800 nodes took 6 s (7.5 ms a node, REFERENCE.md); troika's driver registers
         * 10,000 simulated task services in 1.85-2.78 s (docs/launch-agent.md), so 10 ms a host leaves room for a
         * launch node that starts every service itself.
         */
        public static final Duration DEFAULT_START_PER_HOST = Duration.ofMillis(10);
        /** Nothing given. */
        public static final Timeouts DEFAULT = new Timeouts(null, null, null);

        public Timeouts {
            if (start != null) {
                Checks.positive(start, "--start-timeout");
            }
            if (hang != null && hang.isNegative()) {
                throw new UsageException("--hang-timeout must be 0 or more seconds");
            }
            if (hangWarning != null && hangWarning.isNegative()) {
                throw new UsageException("--hang-warning must be 0 or more seconds");
            }
        }

        /**
         * The start timeout of a launch over {@code hosts} hosts (pure): {@code --start-timeout} when given, else
         * {@link #DEFAULT_START}, plus {@link #DEFAULT_START_PER_HOST} for each host beyond {@link #DEFAULT_START_HOSTS}.
         */
        public Duration startFor(int hosts) {
            if (start != null) {
                return start;
            }
            return DEFAULT_START.plus(DEFAULT_START_PER_HOST.multipliedBy(Math.max(0, hosts - DEFAULT_START_HOSTS)));
        }
    }

    /** The rules several groups share. */
    private static final class Checks {
        private Checks() {}

        /** A count of ranks or slots: 1 to {@link HostCheck#MAX_RANKS}, or {@code null}. */
        static void ranks(Integer v, String flag) {
            if (v == null) {
                return;
            }
            if (v < 1) {
                throw new UsageException(flag + " must be at least 1, got " + v);
            }
            if (v > HostCheck.MAX_RANKS) {
                throw new UsageException(flag + " " + v + " is more than troika's limit of " + HostCheck.MAX_RANKS
                        + " ranks");
            }
        }

        /** More than zero (the command line gives whole seconds; a library may give less), or {@code null}. */
        static void positive(Duration d, String flag) {
            if (d != null && (d.isZero() || d.isNegative())) {
                throw new UsageException(flag + " must be more than 0 seconds, got " + seconds(d));
            }
        }

        /** {@code d} in seconds as written: {@code 2}, {@code 0.25}. */
        static String seconds(Duration d) {
            return BigDecimal.valueOf(d.toMillis()).movePointLeft(3).stripTrailingZeros().toPlainString();
        }
    }
}
