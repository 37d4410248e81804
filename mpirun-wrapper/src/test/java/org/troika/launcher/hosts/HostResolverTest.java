package org.troika.launcher.hosts;

import org.troika.launcher.spi.HostSlots;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.launcher.options.RunOptionTable.NP;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.Allocation;
import org.troika.launcher.spi.FileSource;
import org.troika.launcher.spi.JobEnvironment;

class HostResolverTest {
    private static final CommandRunner NO_PROBES = (argv, t) -> {
        throw new AssertionError("no probe expected");
    };
    private static final FileSource NO_FILES = p -> {
        throw new AssertionError("no file expected");
    };

    /** A batch system marked by FAKE_JOB whose allocation is a:2,b:2. */
    private static final JobEnvironment FAKE = new JobEnvironment() {
        @Override public String name() { return "fake"; }
        @Override public boolean detect(Map<String, String> env) { return env.containsKey("FAKE_JOB"); }
        @Override public Allocation allocation(Map<String, String> env, FileSource f, CommandRunner p) {
            return new Allocation("fake", "fake job 7", List.of(new HostSlots("a", 2), new HostSlots("b", 2)), 0, null, false);
        }
    };

    private static HostResolver.Resolved resolve(RunSettings s, Map<String, String> env) {
        return HostResolver.resolve(s, env, List.of(FAKE), NO_FILES, NO_PROBES);
    }

    @Test
    void explicitHostsWinOverTheAllocation() {
        RunSettings s = RunSettings.of(List.of())
                .with(new RunSettings.Hosts(null, List.of(new HostSlots("x", 3)), "-H"));
        HostResolver.Resolved r = resolve(s, Map.of("FAKE_JOB", "7"));
        assertEquals("x:3", r.plan().hostList());
        assertNull(r.allocation());
    }

    @Test
    void allocationGivesHostsAndDefaultNp() {
        HostResolver.Resolved r = resolve(RunSettings.of(List.of()), Map.of("FAKE_JOB", "7"));
        assertEquals("a:2,b:2", r.plan().hostList());
        assertEquals(4, r.plan().size());
        assertEquals("fake job 7", r.plan().source());
        assertSame("fake", r.allocation().scheduler());
    }

    @Test
    void npAloneInsideAnAllocationTakesTheFirstSlots() {
        HostResolver.Resolved r = resolve(RunSettings.of(List.of()).with(NP, 3), Map.of("FAKE_JOB", "7"));
        assertEquals("a:2,b:1", r.plan().hostList());
    }

    @Test
    void npAboveTheAllocationIsAUsageError() {
        UsageException e = assertThrows(UsageException.class,
                () -> resolve(RunSettings.of(List.of()).with(NP, 5), Map.of("FAKE_JOB", "7")));
        assertTrue(e.getMessage().contains("more than the 4 slots of fake job 7"), e.getMessage());
    }

    @Test
    void withoutHostsOrAllocationRunsOnLocalhost() {
        assertEquals("localhost:4", resolve(RunSettings.of(List.of()).with(NP, 4), Map.of()).plan().hostList());
        UsageException e = assertThrows(UsageException.class, () -> resolve(RunSettings.of(List.of()), Map.of()));
        assertTrue(e.getMessage().contains("pass -np N"), e.getMessage());
    }
}
