package org.troika.pbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.Allocation;
import org.troika.launcher.spi.FileSource;
import org.troika.launcher.spi.JobEnvironment;

class PbsEnvironmentTest {
    private final PbsEnvironment pbs = new PbsEnvironment();
    private static final Map<String, String> ENV = Map.of("PBS_JOBID", "123.server", "PBS_NODEFILE", "/var/spool/pbs/aux/123");

    private Allocation read(List<String> lines) {
        FileSource files = p -> {
            assertEquals(Path.of("/var/spool/pbs/aux/123"), p);
            return lines;
        };
        return pbs.allocation(ENV, files, (a, t) -> { throw new AssertionError(); });
    }

    @Test
    void countsOneLinePerSlotInFirstSeenOrder() {
        Allocation a = read(List.of("node2", "node2", "node1", "", "# comment", "node1", "node3", "node2"));
        assertEquals(List.of(new HostSlots("node2", 3), new HostSlots("node1", 2), new HostSlots("node3", 1)), a.hosts());
        assertEquals("pbs", a.scheduler());
        assertFalse(a.mpiReadsAllocation());
        assertNull(a.remoteShell());
        assertTrue(a.description().contains("123.server"), a.description());
    }

    @Test
    void emptyNodefileIsAUsageError() {
        UsageException e = assertThrows(UsageException.class, () -> read(List.of()));
        assertTrue(e.getMessage().contains("lists no hosts"), e.getMessage());
        assertThrows(UsageException.class, () -> read(List.of("", "  ")));
    }

    @Test
    void badLineNamesTheLine() {
        UsageException e = assertThrows(UsageException.class, () -> read(List.of("node1", "node2 slots=4")));
        assertTrue(e.getMessage().contains("line 2"), e.getMessage());
    }

    @Test
    void unreadableOrMissingNodefileIsAUsageError() {
        FileSource missing = p -> { throw new NoSuchFileException(p.toString()); };
        assertThrows(UsageException.class, () -> pbs.allocation(ENV, missing, null));
        assertThrows(UsageException.class, () -> pbs.allocation(Map.of("PBS_JOBID", "1"), missing, null));
    }

    @Test
    void detectsByJobIdOrNodefile() throws IOException {
        assertTrue(pbs.detect(Map.of("PBS_JOBID", "1")));
        assertTrue(pbs.detect(Map.of("PBS_NODEFILE", "/x")));
        assertFalse(pbs.detect(Map.of("SLURM_JOB_ID", "1")));
    }

    @Test
    void isRegisteredAsService() {
        List<String> names = ServiceLoader.load(JobEnvironment.class).stream().map(p -> p.get().name()).toList();
        assertTrue(names.contains("pbs"), names.toString());
    }
}
