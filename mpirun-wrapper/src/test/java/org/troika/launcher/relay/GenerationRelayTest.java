package org.troika.launcher.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class GenerationRelayTest {
    @Test
    void theRunningGenerationsHostsKeepTheirServicesBesideTheUsableOnes() {
        // a host that left the usable set keeps its service while the running generation still has ranks there
        assertEquals(List.of("a", "b", "c"), GenerationRelay.servedHosts(List.of("b", "c"),
                List.of(List.of("a", "b"))));
        assertEquals(List.of("b", "c"), GenerationRelay.servedHosts(List.of("b", "c"), List.of()));
        // a generation that ended early (every rank left) keeps its hosts while its mpirun still ends and the next
        // generation already runs on others
        assertEquals(List.of("a", "b", "d", "c"), GenerationRelay.servedHosts(List.of("b", "c"),
                List.of(List.of("a", "b"), List.of("b", "d"))));
    }
}
