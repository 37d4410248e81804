package org.troika.launcher.spi;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * The launch agent Open MPI starts its remote daemons with ({@code plm_rsh_agent}; PRRTE {@code plm_ssh_agent}): a
 * planning input, so the backend emits the option for its MPI flavour and nothing is spliced into a plan afterwards.
 *
 * @param program the agent executable ({@code bin/troika-rsh}); one argv element (no ':' or whitespace)
 * @param env what the agent needs in mpirun's environment (driver address, secret file, liveness timeout): set for
 *     mpirun only, never exported to the ranks; never the secret itself
 * @param namePlmComponent whether to name the rsh/ssh launch component too: inside a batch allocation Open MPI would
 *     otherwise start its daemons with the scheduler's launcher (srun) and never call the agent
 */
public record LaunchAgent(Path program, Map<String, String> env, boolean namePlmComponent) {
    public LaunchAgent {
        Objects.requireNonNull(program, "program");
        env = Map.copyOf(env);
    }
}
