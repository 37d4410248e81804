package org.troika.launcher.relay;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HostStateTest {
    @Test
    void onlyLostAndStoppedAreFinalAndNothingLeavesThem() {
        assertEquals(EnumSet.of(HostState.LOST, HostState.STOPPED), EnumSet.copyOf(
                java.util.Arrays.stream(HostState.values()).filter(HostState::isFinal).toList()));
        for (HostState f : EnumSet.of(HostState.LOST, HostState.STOPPED)) {
            for (HostState next : HostState.values()) {
                assertEquals(false, f.canBecome(next), f + " -> " + next);
            }
        }
    }

    @Test
    void theTransitionsAreTheLifecycle() {
        assertAll(
                () -> assertEquals(Set.of(HostState.REGISTERED, HostState.STOPPED), allowed(HostState.STARTING)),
                () -> assertEquals(Set.of(HostState.PROVISIONED, HostState.LOST, HostState.STOPPED),
                        allowed(HostState.REGISTERED)),
                () -> assertEquals(Set.of(HostState.LOST, HostState.STOPPED), allowed(HostState.PROVISIONED)),
                () -> assertEquals(EnumSet.of(HostState.REGISTERED, HostState.PROVISIONED), EnumSet.copyOf(
                        java.util.Arrays.stream(HostState.values()).filter(HostState::isUp).toList())));
    }

    private static Set<HostState> allowed(HostState from) {
        Set<HostState> out = EnumSet.noneOf(HostState.class);
        for (HostState next : HostState.values()) {
            if (from.canBecome(next)) {
                out.add(next);
            }
        }
        return out;
    }
}
