package org.troika.launcher.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.DefaultParser;
import org.apache.commons.cli.HelpFormatter;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import org.apache.commons.cli.ParseException;
import org.troika.common.ShellQuote;
import org.troika.common.UsageException;
import org.troika.launcher.elastic.DiscoveryInterval;
import org.troika.launcher.spi.FaultTolerance;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.timeline.Timeline;
import org.troika.launcher.hosts.HostListParser;
import org.troika.launcher.hosts.HostfileParser;
import org.troika.launcher.spi.FileSource;
import org.troika.launcher.spi.HostCheck;
import org.troika.launcher.spi.UserText;

/**
 * The options of {@code troika run} (and {@code troika hosts}, which shares the host options) and their parsing into
 * {@link RunSettings}. Flag names follow horovodrun so existing scripts carry over. Everything after the first word
 * that is not an option is the user's command, untouched.
 */
public final class RunCommandLine {
    private RunCommandLine() {}

    /** Parsed command line: the settings, or a request for help. */
    record Parsed(RunSettings settings, boolean help) {}

    /** Options that may be given more than once (their values add up); every other option with a value may not. */
    private static final Set<String> REPEATABLE = Set.of("network-interface");

    static Options options() {
        Options o = new Options();
        // hosts and processes
        o.addOption(opt("np", "num-proc", "N", "number of processes (default: all slots of -H/--hostfile or the batch allocation)"));
        o.addOption(opt("H", "hosts", "LIST", "hosts and slots: host1:4,host2:4 (default: localhost:<np>, or the batch allocation)"));
        o.addOption(opt("hostfile", "hostfile", "FILE", "hostfile with lines 'host slots=N [max_slots=M]', # comments allowed"));
        // network and ssh
        o.addOption(opt(null, "network-interfaces", "A,B", "network interfaces or CIDR subnets to use, comma-separated"));
        o.addOption(opt(null, "network-interface", "NIC", "one network interface or subnet; repeatable"));
        o.addOption(opt("p", "ssh-port", "PORT", "ssh port on the hosts"));
        o.addOption(opt("i", "ssh-identity-file", "FILE", "ssh identity (private key) file"));
        o.addOption(opt(null, "remote-shell", "CMD", "how to start troika task services on a host: ssh (default), blaunch, "
                + "srun, or a template with {host}, e.g. 'ip netns exec ns-{host}'"));
        o.addOption(opt(null, "launch-agent", "MODE", "how Open MPI starts its daemons: relay (through troika task services) or ssh"));
        // MPI
        o.addOption(opt(null, "mpi-args", "ARGS", "extra arguments for mpirun/srun/jsrun, shell-quoted in one string"));
        o.addOption(opt(null, "binding-args", "ARGS", "binding/mapping arguments replacing the default (e.g. '--bind-to core')"));
        o.addOption(flag(null, "tcp", "use TCP only (no InfiniBand): NCCL_IB_DISABLE=1, -tcp for Spectrum MPI"));
        o.addOption(opt(null, "launcher", "NAME", "what starts the ranks: auto (default: srun inside Slurm, jsrun inside LSF"
                + " with Spectrum MPI, where they work; else mpirun), mpirun, srun or jsrun"));
        o.addOption(flag(null, "mpi", "same as --launcher mpirun"));
        o.addOption(flag(null, "jsrun", "same as --launcher jsrun"));
        o.addOption(opt(null, "mpi-flavor", "NAME", "override MPI detection: openmpi, openmpi5, spectrum, mpich or intel"));
        // ranks
        o.addOption(flag(null, "java-cds", "java ranks map a class-data-sharing archive of the classes they load, "
                + "recorded on each host by the first run (TROIKA_JAVA_CDS=1; the default for elastic jobs)"));
        o.addOption(flag(null, "no-java-cds", "no class-data sharing for java ranks, elastic jobs included "
                + "(TROIKA_JAVA_CDS=0)"));
        // output and timing
        o.addOption(opt(null, "output-filename", "DIR", "also write each rank's output to files under DIR"));
        o.addOption(flag("prefix-timestamp", "prefix-output-with-timestamp", "prefix output lines with a timestamp"));
        o.addOption(opt(null, "start-timeout", "SECONDS", "how long hosts and services may take to start (default 30)"));
        // elastic
        o.addOption(opt(null, "host-discovery-script", "FILE", "elastic: executable printing one 'host[:slots]' per line"));
        o.addOption(opt(null, "min-np", "N", "elastic: minimum number of processes"));
        o.addOption(opt(null, "max-np", "N", "elastic: maximum number of processes"));
        o.addOption(opt(null, "slots-per-host", "N", "elastic: slots of discovered hosts that give no count"));
        o.addOption(opt(null, "elastic-timeout", "SECONDS", "elastic: how long to wait for --min-np slots (default 600)"));
        o.addOption(opt(null, "reset-limit", "N", "elastic: stop after N resets (default unlimited)"));
        o.addOption(Option.builder().longOpt("blacklist-cooldown-range").numberOfArgs(2).argName("MIN MAX")
                .desc("elastic: a failed host is retried after a cooldown between MIN and MAX seconds (default: never)").build());
        o.addOption(opt(null, "discovery-interval", "SECONDS", "elastic: pause between two discovery runs, e.g. 0.25 "
                + "(at least 0.05; default: 20 x the script's last run time, from 0.25 to 1 s; 1 s with -H)"));
        o.addOption(opt(null, "fault-tolerance", "MODE", "elastic: relaunch (a dead rank ends the generation), shrink "
                + "(the survivors go on: Open MPI 5, --with-ft ulfm) or auto (shrink where the MPI supports it; default)"));
        // operability (docs/operability.md)
        o.addOption(opt(null, "hang-timeout", "SECONDS", "end the job (static: exit 124; elastic: next generation) when a "
                + "rank makes no progress for SECONDS; 0 = off (default: off, 300 for elastic jobs; env TROIKA_HANG_TIMEOUT)"));
        o.addOption(opt(null, "hang-warning", "SECONDS", "warn when a rank makes no progress for SECONDS (default: 60 "
                + "when the hang timeout is above 120, else none; 0 = none)"));
        o.addOption(opt(null, "timeline", "FILE", "write the job's timeline to FILE (Chrome trace JSON, opens in Perfetto) "
                + "and FILE.html (one row per host); elastic jobs keep DIR/timeline.json with --output-filename DIR"));
        // general
        o.addOption(flag(null, "timeline-without-command", "the timeline names the job 'troika run' only, not its"
                + " command and arguments (which may hold secrets)"));
        o.addOption(opt(null, ConfigFile.OPTION, "FILE", "Horovod's YAML config file (params, timeline, stall_check,"
                + " library_options, logging); flags given here win over it"));
        o.addOption(flag(null, "dry-run", "print the planned command on one line and exit without running anything"));
        o.addOption(flag(null, "verbose", "explain what was chosen and why; show stack traces"));
        o.addOption(flag("h", "help", "show this help"));
        return o;
    }

