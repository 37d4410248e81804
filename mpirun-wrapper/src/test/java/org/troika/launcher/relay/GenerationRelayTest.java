package org.troika.launcher.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class GenerationRelayTest {
    @Test
    void theRunningGenerationsHostsKeepTheirServicesBesideTheUsableOnes() {
        // a host that left the usable set keeps its service while the running generation still has ranks there
        assertEquals(List.of("a", "b", "c"), GenerationRelay.servedHosts(List.of("b", "c"), List.of("a", "b")));
        assertEquals(List.of("b", "c"), GenerationRelay.servedHosts(List.of("b", "c"), List.of()));
    }
}
