package org.troika.launcher.cli;

import java.util.List;
import org.troika.launcher.spi.Subcommand;

/** {@code troika run}: placeholder replaced below. */
final class RunCommand implements Subcommand {
    @Override public String name() { return "run"; }
    @Override public String summary() { return "plan and run an MPI job (mpirun or jsrun)"; }
    @Override public int run(List<String> args, Io io) { return 0; }
}
