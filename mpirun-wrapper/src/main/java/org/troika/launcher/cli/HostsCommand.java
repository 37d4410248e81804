package org.troika.launcher.cli;

import java.util.List;
import org.troika.common.exec.CommandRunner;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.hosts.HostResolver;
import org.troika.launcher.spi.SlotInfo;
import org.troika.launcher.spi.FileSource;
import org.troika.launcher.spi.Subcommand;

/**
 * {@code troika hosts}: prints the resolved host plan (where the hosts came from, one line per rank) without
 * launching anything. Takes the same host options as {@code troika run}.
 */
final class HostsCommand implements Subcommand {
    private final FileSource files;
    /** Probe runner; {@code null} = real probes with the caller's environment. */
    private final CommandRunner probes;

    HostsCommand() {
        this(FileSource.system(), null);
    }

    HostsCommand(FileSource files, CommandRunner probes) {
        this.files = files;
        this.probes = probes;
    }

    @Override
    public String name() {
        return "hosts";
    }

    @Override
    public String summary() {
        return "print the resolved host plan (source, one 'rank host local_rank cross_rank' line per rank)";
    }

    @Override
    public int run(List<String> args, Io io) {
        RunCommandLine.Parsed parsed = RunCommandLine.parse(args, files, false);
        if (parsed.help()) {
            io.out().print(RunCommandLine.help("hosts", ""));
            return 0;
        }
        RunSettings s = parsed.settings();
        HostPlan plan = HostResolver.resolve(s, io.env(), RunCommand.jobEnvironments(), files,
                RunCommand.probes(probes, io.env())).plan();
        io.out().println("# hosts from " + plan.source() + ": " + plan.hostList() + " (" + plan.size() + " ranks)");
        io.out().println("# rank host local_rank cross_rank");
        for (SlotInfo r : plan.slots()) {
            io.out().println(r.rank() + " " + r.host() + " " + r.localRank() + " " + r.crossRank());
        }
        return 0;
    }
}
