package org.troika.launcher.cli;

import java.util.List;
import org.troika.launcher.spi.Subcommand;

/** The subcommands troika-launcher itself provides. */
final class BuiltinCommands {
    private BuiltinCommands() {}

    static List<Subcommand> all() {
        return List.of(new RunCommand(), new HostsCommand());
    }
}
