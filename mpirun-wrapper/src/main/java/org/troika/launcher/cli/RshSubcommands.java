package org.troika.launcher.cli;

import java.util.ArrayList;
import java.util.List;
import org.troika.launcher.spi.Subcommand;
import org.troika.rsh.agent.RshMain;

/**
 * {@code troika rsh HOST WORDS...} and {@code troika task-service ...}: the launch agent and the task service through the
 * main launcher (registered via {@code META-INF/services}). {@code troika run} itself uses the leaner
 * {@code bin/troika-rsh}, which starts faster; these are for people and scripts.
 */
public final class RshSubcommands {
    private RshSubcommands() {}

    /** {@code troika rsh}. */
    public static final class AgentCommand implements Subcommand {
        @Override
        public String name() {
            return "rsh";
        }

        @Override
        public String summary() {
            return "launch agent: run a command on HOST through its troika task service (Open MPI's plm_rsh_agent)";
        }

        @Override
        public int run(List<String> args, Io io) {
            return RshMain.run(args, io.env(), io.out(), io.err());
        }
    }

    /** {@code troika task-service}. */
    public static final class TaskServiceCommand implements Subcommand {
        @Override
        public String name() {
            return "task-service";
        }

        @Override
        public String summary() {
            return "run the task service of one host (started by troika run through --remote-shell)";
        }

        @Override
        public int run(List<String> args, Io io) {
            List<String> all = new ArrayList<>();
            all.add("task-service");
            all.addAll(args);
            return RshMain.run(all, io.env(), io.out(), io.err());
        }
    }
}
