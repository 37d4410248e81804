package org.troika.launcher.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DoctorReportTests {
    @Test
    void warningsAndSkipsDoNotFailButOneFailureDoes() {
        DoctorReport fine = new DoctorReport(List.of(Check.ok("mpi", null, "Open MPI 4"),
                Check.warn("clock", "n1", "clock +3000 ms", "sync"), Check.skip("hosts", null, "none")),
                Duration.ofMillis(1200));
        assertTrue(fine.ok());
        assertEquals(0, fine.exitCode());
        DoctorReport bad = new DoctorReport(List.of(Check.ok("mpi", null, "x"),
                Check.fail("remote-shell", "n2", "exit 255", "check ssh")), Duration.ZERO);
        assertFalse(bad.ok());
        assertEquals(DoctorReport.EXIT_FAILED, bad.exitCode());
        assertTrue(bad.text().contains("[FAIL] remote-shell (n2): exit 255\n       fix: check ssh\n"), bad.text());
        assertTrue(bad.text().contains("1 problem(s) stop a run"), bad.text());
    }

    @Test
    void jsonHasOneObjectPerCheckWithEscapedText() {
        DoctorReport r = new DoctorReport(List.of(Check.fail("allocation", null, "hostfile \"h\"\nline 2", null)),
                Duration.ofMillis(1500));
        assertEquals("{\"ok\":false,\"seconds\":1.5,\"checks\":[{\"name\":\"allocation\",\"host\":null,"
                + "\"verdict\":\"fail\",\"detail\":\"hostfile \\\"h\\\"\\nline 2\",\"fix\":null}]}", r.json());
    }

    @Test
    void probeOutputGivesTheRemoteClockAndFreeSpace() {
        String out = "Warning: something\n1763880000123456789\n/tmp tmpfs 1000 10 2048 1% /tmp\n"
                + "/dev/shm shm 4096 0 4096 0% /dev/shm\n";
        assertEquals(1763880000123L, HostChecks.epochMillis(out));
        assertEquals(Map.of("/tmp", 2048L * 1024, "/dev/shm", 4096L * 1024), HostChecks.freeBytes(out));
        assertNull(HostChecks.epochMillis("ssh: connect to host n1 port 22: No route to host\n"));
    }

    @Test
    void skewWithinTheRoundTripBoundIsNotWarned() {
        assertEquals(Check.Verdict.OK, HostChecks.skew("n1", 1400, 500).verdict());
        assertEquals(Check.Verdict.WARN, HostChecks.skew("n1", -2000, 100).verdict());
        assertEquals(Check.Verdict.WARN, Doctor.free("disk", "n1", "/dev/shm", 1L << 20, Doctor.MIN_SHM_BYTES).verdict());
        assertEquals(Check.Verdict.OK, Doctor.free("disk", "n1", "/tmp", 1L << 30, Doctor.MIN_TMP_BYTES).verdict());
    }
}
