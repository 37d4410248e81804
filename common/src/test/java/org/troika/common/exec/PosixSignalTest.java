package org.troika.common.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class PosixSignalTest {
    @Test
    void deathBySignalMapsTo128PlusTheNumber() {
        assertEquals(143, PosixSignal.TERM.exitCode());
        assertEquals(137, PosixSignal.KILL.exitCode());
        assertEquals(130, PosixSignal.INT.exitCode());
        assertEquals(129, PosixSignal.exitCodeOf(1));
    }

    @Test
    void rejectsNumbersThatAreNoSignal() {
        assertThrows(IllegalArgumentException.class, () -> PosixSignal.exitCodeOf(0));
        assertThrows(IllegalArgumentException.class, () -> PosixSignal.exitCodeOf(65));
    }
}
