package org.troika.launcher.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner;
import org.troika.launcher.doctor.Doctor;
import org.troika.launcher.doctor.DoctorReport;
import org.troika.launcher.hosts.HostResolver;
import org.troika.launcher.spi.FileSource;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.Subcommand;

/**
 * {@code troika doctor [--json] [--step-timeout S] [host options]}: checks what a run with these host options needs
 * and prints each verdict with its fix ({@link Doctor}). Exit 0 only when nothing stops a run, 1 otherwise, 2 for bad
 * options. A bad hostfile or host list is a finding (exit 1), not bad input.
 */
final class DoctorCommand implements Subcommand {
    /** Default bound of each step. */
    static final Duration DEFAULT_STEP_TIMEOUT = Duration.ofSeconds(15);

    private final FileSource files;
    private final CommandRunner probes;

    DoctorCommand() {
        this(FileSource.system(), null);
    }

    DoctorCommand(FileSource files, CommandRunner probes) {
        this.files = files;
        this.probes = probes;
    }

    @Override
    public String name() {
        return "doctor";
    }

    @Override
    public String summary() {
        return "check MPI, JDK, hosts, remote shell, task services, networks, clocks and disk; each with the fix";
    }

    @Override
    public int run(List<String> args, Io io) {
        boolean json = false;
        Duration step = DEFAULT_STEP_TIMEOUT;
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--json")) {
                json = true;
            } else if (a.equals("--step-timeout")) {
                if (i + 1 >= args.size() || !args.get(i + 1).matches("[0-9]{1,4}") || args.get(i + 1).matches("0+")) {
                    throw new UsageException("--step-timeout needs a whole number of seconds from 1 to 9999");
                }
                step = Duration.ofSeconds(Integer.parseInt(args.get(++i)));
            } else if (a.equals("-h") || a.equals("--help")) {
                io.out().print(RunCommandLine.help("doctor", "").replace("usage: troika doctor [options] ",
                        "usage: troika doctor [--json] [--step-timeout S] [host options]")
                        + "\ndoctor: --json prints one JSON object; --step-timeout S bounds each check (default "
                        + DEFAULT_STEP_TIMEOUT.toSeconds() + " s). Exit 0 only when a run would work.\n");
                return 0;
            } else {
                rest.add(a);
            }
        }
        RunSettings settings = null;
        String error = null;
        try {
            settings = RunCommandLine.parse(rest, files, false).settings();
        } catch (UsageException e) {
            if (!isHostProblem(rest)) {
                throw e;
            }
            error = e.getMessage();
        }
        RunCommand planner = new RunCommand(files, probes);
        CommandRunner runner = RunCommand.probes(probes, io.env());
        Doctor.Inputs in = new Doctor.Inputs(settings, error, io.env(), troikaHome(), step, runner,
                s -> planner.plan(s, io.env()).plan().launch(),
                s -> HostResolver.resolve(s, io.env(), RunCommand.jobEnvironments(), files, runner));
        DoctorReport report = Doctor.examine(in);
        io.out().print(json ? report.json() + "\n" : report.text());
        return report.exitCode();
    }

    /** Whether a parse error may come from the host list or hostfile (a finding) rather than from a bad flag. */
    private static boolean isHostProblem(List<String> args) {
        return args.contains("-H") || args.contains("--hosts") || args.contains("-hostfile")
                || args.contains("--hostfile");
    }

    private static Path troikaHome() {
        String home = System.getProperty("troika.home");
        return home == null ? null : Path.of(home);
    }
}
