package org.troika.rsh.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CommandPlannerTest {
    @Test
    void aCommandLineIsReparsedByTheShell() {
        assertEquals(List.of("setsid", "-w", "/bin/sh", "-c", " orted -mca ess \"env\""),
                CommandPlanner.plan(" orted -mca ess \"env\"", null, Map.of(), null).argv());
    }

    @Test
    void aPrivateHostnameRunsTheShellInANewUtsNamespace() {
        assertEquals(List.of("setsid", "-w", "unshare", "--uts", "/bin/sh", "-c", "hostname \"$0\" && exec /bin/sh -c \"$1\"", "node2",
                "orted"), CommandPlanner.plan("orted", "node2", Map.of("A", "b"), null).argv());
    }

    /** The PRRTE daemon's command line as Open MPI 5.0.7's mpirun gives it to the agent (shortened). */
    private static final String PRTED = "PRTE_PREFIX=/usr;export PRTE_PREFIX;LD_LIBRARY_PATH=/usr/lib:$LD_LIBRARY_PATH;"
            + "export LD_LIBRARY_PATH;/usr/bin/prted --prtemca ess \"env\" --prtemca ess_base_vpid 1 --tree-spawn";

    @Test
    void aPrrteDaemonGetsTheGuardPreloadedBeforeWhatWasPreloaded() {
        Path lib = Path.of("/opt/troika/lib/libtroika-prted-guard.so");
        assertEquals(lib.toString(), CommandPlanner.plan(PRTED, null, Map.of(), lib).env().get("LD_PRELOAD"));
        assertEquals(lib + ":/usr/lib/libmine.so", CommandPlanner.plan(PRTED, "node2",
                Map.of("LD_PRELOAD", "/usr/lib/libmine.so"), lib).env().get("LD_PRELOAD"));
        // a bare prted on the PATH (no prefix) is a daemon too
        assertEquals(lib.toString(), CommandPlanner.guarded("prted --daemonize", Map.of(), lib).get("LD_PRELOAD"));
    }

    @Test
    void otherCommandsAndHostsWithoutTheLibraryGetNoPreload() {
        Path lib = Path.of("/opt/troika/lib/libtroika-prted-guard.so");
        // Open MPI 4's daemon, a command that only names prted inside a word, a rank's own command
        for (String line : List.of(" orted -mca ess \"env\" -mca ess_base_vpid 1", "/usr/bin/prtedx --x",
                "echo notprted", "java -cp app.jar Train")) {
            assertFalse(CommandPlanner.plan(line, null, Map.of(), lib).env().containsKey("LD_PRELOAD"), line);
        }
        // no library on this host (not built, TROIKA_PRTED_GUARD=off, or a service without an installation such as
        // Spark's): the daemon starts as before, a preload of the user's kept as it is
        assertFalse(CommandPlanner.plan(PRTED, null, Map.of(), null).env().containsKey("LD_PRELOAD"));
        assertEquals("/usr/lib/libmine.so", CommandPlanner.plan(PRTED, null, Map.of("LD_PRELOAD",
                "/usr/lib/libmine.so"), null).env().get("LD_PRELOAD"));
    }
}
