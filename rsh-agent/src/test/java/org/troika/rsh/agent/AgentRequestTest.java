package org.troika.rsh.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;

class AgentRequestTest {
    @Test
    void theHostIsTheFirstWordAndTheRestIsOneRemoteCommandLine() {
        // the real argv shape (MEASURED-HERE 2.1): " orted" with a leading space, values with literal double quotes
        AgentRequest r = AgentRequest.parse(List.of("node1", " orted", "-mca", "ess", "\"env\"", "-mca",
                "orte_hnp_uri", "\"1.0;tcp://10.0.0.1:4000\""));
        assertEquals("node1", r.host());
        assertEquals(" orted -mca ess \"env\" -mca orte_hnp_uri \"1.0;tcp://10.0.0.1:4000\"", r.commandLine());
    }

    @Test
    void openMpiDaemonsOfOrteAndPrrteAreRecognisedByTheirTreeSpawnOrDaemonizeWord() {
        // ORTE with tree spawn (MEASURED-HERE 2.1), PRRTE without (OPENMPI5.md: one shell string, then words)
        assertTrue(AgentRequest.parse(List.of("10.0.0.2", " orted", "-mca", "ess", "\"env\"", "--tree-spawn", "-mca",
                "routed", "\"radix\"")).daemon());
        assertTrue(AgentRequest.parse(List.of("node2", "PRTE_PREFIX=/usr;export PRTE_PREFIX;/usr/bin/prted",
                "--daemonize", "--prtemca", "ess", "\"env\"")).daemon());
        // anything else is relayed for as long as it runs, like ssh; a word merely containing the flag is not it
        assertFalse(AgentRequest.parse(List.of("node1", "sleep", "10")).daemon());
        assertFalse(AgentRequest.parse(List.of("node1", "echo", "--tree-spawned")).daemon());
    }

    @Test
    void oldOpenMpiHostWordsWithSlotsAreRefused() {
        UsageException e = assertThrows(UsageException.class, () -> AgentRequest.parse(List.of("node1:4", "orted")));
        assertEquals(true, e.getMessage().contains("Open MPI 4"));
    }

    @Test
    void missingCommandOrOptionsBeforeTheHostAreUsageErrors() {
        assertThrows(UsageException.class, () -> AgentRequest.parse(List.of("node1")));
        assertThrows(UsageException.class, () -> AgentRequest.parse(List.of("-p", "22", "node1", "orted")));
    }
}
