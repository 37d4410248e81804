package org.troika.templates;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.DefaultParser;
import org.apache.commons.cli.HelpFormatter;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import org.apache.commons.cli.ParseException;
import org.troika.common.ShellQuote;
import org.troika.common.UsageException;
import org.troika.launcher.cli.RunCommandLine;
import org.troika.launcher.spi.Subcommand;
import org.troika.launcher.spi.UserText;

/**
 * {@code troika template slurm|lsf|pbs [options] -- [run options] command...}: prints a batch script whose body
 * runs {@code troika run [run options] command...} inside the allocation. Pure apart from printing. The words after
 * {@code --} go to {@code troika run} verbatim; without {@code --} the command starts at the first non-option word.
 *
 * <p>Every value that lands in a {@code #SBATCH}/{@code #BSUB}/{@code #PBS} line is checked against a conservative
 * character set, and the command is shell-quoted word by word, so the script always passes {@code bash -n} and runs
 * the command's words unchanged.
 */
public final class TemplateCommand implements Subcommand {
    static final List<String> SYSTEMS = List.of("slurm", "lsf", "pbs");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]+");
    private static final Pattern NAME_LIST = Pattern.compile("[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*");
    private static final Pattern FILE = Pattern.compile("[A-Za-z0-9_./%@+=:,-]+");
    private static final Pattern TIME = Pattern.compile("(?:(\\d{1,3})-)?(\\d{1,5})(?::(\\d{1,2}))?(?::(\\d{1,2}))?");

    @Override
    public String name() {
        return "template";
    }

    @Override
    public String summary() {
        return "print a ready Slurm / LSF / PBS batch script that runs troika run with your command";
    }

    private static Options options() {
        Options o = new Options();
        o.addOption(Option.builder("N").longOpt("nodes").hasArg().argName("N").desc("nodes (default 1)").build());
        o.addOption(Option.builder("n").longOpt("tasks-per-node").hasArg().argName("N")
                .desc("ranks per node (default 1)").build());
        o.addOption(Option.builder("g").longOpt("gpus-per-node").hasArg().argName("N").desc("GPUs per node").build());
        o.addOption(Option.builder("t").longOpt("time").hasArg().argName("TIME")
                .desc("wall time: MINUTES, H:MM, H:MM:SS or D-H:MM:SS").build());
        o.addOption(Option.builder("J").longOpt("job-name").hasArg().argName("NAME").desc("job name (default troika)")
                .build());
        o.addOption(Option.builder("A").longOpt("account").hasArg().argName("NAME")
                .desc("account (Slurm, PBS) or project (LSF -P)").build());
        o.addOption(Option.builder("p").longOpt("partition").hasArg().argName("NAME")
                .desc("partition (Slurm) or queue (LSF, PBS); --queue is the same").build());
        o.addOption(Option.builder("q").longOpt("queue").hasArg().argName("NAME").desc("same as --partition").build());
        o.addOption(Option.builder("o").longOpt("output").hasArg().argName("FILE")
                .desc("job output file (scheduler patterns such as %j allowed)").build());
        o.addOption(Option.builder().longOpt("troika").hasArg().argName("PATH")
                .desc("troika executable the script calls (default: troika on the job's PATH)").build());
        o.addOption(Option.builder("h").longOpt("help").desc("show this help").build());
        return o;
    }

    @Override
    public int run(List<String> args, Io io) {
        if (args.isEmpty()) {
            throw new UsageException("troika template needs a batch system, one of " + String.join(", ", SYSTEMS)
                    + " (troika template slurm -N 2 -n 4 -- java -cp app.jar Main; see troika template --help)");
        }
        if (args.get(0).equals("-h") || args.get(0).equals("--help")) {
            printHelp(io);
            return 0;
        }
        String system = args.get(0);
        if (!SYSTEMS.contains(system)) {
            throw new UsageException("unknown batch system " + UserText.quote(system) + "; expected one of "
                    + String.join(", ", SYSTEMS) + " (troika template slurm -N 2 -n 4 -- java -cp app.jar Main)");
        }
        List<String> rest = args.subList(1, args.size());
        int dashes = rest.indexOf("--");
        CommandLine cl;
        try {
            if (dashes >= 0) {
                // everything after -- is troika run's, verbatim (run options such as -np may come first)
                cl = DefaultParser.builder().build().parse(options(), rest.subList(0, dashes).toArray(String[]::new));
                if (!cl.getArgList().isEmpty()) {
                    throw new UsageException("unexpected '" + cl.getArgList().get(0) + "' before --; the command goes "
                            + "after -- (see troika template --help)");
                }
            } else {
                cl = DefaultParser.builder().build().parse(options(), rest.toArray(String[]::new), true);
            }
        } catch (ParseException e) {
            throw new UsageException(e.getMessage() + " (see troika template --help)");
        }
        if (cl.hasOption("help")) {
            printHelp(io);
            return 0;
        }
        RunCommandLine.rejectRepeats(cl, Set.of());
        List<String> command = dashes >= 0 ? rest.subList(dashes + 1, rest.size()) : cl.getArgList();
        if (dashes < 0 && !command.isEmpty() && command.get(0).startsWith("-")) {
            throw new UsageException("unknown option " + UserText.quote(command.get(0)) + " (see troika template --help;"
                    + " put the command, and any troika run options, after --)");
        }
        Map<String, String> values = values(cl, command);
        // the body runs troika run with these words: what it would refuse must fail now, not in the batch queue
        try {
            RunCommandLine.check(command);
        } catch (UsageException e) {
            throw new UsageException("the troika run options after -- are not valid: " + e.getMessage());
        }
        io.out().print(render(system, values));
        return 0;
    }


    /** Renders {@code system}'s template. */
    static String render(String system, Map<String, String> values) {
        return TemplateRenderer.render(TemplateRenderer.load(system), values);
    }

    /** The template values from the parsed options, validated. */
    static Map<String, String> values(CommandLine cl, List<String> command) {
        if (command.isEmpty()) {
            throw new UsageException("no command given; put it after --, e.g. troika template slurm -N 2 -- "
                    + "java -cp app.jar Main");
        }
        if (cl.hasOption("partition") && cl.hasOption("queue")) {
            throw new UsageException("--partition and --queue are the same option; give only one");
        }
        int nodes = count(cl.getOptionValue("nodes", "1"), "--nodes");
        int tasks = count(cl.getOptionValue("tasks-per-node", "1"), "--tasks-per-node");
        Map<String, String> v = new LinkedHashMap<>();
        v.put("nodes", String.valueOf(nodes));
        v.put("tasks_per_node", String.valueOf(tasks));
        v.put("total_tasks", String.valueOf((long) nodes * tasks));
        v.put("gpus_per_node", cl.hasOption("gpus-per-node")
                ? String.valueOf(count(cl.getOptionValue("gpus-per-node"), "--gpus-per-node")) : "");
        v.put("job_name", checked(cl.getOptionValue("job-name", "troika"), NAME, "--job-name", "letters, digits, _ . -"));
        v.put("account", cl.hasOption("account")
                ? checked(cl.getOptionValue("account"), NAME, "--account", "letters, digits, _ . -") : "");
        String queue = cl.getOptionValue("partition", cl.getOptionValue("queue"));
        v.put("queue", queue == null ? "" : checked(queue, NAME_LIST, "--partition/--queue",
                "names of letters, digits, _ . - separated by commas"));
        v.put("output", cl.hasOption("output") ? checked(cl.getOptionValue("output"), FILE, "--output",
                "a path without spaces or quotes") : "");
        if (cl.hasOption("time")) {
            long seconds = wallSeconds(cl.getOptionValue("time"));
            v.put("walltime", String.format("%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60));
            v.put("walltime_minutes", String.valueOf((seconds + 59) / 60));
        } else {
            v.put("walltime", "");
            v.put("walltime_minutes", "");
        }
        v.put("troika", ShellQuote.quote(cl.getOptionValue("troika", "troika")));
        v.put("command", ShellQuote.join(command));
        return v;
    }

    /**
     * Wall time in seconds. Forms: {@code MINUTES}, {@code H:MM}, {@code H:MM:SS}, {@code D-H}, {@code D-H:MM},
     * {@code D-H:MM:SS} (Slurm's forms, without its {@code MM:SS} reading of two fields).
     */
    static long wallSeconds(String s) {
        Matcher m = TIME.matcher(s.strip());
        if (!m.matches()) {
            throw badTime(s);
        }
        long days = m.group(1) == null ? 0 : Long.parseLong(m.group(1));
        long first = Long.parseLong(m.group(2));
        Long mm = m.group(3) == null ? null : Long.parseLong(m.group(3));
        Long ss = m.group(4) == null ? null : Long.parseLong(m.group(4));
        long seconds;
        if (m.group(1) == null && mm == null) {
            seconds = first * 60; // plain minutes
        } else {
            if (mm != null && mm > 59 || ss != null && ss > 59) {
                throw badTime(s);
            }
            seconds = days * 86400 + first * 3600 + (mm == null ? 0 : mm * 60) + (ss == null ? 0 : ss);
        }
        if (seconds < 1) {
            throw badTime(s);
        }
        return seconds;
    }

    private static UsageException badTime(String s) {
        return new UsageException("--time '" + s + "' is not a wall time; use MINUTES, H:MM, H:MM:SS or D-H:MM:SS "
                + "(e.g. 90 or 1:30:00)");
    }

    private static int count(String s, String flag) {
        if (!s.matches("[0-9]{1,6}") || Integer.parseInt(s) < 1) {
            throw new UsageException(flag + " '" + s + "' must be a positive whole number");
        }
        return Integer.parseInt(s);
    }

    private static String checked(String s, Pattern p, String flag, String allowed) {
        if (!p.matcher(s).matches()) {
            throw new UsageException(flag + " '" + s + "' has characters a batch directive cannot hold; use " + allowed);
        }
        return s;
    }

    private static void printHelp(Io io) {
        PrintWriter w = new PrintWriter(io.out(), true);
        new HelpFormatter().printHelp(w, 100, "troika template slurm|lsf|pbs [options] -- [troika run options] command...",
                "Prints a batch script; its body runs 'troika run command...', which reads the allocation.\n\n",
                options(), 2, 2, "\nExample: troika template slurm -N 2 -n 4 -t 1:00:00 -- java -cp app.jar Train"
                        + " > job.sh && sbatch job.sh");
        w.flush();
    }
}