    private static Option opt(String shortName, String longName, String arg, String desc) {
        return Option.builder(shortName).longOpt(longName).hasArg().argName(arg).desc(desc).build();
    }

    private static Option flag(String shortName, String longName, String desc) {
        return Option.builder(shortName).longOpt(longName).desc(desc).build();
    }

    static String help(String commandName, String synopsis) {
        StringWriter sw = new StringWriter();
        HelpFormatter f = new HelpFormatter();
        f.setOptionComparator(null);
        f.setWidth(110);
        f.printHelp(new PrintWriter(sw), 110, "troika " + commandName + " [options] " + synopsis, "\noptions:",
                options(), 2, 3, "\nEverything after the first word that is not an option is the command, passed untouched.\n"
                        + "See the README for the rank environment (TROIKA_RANK, ...) and batch systems.", false);
        return sw.toString();
    }

    /**
     * Checks {@code troika run} arguments that another command passes on (the body of {@code troika template}):
     * everything {@link #parse} checks except what needs a file, since the files (hostfile, ssh key, discovery
     * script) may exist only where the job runs. A command must follow the options.
     *
     * @throws UsageException for any bad input, naming the problem and the fix
     */
    public static void check(List<String> args) {
        if (parse(args, null, true).help()) {
            throw new UsageException("--help is not a troika run option to pass on; drop it");
        }
    }

