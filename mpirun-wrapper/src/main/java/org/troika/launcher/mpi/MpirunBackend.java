package org.troika.launcher.mpi;

import java.util.Set;
import org.troika.launcher.spi.BackendPlan;
import org.troika.launcher.spi.LaunchBackend;
import org.troika.launcher.spi.LaunchContext;

/**
 * The built-in {@code mpirun} backend: the default whenever no other backend (e.g. jsrun inside LSF) claims the
 * launch. Planning is delegated to {@link MpirunCommandBuilder}.
 */
public final class MpirunBackend implements LaunchBackend {
    private final MpirunCommandBuilder builder;

    /** A backend for the user this JVM runs as. */
    public MpirunBackend() {
        this(MpirunCommandBuilder.forCurrentUser());
    }

    public MpirunBackend(MpirunCommandBuilder builder) {
        this.builder = builder;
    }

    @Override
    public String name() {
        return "mpirun";
    }

    /** Daemons through the relay's agent, elastic generations, and ULFM where the MPI has it (Open MPI 5). */
    @Override
    public Set<Capability> capabilities() {
        return Set.of(Capability.RELAY_AGENT, Capability.ELASTIC, Capability.SHRINK);
    }

    /** Always true: mpirun is the fallback; callers ask more specific backends first. */
    @Override
    public boolean isDefaultFor(LaunchContext ctx) {
        return true;
    }

    @Override
    public BackendPlan plan(LaunchContext ctx) {
        return builder.build(ctx);
    }
}
