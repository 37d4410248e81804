package org.troika.rsh.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CommandPlannerTest {
    @Test
    void aCommandLineIsReparsedByTheShell() {
        assertEquals(List.of("setsid", "-w", "/bin/sh", "-c", " orted -mca ess \"env\""),
                CommandPlanner.plan(" orted -mca ess \"env\"", null, Map.of()).argv());
    }

    @Test
    void aPrivateHostnameRunsTheShellInANewUtsNamespace() {
        assertEquals(List.of("setsid", "-w", "unshare", "--uts", "/bin/sh", "-c", "hostname \"$0\" && exec /bin/sh -c \"$1\"", "node2",
                "orted"), CommandPlanner.plan("orted", "node2", Map.of("A", "b")).argv());
    }

    /** The PRRTE daemon's command line as Open MPI 5.0.7's mpirun gives it to the agent (shortened). */
    private static final String PRTED = "PRTE_PREFIX=/usr;export PRTE_PREFIX;LD_LIBRARY_PATH=/usr/lib:$LD_LIBRARY_PATH;"
            + "export LD_LIBRARY_PATH;/usr/bin/prted --prtemca ess \"env\" --prtemca ess_base_vpid 1 --tree-spawn";

    @Test
    void aPrrteDaemonGetsTheGuardPreloadedBeforeWhatWasPreloaded() {
        String lib = "/opt/troika/lib/libtroika-prted-guard.so";
        assertEquals(lib, CommandPlanner.plan(PRTED, null, Map.of("TROIKA_PRTED_GUARD_LIB", lib)).env()
                .get("LD_PRELOAD"));
        assertEquals(lib + ":/usr/lib/libmine.so", CommandPlanner.plan(PRTED, "node2",
                Map.of("TROIKA_PRTED_GUARD_LIB", lib, "LD_PRELOAD", "/usr/lib/libmine.so")).env().get("LD_PRELOAD"));
        // a bare prted on the PATH (no prefix) is a daemon too
        assertEquals(lib, CommandPlanner.guarded("prted --daemonize", Map.of("TROIKA_PRTED_GUARD_LIB", lib))
                .get("LD_PRELOAD"));
    }

    @Test
    void otherCommandsAndHostsWithoutTheLibraryGetNoPreload() {
        String lib = "/opt/troika/lib/libtroika-prted-guard.so";
        Map<String, String> env = Map.of("TROIKA_PRTED_GUARD_LIB", lib);
        // Open MPI 4's daemon, a command that only names prted inside a word, a rank's own command
        for (String line : List.of(" orted -mca ess \"env\" -mca ess_base_vpid 1", "/usr/bin/prtedx --x",
                "echo notprted", "java -cp app.jar Train")) {
            assertFalse(CommandPlanner.plan(line, null, env).env().containsKey("LD_PRELOAD"), line);
        }
        // no library on this host (not built, or TROIKA_PRTED_GUARD=off): the daemon starts as before
        assertFalse(CommandPlanner.plan(PRTED, null, Map.of()).env().containsKey("LD_PRELOAD"));
        assertFalse(CommandPlanner.plan(PRTED, null, Map.of("TROIKA_PRTED_GUARD_LIB", "")).env()
                .containsKey("LD_PRELOAD"));
    }
}
