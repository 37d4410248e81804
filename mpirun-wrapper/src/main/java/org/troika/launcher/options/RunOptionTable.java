package org.troika.launcher.options;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.troika.launcher.spi.FaultTolerance;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.SettingPath;

/**
 * The options of {@code troika run} (and {@code troika hosts}, which shares the host options), one row each, in the
 * order of {@code --help} and the README. Flag names follow horovodrun so existing scripts carry over. A new option
 * is a row here (names, argument, help, parser, where it lands) plus the code that uses the value.
 */
public final class RunOptionTable {
    private RunOptionTable() {}

    /** The rows as they are written below. */
    private static final List<RunOption<?>> ROWS = new ArrayList<>();

    private static final SettingPath HOST_LIST = SettingPath.of("hosts.list");
    private static final SettingPath HOST_SOURCE = SettingPath.of("hosts.source");

    /** {@code -H} and {@code --hostfile}: the hosts and where they came from ({@code -np} stays). */
    private static RunSettings landHosts(RunSettings s, RunSettings.Hosts h) {
        return HOST_LIST.set(HOST_SOURCE.set(s, h.source()), h.list());
    }

    private static RunOption.Draft named(String... names) {
        return RunOption.named(names).in(ROWS);
    }

    // hosts and processes
    public static final RunOption<Integer> NP = named("-np", "--num-proc").arg("N")
            .help("number of processes (default: all slots of -H/--hostfile or the batch allocation)")
            .doc("number of processes")
            .parsedBy(ValueParsers::whole).into("hosts.np");
    public static final RunOption<RunSettings.Hosts> HOSTS = named("-H", "--hosts").arg("LIST")
            .help("hosts and slots: host1:4,host2:4 (default: localhost:<np>, or the batch allocation)")
            .doc("hosts and slots, `h1:4,h2:4` (each host once; `host:slots`, slots ≥ 1)")
            .parsedBy(ValueParsers::hostList).landsBy(RunOptionTable::landHosts, "hosts.list");
    public static final RunOption<RunSettings.Hosts> HOSTFILE = named("-hostfile", "--hostfile").arg("FILE")
            .help("hostfile with lines 'host slots=N [max_slots=M]', # comments allowed")
            .doc("lines `host slots=N [max_slots=M]`; `#` comments and blank lines allowed; a host without `slots=`"
                    + " has 1; duplicates rejected")
            .parsedBy(ValueParsers::hostfile).landsBy(RunOptionTable::landHosts, "hosts.list");
    // network and ssh
    public static final RunOption<List<String>> NETWORK_INTERFACES = named("--network-interfaces").arg("A,B")
            .help("network interfaces or CIDR subnets to use, comma-separated")
            .doc("interfaces or CIDR subnets for MPI traffic and daemon wire-up (`btl_tcp_if_include` and"
                    + " `oob_tcp_if_include`), and `NCCL_SOCKET_IFNAME`; each named once")
            .adds().parsedBy(ValueParsers::commaList).into("remote.networkInterfaces");
    public static final RunOption<List<String>> NETWORK_INTERFACE = named("--network-interface").arg("NIC")
            .help("one network interface or subnet; repeatable")
            .doc("one interface or subnet, added to `--network-interfaces`; repeatable")
            .repeatable().adds().parsedBy(ValueParsers::commaList).into("remote.networkInterfaces");
    public static final RunOption<Integer> SSH_PORT = named("--ssh-port", "-p").arg("PORT")
            .help("ssh port on the hosts")
            .parsedBy(ValueParsers::whole).into("remote.sshPort");
    public static final RunOption<Path> SSH_IDENTITY_FILE = named("--ssh-identity-file", "-i").arg("FILE")
            .help("ssh identity (private key) file")
            .parsedBy(ValueParsers::readableFile).into("remote.sshIdentityFile");
    public static final RunOption<String> REMOTE_SHELL = named("--remote-shell").arg("CMD")
            .help("how to start troika task services on a host: ssh (default), blaunch, srun, or a template with"
                    + " {host}, e.g. 'ip netns exec ns-{host}'")
            .doc("how troika task services are started on hosts: `ssh` (default outside an allocation), `blaunch`,"
                    + " `srun` (the default inside LSF / Slurm), or a template with `{host}`, split like a shell"
                    + " command line (quotes honoured)")
            .parsedBy(ValueParsers::trimmed).into("remote.shell");
    public static final RunOption<RunSettings.LaunchAgent> LAUNCH_AGENT = named("--launch-agent").arg("MODE")
            .help("how Open MPI starts its daemons: relay (through troika task services) or ssh")
            .doc("how Open MPI starts its remote daemons: `relay` through troika's task services, or plain `ssh`")
            .parsedBy(ValueParsers::launchAgent).into("remote.launchAgent");
    // MPI
    public static final RunOption<List<String>> MPI_ARGS = named("--mpi-args").arg("ARGS")
            .help("extra arguments for mpirun/srun/jsrun, shell-quoted in one string")
            .doc("extra arguments for mpirun/srun/jsrun (shell-quoted in one string), appended before the command")
            .parsedBy(ValueParsers::words).into("launcher.mpiArgs");
    public static final RunOption<List<String>> BINDING_ARGS = named("--binding-args").arg("ARGS")
            .help("binding/mapping arguments replacing the default (e.g. '--bind-to core')")
            .doc("binding/mapping arguments replacing troika's default (`--bind-to none --map-by slot` for Open MPI,"
                    + " `--cpu-bind=none` for srun)")
            .parsedBy(ValueParsers::words).into("launcher.bindingArgs");
    public static final RunOption<Boolean> TCP = named("--tcp")
            .help("use TCP only (no InfiniBand): NCCL_IB_DISABLE=1, -tcp for Spectrum MPI")
            .doc("TCP only: `NCCL_IB_DISABLE=1`, and `-tcp` for Spectrum MPI")
            .sets(true).into("launcher.tcp");
    public static final RunOption<RunSettings.Backend> LAUNCHER = named("--launcher").arg("NAME")
            .help("what starts the ranks: auto (default: srun inside Slurm, jsrun inside LSF with Spectrum MPI, where"
                    + " they work; else mpirun), mpirun, srun or jsrun")
            .doc("what starts the ranks: `auto`, `mpirun`, `srun` or `jsrun`. `auto` (default): `srun` direct launch"
                    + " inside a Slurm job (Open MPI or MPICH, `srun` on PATH, no mpirun-only option given), `jsrun`"
                    + " inside LSF with Spectrum MPI and `jsrun` on PATH, else `mpirun`; `--verbose` says why")
            .parsedBy(ValueParsers::backend).into("launcher.backend");
    public static final RunOption<RunSettings.Backend> MPI = named("--mpi")
            .help("same as --launcher mpirun")
            .doc("same as `--launcher mpirun`")
            .sets(RunSettings.Backend.MPI).into("launcher.backend");
    public static final RunOption<RunSettings.Backend> JSRUN = named("--jsrun")
            .help("same as --launcher jsrun")
            .doc("same as `--launcher jsrun`")
            .sets(RunSettings.Backend.named("jsrun")).into("launcher.backend");
    public static final RunOption<String> MPI_FLAVOR = named("--mpi-flavor").arg("NAME")
            .help("override MPI detection: openmpi, openmpi5, spectrum, mpich or intel")
            .doc("skip detection from `mpirun --version`: `openmpi`, `openmpi5`, `spectrum`, `mpich` or `intel`")
            .parsedBy(ValueParsers::lowerCase).into("launcher.mpiFlavor");
    // ranks
    public static final RunOption<Boolean> JAVA_CDS = named("--java-cds")
            .help("java ranks map a class-data-sharing archive of the classes they load, recorded on each host by"
                    + " the first run (TROIKA_JAVA_CDS=1; the default for elastic jobs)")
            .doc("class-data sharing for `java` ranks: each host records an archive of the classes the command loads"
                    + " on its first run and later runs map it (ranks get `TROIKA_JAVA_CDS=1`). Default: the caller's"
                    + " `TROIKA_JAVA_CDS`, on for elastic jobs. Works where ranks start through `bin/troika-rankenv`"
                    + " (mpirun, srun); jsrun warns and ignores it. See"
                    + " [docs/native-mpi.md](docs/native-mpi.md#start-up-class-data-sharing-and-more-for-java-ranks-troika_java_cds1)")
            .sets(true).into("launcher.javaCds");
    public static final RunOption<Boolean> NO_JAVA_CDS = named("--no-java-cds")
            .help("no class-data sharing for java ranks, elastic jobs included (TROIKA_JAVA_CDS=0)")
            .doc("no class-data sharing for `java` ranks, elastic jobs included (`TROIKA_JAVA_CDS=0`)")
            .sets(false).into("launcher.javaCds");
    // output and timing
    public static final RunOption<Path> OUTPUT_FILENAME = named("--output-filename").arg("DIR")
            .help("also write each rank's output to files under DIR")
            .doc("also write each rank's output to `DIR/rank.N.stdout` and `DIR/rank.N.stderr` (every rank gets both,"
                    + " same layout on every MPI; troika writes them from the tagged output,"
                    + " [docs/mpirun-flags.md](docs/mpirun-flags.md))")
            .parsedBy(ValueParsers::path).into("output.dir");
    public static final RunOption<Boolean> PREFIX_TIMESTAMP = named("-prefix-timestamp",
                    "--prefix-output-with-timestamp")
            .help("prefix output lines with a timestamp")
            .doc("timestamp every output line")
            .sets(true).into("output.prefixTimestamp");
    public static final RunOption<Duration> START_TIMEOUT = named("--start-timeout").arg("SECONDS")
            .help("how long hosts and services may take to start (default 30, plus 10 ms a host beyond 1000)")
            .parsedBy(ValueParsers::seconds).into("timeouts.start");
    // elastic
    public static final RunOption<Path> HOST_DISCOVERY_SCRIPT = named("--host-discovery-script").arg("FILE")
            .help("elastic: executable printing one 'host[:slots]' per line ('host:0': a standby host)")
            .doc("elastic jobs: generations of mpirun over the hosts an executable prints, one `host[:slots]` per"
                    + " line (`host:0`: a standby host, its task service kept ready, no ranks); blacklist with"
                    + " cooldown, committed state; see [docs/elastic.md](docs/elastic.md)")
            .choice("hosts.list").parsedBy(ValueParsers::executable).into("elastic.discoveryScript");
    public static final RunOption<Integer> MIN_NP = named("--min-np").arg("N")
            .help("elastic: minimum number of processes")
            .parsedBy(ValueParsers::whole).into("elastic.minNp");
    public static final RunOption<Integer> MAX_NP = named("--max-np").arg("N")
            .help("elastic: maximum number of processes")
            .parsedBy(ValueParsers::whole).into("elastic.maxNp");
    public static final RunOption<Integer> SLOTS_PER_HOST = named("--slots-per-host").arg("N")
            .help("elastic: slots of discovered hosts that give no count")
            .elasticOnly().parsedBy(ValueParsers::whole).into("elastic.slotsPerHost");
    public static final RunOption<Duration> ELASTIC_TIMEOUT = named("--elastic-timeout").arg("SECONDS")
            .help("elastic: how long to wait for --min-np slots (default 600)")
            .elasticOnly().parsedBy(ValueParsers::seconds).into("elastic.timeout");
    public static final RunOption<Integer> RESET_LIMIT = named("--reset-limit").arg("N")
            .help("elastic: stop after N resets (default unlimited)")
            .elasticOnly().parsedBy(ValueParsers::whole).into("elastic.resetLimit");
    public static final RunOption<RunSettings.Cooldown> BLACKLIST_COOLDOWN_RANGE = named("--blacklist-cooldown-range")
            .arg("MIN MAX")
            .help("elastic: a failed host is retried after a cooldown between MIN and MAX seconds (default: never)")
            .elasticOnly().parsedBy(ValueParsers::cooldown).into("elastic.cooldown");
    public static final RunOption<Duration> DISCOVERY_INTERVAL = named("--discovery-interval").arg("SECONDS")
            .help("elastic: pause between two discovery runs, e.g. 0.25 (at least 0.05; default: 20 x the CPU of the"
                    + " script's runs and at least 3 x their time, from 0.25 to 1 s; 1 s with -H)")
            .doc("elastic: pause between two discovery runs in decimal seconds (`0.25`, at least `0.05`); by default"
                    + " a discovery script runs again 20 × the CPU its run used and at least 3 × its run time (the"
                    + " shortest such pause of the last 8 runs) after it ended, from 250 ms to 1 s (a fixed `-H`"
                    + " list: 1 s)")
            .elasticOnly().parsedBy(ValueParsers::decimalSeconds).into("elastic.discoveryInterval");
    public static final RunOption<Integer> STANDBY_RANKS = named("--standby-ranks").arg("N")
            .help("elastic, Open MPI 5: start N ranks on each standby host (discovery's host:0) that wait outside the"
                    + " world, so a growth onto the host by up to N slots only merges them (the program must build"
                    + " its world with ElasticWorld.of)")
            .doc("elastic, where a generation grows in place (Open MPI 5, `--fault-tolerance shrink`): every standby host"
                    + " (discovery's `host:0`) whose task service is up at a launch gets N ranks that wait, asleep,"
                    + " outside the world; a growth onto that host by up to N slots activates them (a merge, no"
                    + " process, JVM or MPI start), slots beyond N get ranks spawned beside them. Only for programs that build their world"
                    + " with `ElasticWorld.of` (it keeps those ranks out of the world); see"
                    + " [docs/elastic.md](docs/elastic.md#standby-ranks---standby-ranks-n)")
            .elasticOnly().parsedBy(ValueParsers::whole).into("elastic.standbyRanks");
    public static final RunOption<FaultTolerance> FAULT_TOLERANCE = named("--fault-tolerance").arg("MODE")
            .help("elastic: relaunch (a dead rank ends the generation), shrink (the survivors go on: Open MPI 5,"
                    + " --with-ft ulfm) or auto (shrink where the MPI supports it; default)")
            .doc("elastic: what a dead rank does. `relaunch` ends the generation and starts the next; `shrink` runs"
                    + " `mpirun --with-ft ulfm` (Open MPI 5+, with ULFM's failure detector on) and the survivors go on"
                    + " in the same processes (`ElasticWorld`), below `--min-np` a relaunch; `auto` (default) = shrink"
                    + " on Open MPI 5+, else relaunch")
            .elasticOnly().parsedBy(ValueParsers::faultTolerance).into("launcher.faultTolerance");
    // operability (docs/operability.md)
    public static final RunOption<Duration> HANG_TIMEOUT = named("--hang-timeout").arg("SECONDS")
            .help("end the job (static: exit 124; elastic: next generation) when a rank makes no progress for"
                    + " SECONDS; 0 = off (default: off, 300 for elastic jobs; env TROIKA_HANG_TIMEOUT)")
            .doc("hang watchdog: a rank that makes no progress for SECONDS (or all ranks stuck in a collective) is"
                    + " named and the job torn down (static: exit 124; elastic: next generation); 0 = off; default off,"
                    + " 300 for elastic jobs; env `TROIKA_HANG_TIMEOUT`. See [docs/operability.md](docs/operability.md)")
            .parsedBy(ValueParsers::seconds).into("timeouts.hang");
    public static final RunOption<Duration> HANG_WARNING = named("--hang-warning").arg("SECONDS")
            .help("warn when a rank makes no progress for SECONDS (default: 60 when the hang timeout is above 120,"
                    + " else none; 0 = none)")
            .doc("print the hang report as a warning after SECONDS without progress (default 60 when the timeout is"
                    + " above 120; 0 = none)")
            .parsedBy(ValueParsers::seconds).into("timeouts.hangWarning");
    public static final RunOption<Path> TIMELINE = named("--timeline").arg("FILE")
            .help("write the job's timeline to FILE (Chrome trace JSON, opens in Perfetto) and FILE.html (one row per"
                    + " host); elastic jobs keep DIR/timeline.json with --output-filename DIR")
            .doc("write the job's timeline: FILE as Chrome trace JSON (Perfetto, chrome://tracing) and FILE's `.html`"
                    + " page; elastic jobs keep `DIR/timeline.json` with `--output-filename DIR`. The files get your"
                    + " umask's mode and name the command with its arguments")
            .parsedBy(ValueParsers::timeline).into("output.timeline");
    // general
    public static final RunOption<Boolean> TIMELINE_WITHOUT_COMMAND = named("--timeline-without-command")
            .help("the timeline names the job 'troika run' only, not its command and arguments (which may hold"
                    + " secrets)")
            .doc("the timeline names the job `troika run` only, without the command and its arguments (which may"
                    + " hold a secret such as `--api-key=...`)")
            .sets(false).into("output.timelineCommand");
    public static final RunOption<Void> CONFIG_FILE = named("--config-file").arg("FILE")
            .help("Horovod's YAML config file (params, timeline, stall_check, library_options, logging); flags given"
                    + " here win over it")
            .doc("Horovod's YAML config file (`horovodrun --config-file`), mapped as below; flags on the command line"
                    + " win")
            .readElsewhere();
    public static final RunOption<Boolean> DRY_RUN = named("--dry-run")
            .help("print the planned command on one line and exit without running anything")
            .doc("print the planned command, shell-quoted, on one line; run nothing")
            .sets(true).into("dryRun");
    public static final RunOption<Boolean> VERBOSE = named("--verbose")
            .help("explain what was chosen and why; show stack traces")
            .doc("explain what was chosen and why; stack traces on errors")
            .sets(true).into("verbose");
    public static final RunOption<Void> HELP = named("-h", "--help")
            .help("show this help")
            .readElsewhere();

    /** Every row, in the order written. */
    public static final List<RunOption<?>> ALL = List.copyOf(ROWS);

    /**
     * The README's flag table (Markdown, one line each): a header and one row per option, its names with the argument
     * and its {@link RunOption#doc()}. {@code RunOptionTableTest} keeps the README equal to it.
     */
    public static List<String> markdown() {
        List<String> lines = new ArrayList<>(List.of("| flag | meaning |", "|---|---|"));
        for (RunOption<?> row : ALL) {
            List<String> names = new ArrayList<>();
            for (String name : row.names()) {
                names.add("`" + (row.arg() == null ? name : name + " " + row.arg()) + "`");
            }
            lines.add("| " + String.join(", ", names) + " | " + row.doc().replace("|", "\\|") + " |");
        }
        return lines;
    }
}