    /**
     * Parses {@code troika run} arguments.
     *
     * @param files reads the hostfile; {@code null} to check the syntax only and touch no file (see {@link #check})
     * @param requireCommand whether a command must follow the options ({@code run}: yes; {@code hosts}: no)
     * @throws UsageException for any bad input, naming the problem and the fix
     */
    static Parsed parse(List<String> args, FileSource files, boolean requireCommand) {
        CommandLine cl;
        try {
            cl = new DefaultParser().parse(options(), args.toArray(String[]::new), true);
        } catch (ParseException e) {
            throw new UsageException(e.getMessage() + " (see troika run --help)");
        }
        if (cl.hasOption("help")) {
            return new Parsed(null, true);
        }
        rejectRepeats(cl, REPEATABLE);
        List<String> command = Arrays.asList(cl.getArgs());
        if (!command.isEmpty() && command.get(0).startsWith("-")) {
            throw new UsageException("unknown option " + UserText.quote(command.get(0)) + " (see troika run --help)");
        }
        if (requireCommand && command.isEmpty()) {
            throw new UsageException("no command given; write e.g. troika run -np 2 java -cp app.jar my.Main");
        }
        RunSettings.Builder b = RunSettings.builder().command(command);

        exclusive(cl, "hosts", "hostfile", "host-discovery-script");
        exclusive(cl, "launcher", "mpi", "jsrun");
        exclusive(cl, "java-cds", "no-java-cds");
        b.np(ranks(cl, "num-proc", "-np"));
        if (cl.hasOption("hosts")) {
            b.hosts(HostListParser.parse(cl.getOptionValue("hosts")), "-H");
        } else if (cl.hasOption("hostfile") && files != null) {
            Path p = Path.of(cl.getOptionValue("hostfile"));
            List<String> lines = files.readHostLines("hostfile " + p, p, "give a readable hostfile to --hostfile");
            b.hosts(HostfileParser.parse(p.toString(), lines), "hostfile " + p);
        }

        List<String> nics = new ArrayList<>();
        if (cl.hasOption("network-interfaces")) {
            nics.addAll(splitList(cl.getOptionValue("network-interfaces"), "--network-interfaces"));
        }
        if (cl.hasOption("network-interface")) {
            for (String v : cl.getOptionValues("network-interface")) {
                nics.addAll(splitList(v, "--network-interface"));
            }
        }
        if (nics.stream().distinct().count() != nics.size()) {
            throw new UsageException("a network interface is named twice in " + nics + "; name each once");
        }
        b.networkInterfaces(nics);

        Integer port = positive(cl, "ssh-port", "--ssh-port");
        if (port != null && port > 65535) {
            throw new UsageException("--ssh-port " + port + " is not a TCP port; use 1-65535");
        }
        b.sshPort(port);
        if (cl.hasOption("ssh-identity-file")) {
            Path id = Path.of(cl.getOptionValue("ssh-identity-file"));
            if (files != null && !Files.isReadable(id)) {
                throw new UsageException("--ssh-identity-file " + id + " does not exist or is not readable; give the private key path");
            }
            b.sshIdentityFile(id);
        }
        if (cl.hasOption("remote-shell")) {
            String rs = cl.getOptionValue("remote-shell").trim();
            if (rs.isEmpty()) {
                throw new UsageException("--remote-shell is empty; use ssh, blaunch, srun or a template with {host}");
            }
            b.remoteShell(rs);
        }
        if (cl.hasOption("launch-agent")) {
            String v = cl.getOptionValue("launch-agent").toLowerCase(Locale.ROOT);
            b.launchAgent(switch (v) {
                case "relay" -> RunSettings.LaunchAgent.RELAY;
                case "ssh" -> RunSettings.LaunchAgent.SSH;
                default -> throw new UsageException("--launch-agent '" + v + "' is not known; use relay or ssh");
            });
        }

        b.mpiArgs(words(cl, "mpi-args"));
        b.bindingArgs(words(cl, "binding-args"));
        b.tcp(cl.hasOption("tcp"));
        if (cl.hasOption("mpi")) {
            b.backend(RunSettings.Backend.MPI);
        } else if (cl.hasOption("jsrun")) {
            b.backend(RunSettings.Backend.named("jsrun"));
        } else if (cl.hasOption("launcher")) {
            b.backend(RunSettings.Backend.named(cl.getOptionValue("launcher"))); // resolved when the launch is planned
        }
        if (cl.hasOption("mpi-flavor")) {
            String f = cl.getOptionValue("mpi-flavor").toLowerCase(Locale.ROOT);
            if (!List.of("openmpi", "openmpi5", "spectrum", "mpich", "intel").contains(f)) {
                throw new UsageException("--mpi-flavor '" + f + "' is not known; use openmpi, openmpi5, spectrum, mpich or intel");
            }
            b.mpiFlavor(f);
        }
        if (cl.hasOption("output-filename")) {
            String dir = cl.getOptionValue("output-filename");
            if (dir.isBlank()) {
                throw new UsageException("--output-filename is empty; give a directory");
            }
            b.outputFilename(Path.of(dir));
        }
        b.prefixTimestamp(cl.hasOption("prefix-output-with-timestamp"));
        b.javaCds(cl.hasOption("java-cds") ? Boolean.TRUE : cl.hasOption("no-java-cds") ? Boolean.FALSE : null);
        Integer startTimeout = positive(cl, "start-timeout", "--start-timeout");
        if (startTimeout != null) {
            b.startTimeout(Duration.ofSeconds(startTimeout));
        }

        Integer hang = nonNegative(cl, "hang-timeout", "--hang-timeout");
        if (hang != null) {
            b.hangTimeout(Duration.ofSeconds(hang));
        }
        Integer hangWarn = nonNegative(cl, "hang-warning", "--hang-warning");
        if (hangWarn != null) {
            b.hangWarning(Duration.ofSeconds(hangWarn));
        }
        if (cl.hasOption("timeline")) {
            b.timeline(Timeline.checkTarget(cl.getOptionValue("timeline"), "--timeline", false));
        }
        b.timelineCommand(!cl.hasOption("timeline-without-command"));

        // elastic
        if (cl.hasOption("host-discovery-script")) {
            Path script = Path.of(cl.getOptionValue("host-discovery-script"));
            if (files != null && (!Files.isRegularFile(script) || !Files.isExecutable(script))) {
                throw new UsageException("--host-discovery-script " + script + " is not an executable file; chmod +x it or fix the path");
            }
            b.hostDiscoveryScript(script);
        }
        Integer minNp = ranks(cl, "min-np", "--min-np");
        Integer maxNp = ranks(cl, "max-np", "--max-np");
        if (minNp != null && maxNp != null && minNp > maxNp) {
            throw new UsageException("--min-np " + minNp + " is above --max-np " + maxNp + "; make min-np <= max-np");
        }
        b.minNp(minNp).maxNp(maxNp);
        b.slotsPerHost(ranks(cl, "slots-per-host", "--slots-per-host"));
        Integer et = positive(cl, "elastic-timeout", "--elastic-timeout");
        if (et != null) {
            b.elasticTimeout(Duration.ofSeconds(et));
        }
        b.resetLimit(nonNegative(cl, "reset-limit", "--reset-limit"));
        if (cl.hasOption("blacklist-cooldown-range")) {
            String[] v = cl.getOptionValues("blacklist-cooldown-range");
            int lo = parseInt(v[0], "--blacklist-cooldown-range MIN");
            int hi = parseInt(v[1], "--blacklist-cooldown-range MAX");
            if (lo < 1 || hi > 3600 || lo > hi) {
                throw new UsageException("--blacklist-cooldown-range " + lo + " " + hi
                        + " is invalid; give MIN MAX seconds with 1 <= MIN <= MAX <= 3600");
            }
            b.cooldown(Duration.ofSeconds(lo), Duration.ofSeconds(hi));
        }
        if (cl.hasOption("discovery-interval")) {
            b.discoveryInterval(discoveryInterval(cl.getOptionValue("discovery-interval")));
        }
        if (cl.hasOption("fault-tolerance")) {
            b.faultTolerance(FaultTolerance.parse(cl.getOptionValue("fault-tolerance")));
        }
        boolean elasticOnly = cl.hasOption("slots-per-host") || cl.hasOption("elastic-timeout") || cl.hasOption("reset-limit")
                || cl.hasOption("blacklist-cooldown-range") || cl.hasOption("discovery-interval")
                || cl.hasOption("fault-tolerance");
        RunSettings s = b.dryRun(cl.hasOption("dry-run")).verbose(cl.hasOption("verbose")).build();
        if (elasticOnly && !s.elastic()) {
            throw new UsageException("elastic options need an elastic job; add --host-discovery-script, --min-np or --max-np");
        }
        if (s.np() != null && s.maxNp() != null && s.np() > s.maxNp()) {
            throw new UsageException("-np " + s.np() + " is above --max-np " + s.maxNp() + "; lower -np or raise --max-np");
        }
        if (s.np() != null && !s.hosts().isEmpty()) {
            long slots = s.hosts().stream().mapToLong(h -> h.slots()).sum();
            if (s.np() > slots) {
                throw new UsageException("-np " + s.np() + " is more than the " + slots + " slots of " + s.hostSource()
                        + "; lower -np or add hosts/slots");
            }
        }
        return new Parsed(s, false);
    }

