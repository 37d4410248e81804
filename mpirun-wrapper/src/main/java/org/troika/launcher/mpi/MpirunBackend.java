package org.troika.launcher.mpi;

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
