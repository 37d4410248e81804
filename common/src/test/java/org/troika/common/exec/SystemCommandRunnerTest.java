package org.troika.common.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SystemCommandRunnerTest {
    private final String marker = UUID.randomUUID().toString();
    private final SystemCommandRunner runner =
            new SystemCommandRunner(Map.of("PATH", "/usr/bin:/bin", ProcessSupervisorTest.MARKER, marker));

    @Test
    void capturesStdoutAndStderrTogether() {
        CommandRunner.ProbeResult r = runner.run(List.of("sh", "-c", "echo out; echo err >&2; exit 4"), Duration.ofSeconds(60));
        assertEquals(4, r.exitCode());
        assertTrue(r.output().contains("out\n") && r.output().contains("err\n"), r.output());
    }

    @Test
    void missingProgramIsNotFound() {
        assertEquals(CommandRunner.ProbeResult.NOT_FOUND,
                runner.run(List.of("troika-no-such-program"), Duration.ofSeconds(60)).exitCode());
        assertEquals(CommandRunner.ProbeResult.NOT_FOUND,
                runner.run(List.of("/etc/hostname"), Duration.ofSeconds(60)).exitCode());
    }

    @Test
    void timeoutKillsTheProbeTree() throws InterruptedException {
        CommandRunner.ProbeResult r = runner.run(List.of("sh", "-c", "echo started; sleep 300 & sleep 300"),
                Duration.ofMillis(300));
        assertEquals(CommandRunner.ProbeResult.TIMED_OUT, r.exitCode());
        ProcessSupervisorTest.assertNoSurvivors(marker);
    }
}