    /**
     * Every option with a value, except the {@code repeatable} ones (long names), at most once: a second value is an
     * error rather than silently ignored. Shared with {@code troika template}'s own options.
     *
     * @throws UsageException naming the option and both values
     */
    public static void rejectRepeats(CommandLine cl, Set<String> repeatable) {
        Map<String, String> first = new HashMap<>();
        for (Option o : cl.getOptions()) {
            String key = o.getLongOpt() != null ? o.getLongOpt() : o.getOpt();
            if (!o.hasArg() || repeatable.contains(key)) {
                continue;
            }
            String value = String.join(" ", o.getValuesList());
            String before = first.putIfAbsent(key, value);
            if (before != null) {
                String shown = o.getOpt() != null ? "-" + o.getOpt() : "--" + o.getLongOpt();
                throw new UsageException(shown + " is given twice (" + UserText.quote(before) + " and "
                        + UserText.quote(value) + "); give it once");
            }
        }
    }

    /** A count of ranks or slots: 1 to {@link HostCheck#MAX_RANKS}. */
    private static Integer ranks(CommandLine cl, String name, String shown) {
        Integer v = positive(cl, name, shown);
        if (v != null && v > HostCheck.MAX_RANKS) {
            throw new UsageException(shown + " " + v + " is more than troika's limit of " + HostCheck.MAX_RANKS
                    + " ranks");
        }
        return v;
    }

