package org.troika.launcher.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.launcher.options.RunOptionTable.LAUNCH_AGENT;
import static org.troika.launcher.options.RunOptionTable.REMOTE_SHELL;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.MpiFlavor;
import org.troika.launcher.spi.MpiInstall;
import org.troika.launcher.timeline.Timeline;

class RelaySessionTest {
    private static final MpiInstall OMPI4 = new MpiInstall(MpiFlavor.OPEN_MPI, 4, "");
    private static final MpiInstall MPICH = new MpiInstall(MpiFlavor.MPICH, 4, "");

    private static RunSettings settings(String remoteShell, RunSettings.LaunchAgent agent) {
        return RunSettings.of(List.of("true")).with(REMOTE_SHELL, remoteShell).with(LAUNCH_AGENT, agent);
    }

    @Test
    void servicesRunOnlyWhenAskedForAndOnlyForOpenMpiWithRemoteHosts() {
        List<String> remote = List.of("node1", "node2");
        assertFalse(RelaySession.servicesWanted(settings(null, RunSettings.LaunchAgent.AUTO), OMPI4, remote));
        assertTrue(RelaySession.servicesWanted(settings(null, RunSettings.LaunchAgent.RELAY), OMPI4, remote));
        assertTrue(RelaySession.servicesWanted(settings("srun", RunSettings.LaunchAgent.AUTO), OMPI4, remote));
        assertTrue(RelaySession.servicesWanted(settings("srun", RunSettings.LaunchAgent.SSH), OMPI4, remote));
        assertFalse(RelaySession.servicesWanted(settings("srun", RunSettings.LaunchAgent.AUTO), MPICH, remote));
        assertFalse(RelaySession.servicesWanted(settings(null, RunSettings.LaunchAgent.RELAY), OMPI4, List.of()));
    }

    private static RelaySession.Request request(RunSettings s, MpiInstall mpi) {
        return new RelaySession.Request(s, mpi, new RemoteShell(s, null, Map.of()), Map.of(), null,
                new PrintStream(java.io.OutputStream.nullOutputStream()), false, Timeline.off());
    }

    @Test
    void relayWithHydraIsAUsageError() {
        assertThrows(UsageException.class, () -> RelaySession.open(request(settings(null,
                RunSettings.LaunchAgent.RELAY), MPICH), List.of("node7"), false));
    }

    @Test
    void aRemoteShellTemplateWithoutHostIsAUsageErrorBeforeAnythingStarts() {
        RunSettings s = settings("sh -c 'sleep 3; exec \"$@\"' sh", RunSettings.LaunchAgent.RELAY);
        UsageException e = assertThrows(UsageException.class, () -> RelaySession.open(request(s, OMPI4),
                List.of("node7"), false));
        assertTrue(e.getMessage().contains("has no {host} placeholder"), e.getMessage());
    }

    @Test
    void anInactiveSessionChangesNothing() throws Exception {
        HostPlan plan = HostPlan.assign("-H", List.of(new HostSlots("localhost", 2)), 2);
        RunSettings s = settings(null, RunSettings.LaunchAgent.AUTO);
        try (RelaySession r = RelaySession.open(request(s, OMPI4), HostAddresses.remoteHosts(plan), false)) {
            RelaySession.Launch launch = r.launch(plan, s);
            assertFalse(launch.active());
            assertEquals(s, launch.settings());
            assertNull(launch.agent());
            assertFalse(r.wanted());
        }
    }
}
