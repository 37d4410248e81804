package org.troika.launcher.cli;

import java.util.List;
import org.troika.launcher.spi.Subcommand;

/** The subcommands troika-launcher itself provides. */
final class BuiltinCommands {
    private BuiltinCommands() {}

    static List<Subcommand> all() {
        return List.of(new RunCommand(), new HostsCommand(), new DoctorCommand());
    }

    /** The built-in subcommand called {@code name}, or {@code null}. */
    static Subcommand byName(String name) {
        return switch (name) {
            case "run" -> new RunCommand();
            case "hosts" -> new HostsCommand();
            case "doctor" -> new DoctorCommand();
            default -> null;
        };
    }
}