    private static void exclusive(CommandLine cl, String... longNames) {
        List<String> given = Arrays.stream(longNames).filter(cl::hasOption).toList();
        if (given.size() > 1) {
            throw new UsageException("--" + given.get(0) + " and --" + given.get(1) + " cannot be combined; choose one");
        }
    }

    private static Integer positive(CommandLine cl, String name, String shown) {
        Integer v = nonNegative(cl, name, shown);
        if (v != null && v == 0) {
            throw new UsageException(shown + " must be at least 1, got 0");
        }
        return v;
    }

    private static Integer nonNegative(CommandLine cl, String name, String shown) {
        if (!cl.hasOption(name)) {
            return null;
        }
        return parseInt(cl.getOptionValue(name), shown);
    }

    private static int parseInt(String raw, String shown) {
        String v = raw.trim();
        if (!v.matches("[0-9]{1,9}")) {
            throw new UsageException(shown + " needs a whole number (at most 9 digits), got " + UserText.quote(raw));
        }
        return Integer.parseInt(v);
    }

    /** {@code --discovery-interval}: decimal seconds, to the millisecond, at least {@link DiscoveryInterval#MINIMUM}. */
    private static Duration discoveryInterval(String raw) {
        String v = raw.trim();
        if (!v.matches("[0-9]{1,6}(\\.[0-9]{1,3})?")) {
            throw new UsageException("--discovery-interval needs seconds such as 2 or 0.25 (at most 3 decimals), got "
                    + UserText.quote(raw));
        }
        Duration d = Duration.ofMillis(new BigDecimal(v).movePointRight(3).longValueExact());
        if (d.compareTo(DiscoveryInterval.MINIMUM) < 0) {
            throw new UsageException("--discovery-interval " + v + " is too short; give at least "
                    + DiscoveryInterval.MINIMUM.toMillis() / 1000.0 + " seconds");
        }
        return d;
    }

    private static List<String> splitList(String v, String shown) {
        List<String> out = new ArrayList<>();
        for (String part : v.split(",", -1)) {
            String t = part.trim();
            if (t.isEmpty() || !t.matches("[A-Za-z0-9_.:/@-]+")) {
                throw new UsageException(shown + " " + UserText.quote(v)
                        + " has an empty or malformed entry; write e.g. eth0,ib0 or 10.1.0.0/16");
            }
            out.add(t);
        }
        return out;
    }

    private static List<String> words(CommandLine cl, String name) {
        if (!cl.hasOption(name)) {
            return List.of();
        }
        try {
            return ShellQuote.split(cl.getOptionValue(name));
        } catch (IllegalArgumentException e) {
            throw new UsageException("--" + name + ": " + e.getMessage() + "; balance the quotes");
        }
    }
}
