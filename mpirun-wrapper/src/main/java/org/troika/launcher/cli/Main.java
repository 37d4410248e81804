package org.troika.launcher.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.troika.common.UsageException;
import org.troika.common.exec.NativeText;
import org.troika.launcher.spi.Subcommand;
import org.troika.launcher.spi.UserText;

/**
 * {@code troika} entry point: dispatches to a subcommand and maps errors to exit codes.
 * Bad input ({@link UsageException}) prints one line and exits 2; stack traces only with {@code --verbose}.
 * Every error line is printed by {@link #errorLine}: control characters from the input are escaped
 * ({@link UserText#escape}) and the line is cut at {@value #MAX_ERROR_LINE} characters, so it stays one line.
 */
public final class Main {
    /** Longest error line printed; the rest is summarised. */
    static final int MAX_ERROR_LINE = UserText.MAX_LINE;

    private Main() {}

    /** Arguments and environment are read as the bytes given ({@link NativeText}), not as the locale decodes them. */
    public static void main(String[] args) {
        System.exit(run(NativeText.arguments(args), Subcommand.Io.system()));
    }

    /** Runs troika in-process and returns the exit code (used by tests). */
    public static int run(List<String> args, Subcommand.Io io) {
        boolean verbose = args.contains("--verbose");
        try {
            // built-ins first: no plugin lookup on the run path
            Subcommand builtin = args.isEmpty() ? null : BuiltinCommands.byName(args.get(0));
            if (builtin != null) {
                return builtin.run(new ArrayList<>(args.subList(1, args.size())), io);
            }
            if (!args.isEmpty() && (args.get(0).equals("--version") || args.get(0).equals("version"))) {
                io.out().println(Version.describe());
                return 0;
            }
            Map<String, Subcommand> commands = subcommands();
            if (args.isEmpty()) {
                throw new UsageException("no command given; expected one of " + String.join(", ", commands.keySet())
                        + " (see troika --help)");
            }
            if (args.get(0).equals("-h") || args.get(0).equals("--help") || args.get(0).equals("help")) {
                printHelp(io, commands);
                return 0;
            }
            Subcommand cmd = commands.get(args.get(0));
            if (cmd == null) {
                throw new UsageException("unknown command '" + args.get(0) + "'; expected one of "
                        + String.join(", ", commands.keySet()) + " (see troika --help)");
            }
            return cmd.run(new ArrayList<>(args.subList(1, args.size())), io);
        } catch (java.nio.file.InvalidPathException e) {
            // a file name whose bytes are not text in this locale: the JVM can name no such file
            String why = e.getReason().startsWith("Malformed") ? "Java opens only names that are valid "
                    + NativeText.CHARSET.name() + " text; rename it, or run troika under a locale where it is"
                    : e.getReason();
            io.err().println(errorLine("troika: error: ", "cannot use the file name " + UserText.quote(e.getInput())
                    + ": " + why));
            if (verbose) {
                e.printStackTrace(io.err());
            }
            return UsageException.EXIT_CODE;
        } catch (UsageException e) {
            io.err().println(errorLine("troika: error: ", e.getMessage()));
            if (verbose) {
                e.printStackTrace(io.err());
            }
            return UsageException.EXIT_CODE;
        } catch (OutOfMemoryError e) {
            // the stack is unwound, so what the job held is garbage now: one line, not a trace
            io.err().println(errorLine("troika: ", "out of memory: this job's plan needs more than troika's "
                    + (Runtime.getRuntime().maxMemory() >> 20) + " MiB heap; raise it, e.g. TROIKA_JAVA_OPTS=-Xmx4g"));
            if (verbose) {
                e.printStackTrace(io.err());
            }
            return 1;
        } catch (Exception e) {
            io.err().println(errorLine("troika: ", e.getMessage() == null ? e.toString() : e.getMessage()));
            if (verbose) {
                e.printStackTrace(io.err());
            } else {
                io.err().println("troika: (run with --verbose for details)");
            }
            return 1;
        }
    }

    /** {@code prefix + message} as one printable line: control characters escaped, at most {@link #MAX_ERROR_LINE}. */
    static String errorLine(String prefix, String message) {
        return UserText.line(prefix, message);
    }

    /** Built-in subcommands, then those found on the class path, by name. */
    static Map<String, Subcommand> subcommands() {
        Map<String, Subcommand> map = new LinkedHashMap<>();
        for (Subcommand s : BuiltinCommands.all()) {
            map.put(s.name(), s);
        }
        for (Subcommand s : ServiceIndex.load(Subcommand.class, ServiceIndex.distLib())) {
            map.putIfAbsent(s.name(), s);
        }
        return map;
    }

    private static void printHelp(Subcommand.Io io, Map<String, Subcommand> commands) {
        io.out().println("usage: troika <command> [options] ...");
        io.out().println();
        io.out().println("commands:");
        for (Subcommand s : commands.values()) {
            io.out().printf("  %-14s %s%n", s.name(), s.summary());
        }
        io.out().println();
        io.out().println("troika <command> --help shows a command's options; troika --version prints the version.");
    }
}
