package org.troika.rsh.task;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SignalExitTest {
    @Test
    void aTerminatedCommandReportsTheShellsCodeWhicheverProcessTheSignalReachedFirst() {
        assertEquals(143, TaskService.signalExit(15)); // setsid -w outlived its child and reported the signal number
        assertEquals(143, TaskService.signalExit(143)); // setsid -w itself died of SIGTERM
        assertEquals(137, TaskService.signalExit(9));
        assertEquals(0, TaskService.signalExit(0));
        assertEquals(2, TaskService.signalExit(2)); // a program's own exit code is left alone
    }
}
