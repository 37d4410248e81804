package org.troika.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;
import org.troika.launcher.mpi.MpirunBackend;
import org.troika.launcher.spi.BackendPlan;
import org.troika.launcher.spi.FaultTolerance;
import org.troika.launcher.spi.LaunchBackend;
import org.troika.launcher.spi.LaunchBackend.Capability;
import org.troika.launcher.spi.LaunchContext;
import org.troika.launcher.options.RunOptionTable;
import org.troika.launcher.spi.RunSettings;

/**
 * Issue 21.4: {@code --launcher NAME} is resolved against the loaded backends (mpirun and the plugins), and what a
 * backend can do comes from its declared capabilities, not from its class.
 */
class BackendChoiceTest {
    /** A plugin backend as a jar in lib/ would bring one: a name and capabilities, nothing troika knows beforehand. */
    record Plugin(String name, Set<Capability> capabilities) implements LaunchBackend {
        @Override
        public boolean isDefaultFor(LaunchContext ctx) {
            return false;
        }

        @Override
        public BackendPlan plan(LaunchContext ctx) {
            throw new AssertionError("not planned here");
        }
    }

    static final Plugin DIRECT = new Plugin("direct", Set.of(Capability.ELASTIC));
    static final Plugin BATCH = new Plugin("batch", Set.of());
    static final List<LaunchBackend> PLUGINS = List.of(DIRECT, BATCH);

    static RunSettings settings(String launcher) {
        return RunSettings.of(List.of("java", "Train"))
                .with(RunOptionTable.LAUNCHER, RunSettings.Backend.named(launcher)).with(RunOptionTable.MIN_NP, 2);
    }

    @Test
    void aPluginIsFoundByItsName() {
        assertSame(DIRECT, RunCommand.named(RunSettings.Backend.named("Direct"), PLUGINS));
        assertEquals("mpirun", RunCommand.named(RunSettings.Backend.MPI, PLUGINS).name());
    }

    @Test
    void anUnknownNameIsOneLineListingTheLoadedBackends() {
        UsageException e = assertThrows(UsageException.class, () -> RunCommand.named(
                RunSettings.Backend.named("pbsrun"), PLUGINS));
        assertEquals("--launcher 'pbsrun' is not known; use auto, batch, direct, mpirun (the backends this troika has"
                + " loaded; others come as plugin jars in its lib/)", e.getMessage());
    }

    @Test
    void mpirunRelaysItsDaemonsRunsElasticGenerationsAndShrinks() {
        assertEquals(Set.of(Capability.RELAY_AGENT, Capability.ELASTIC, Capability.SHRINK),
                new MpirunBackend().capabilities());
    }

    @Test
    void anElasticJobRunsOnAnyBackendThatDeclaresIt() {
        assertSame(DIRECT, RunCommand.elasticBackend(settings("direct"), PLUGINS));
        assertEquals("mpirun", RunCommand.elasticBackend(settings("mpirun"), PLUGINS).name());
        // auto: elastic generations keep mpirun unless a backend is named
        assertEquals("mpirun", RunCommand.elasticBackend(settings("auto"), PLUGINS).name());
    }

    @Test
    void anElasticJobOnABackendWithoutElasticGenerationsIsRefusedNamingThoseThatHaveThem() {
        UsageException e = assertThrows(UsageException.class, () -> RunCommand.elasticBackend(settings("batch"),
                PLUGINS));
        assertEquals("--launcher batch cannot run elastic jobs; use --launcher direct or mpirun, or drop the elastic"
                + " options", e.getMessage());
    }

    @Test
    void shrinkNeedsABackendThatRunsUlfm() {
        RunSettings shrink = settings("direct").with(RunOptionTable.FAULT_TOLERANCE, FaultTolerance.SHRINK);
        UsageException e = assertThrows(UsageException.class, () -> RunCommand.elasticBackend(shrink, PLUGINS));
        assertEquals("--fault-tolerance shrink needs a launcher that runs the MPI's fault tolerance (ULFM), which"
                + " direct cannot; use --launcher mpirun, or --fault-tolerance relaunch", e.getMessage());
        RunSettings relaunch = shrink.with(RunOptionTable.FAULT_TOLERANCE, FaultTolerance.RELAUNCH);
        assertSame(DIRECT, RunCommand.elasticBackend(relaunch, PLUGINS));
    }
}
