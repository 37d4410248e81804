package org.troika.rsh.task;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
