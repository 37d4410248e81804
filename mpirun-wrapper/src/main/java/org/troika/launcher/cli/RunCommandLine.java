package org.troika.launcher.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.DefaultParser;
import org.apache.commons.cli.HelpFormatter;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import org.apache.commons.cli.ParseException;
import org.troika.common.UsageException;
import org.troika.launcher.options.RunOption;
import org.troika.launcher.options.RunOptionTable;
import org.troika.launcher.spi.FileSource;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.UserText;

/**
 * Parses {@code troika run} (and {@code troika hosts}) arguments into {@link RunSettings} with the rows of
 * {@link RunOptionTable}: each given option's value is parsed and lands where its row says, and the settings' records
 * check it. Everything after the first word that is not an option is the user's command, untouched.
 */
public final class RunCommandLine {
    private RunCommandLine() {}

    /** Parsed command line: the settings, or a request for help. */
    record Parsed(RunSettings settings, boolean help) {}

    /** The parser's view of {@link RunOptionTable#ALL}. */
    static Options options() {
        return options(RunOptionTable.ALL);
    }

    /** The parser's view of {@code rows}, in their order. */
    static Options options(List<RunOption<?>> rows) {
        Options o = new Options();
        for (RunOption<?> row : rows) {
            Option.Builder b = Option.builder(row.shortName()).longOpt(row.longName()).desc(row.help());
            if (row.arity() > 0) {
                b.numberOfArgs(row.arity()).argName(row.arg());
            }
            o.addOption(b.build());
        }
        return o;
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
        if (cl.hasOption(RunOptionTable.HELP.key())) {
            return new Parsed(null, true);
        }
        rejectRepeats(cl, RunOptionTable.ALL.stream().filter(RunOption::repeatable).map(RunOption::key)
                .collect(Collectors.toSet()));
        List<String> command = Arrays.asList(cl.getArgs());
        if (!command.isEmpty() && command.get(0).startsWith("-")) {
            throw new UsageException("unknown option " + UserText.quote(command.get(0)) + " (see troika run --help)");
        }
        if (requireCommand && command.isEmpty()) {
            throw new UsageException("no command given; write e.g. troika run -np 2 java -cp app.jar my.Main");
        }
        List<RunOption<?>> given = RunOptionTable.ALL.stream().filter(row -> cl.hasOption(row.key())).toList();
        rejectConflicts(given);
        RunSettings s = RunSettings.of(command);
        for (RunOption<?> row : given) {
            if (row.repeatable()) {
                for (String value : cl.getOptionValues(row.key())) {
                    s = row.land(s, new RunOption.Given(row.shown(), List.of(value), files));
                }
            } else {
                String[] values = cl.getOptionValues(row.key());
                s = row.land(s, new RunOption.Given(row.shown(), values == null ? List.of() : List.of(values), files));
            }
        }
        if (given.stream().anyMatch(RunOption::elasticOnly) && !s.elastic().enabled()) {
            throw new UsageException("elastic options need an elastic job; add --host-discovery-script, --min-np or"
                    + " --max-np");
        }
        return new Parsed(s, false);
    }

    /** Options that make the same choice (land in the same place, unless they add to a list) exclude each other. */
    private static void rejectConflicts(List<RunOption<?>> given) {
        Map<String, RunOption<?>> chosen = new HashMap<>();
        for (RunOption<?> row : given) {
            if (row.choice() == null || row.adds()) {
                continue;
            }
            RunOption<?> first = chosen.putIfAbsent(row.choice(), row);
            if (first != null) {
                throw new UsageException("--" + first.key() + " and --" + row.key()
                        + " cannot be combined; choose one");
            }
        }
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
}
