package org.troika.slurm;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.Allocation;
import org.troika.launcher.hosts.HostResolver;
import org.troika.launcher.spi.FileSource;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.JobEnvironment;

class SlurmEnvironmentTest {
    private static final FileSource NO_FILES = p -> { throw new AssertionError("no file expected: " + p); };
    private static final CommandRunner NO_PROBES = (argv, t) -> { throw new AssertionError("no probe: " + argv); };
    private final SlurmEnvironment slurm = new SlurmEnvironment();

    private Allocation read(Map<String, String> env) {
        return slurm.allocation(env, NO_FILES, NO_PROBES);
    }

    /** Recorded from `sbatch -N3 -n6` on the emulated 3-node cluster (MEASURED-HERE §4.2). */
    private static final Map<String, String> SBATCH_N3_N6 = Map.of(
            "SLURM_JOB_ID", "7", "SLURM_JOB_NODELIST", "n[1-3]", "SLURM_TASKS_PER_NODE", "2(x3)",
            "SLURM_NTASKS", "6", "SLURM_CPUS_ON_NODE", "2", "SLURM_JOB_CPUS_PER_NODE", "2(x3)",
            "SLURM_TOPOLOGY_ADDR", "n1");

    @Test
    void readsRecordedSbatchEnvironment() {
        Allocation a = read(SBATCH_N3_N6);
        assertAll(
                () -> assertEquals("slurm", a.scheduler()),
                () -> assertEquals(List.of(new HostSlots("n1", 2), new HostSlots("n2", 2), new HostSlots("n3", 2)),
                        a.hosts()),
                () -> assertEquals(6, a.totalSlots()),
                () -> assertEquals("srun", a.remoteShell()),
                () -> assertTrue(a.mpiReadsAllocation()),
                () -> assertEquals(0, a.gpusPerHost()),
                () -> assertTrue(a.description().contains("slurm job 7"), a.description()),
                () -> assertTrue(a.description().contains("n[1-3]"), a.description()));
    }

    @Test
    void unevenTasksFollowNodeOrder() {
        Allocation a = read(Map.of("SLURM_JOB_ID", "8", "SLURM_JOB_NODELIST", "n[1-3]", "SLURM_TASKS_PER_NODE", "2(x2),1"));
        assertEquals(List.of(new HostSlots("n1", 2), new HostSlots("n2", 2), new HostSlots("n3", 1)), a.hosts());
    }

    @Test
    void fallsBackToOldNamesAndCpusPerNode() {
        Allocation a = read(Map.of("SLURM_JOBID", "9", "SLURM_NODELIST", "gpu[01-02]", "SLURM_JOB_CPUS_PER_NODE", "4(x2)"));
        assertEquals(List.of(new HostSlots("gpu01", 4), new HostSlots("gpu02", 4)), a.hosts());
    }

    @Test
    void tasksPerNodeWinsOverCpusPerNode() {
        Allocation a = read(Map.of("SLURM_JOB_ID", "1", "SLURM_JOB_NODELIST", "localhost",
                "SLURM_TASKS_PER_NODE", "3", "SLURM_JOB_CPUS_PER_NODE", "4"));
        assertEquals(List.of(new HostSlots("localhost", 3)), a.hosts());
    }

    @Test
    void readsGpus() {
        assertAll(
                () -> assertEquals(4, SlurmEnvironment.gpus(Map.of("SLURM_GPUS_ON_NODE", "4"))),
                () -> assertEquals(2, SlurmEnvironment.gpus(Map.of("SLURM_GPUS_PER_NODE", "a100:2"))),
                () -> assertEquals(3, SlurmEnvironment.gpus(Map.of("SLURM_GPUS_PER_NODE", "a100:2,v100:1"))),
                () -> assertEquals(4, SlurmEnvironment.gpus(Map.of("SLURM_GPUS_ON_NODE", "4", "SLURM_GPUS_PER_NODE", "8"))),
                () -> assertThrows(UsageException.class, () -> SlurmEnvironment.gpus(Map.of("SLURM_GPUS_ON_NODE", "four"))));
    }

    @Test
    void detectsOnlySlurmJobs() {
        assertAll(
                () -> assertTrue(slurm.detect(Map.of("SLURM_JOB_ID", "1"))),
                () -> assertTrue(slurm.detect(Map.of("SLURM_JOBID", "1"))),
                () -> assertFalse(slurm.detect(Map.of("SLURM_CONF", "/etc/slurm/slurm.conf"))),
                () -> assertFalse(slurm.detect(Map.of("SLURM_JOB_ID", " "))),
                () -> assertFalse(slurm.detect(Map.of("LSB_JOBID", "1"))));
    }

    @Test
    void malformedEnvironmentsGiveOneLineUsageErrors() {
        List<Map<String, String>> bad = List.of(
                Map.of("SLURM_JOB_ID", "1"),
                Map.of("SLURM_JOB_ID", "1", "SLURM_JOB_NODELIST", "n[1-3]"),
                Map.of("SLURM_JOB_ID", "1", "SLURM_JOB_NODELIST", "n[1-3", "SLURM_TASKS_PER_NODE", "1(x3)"),
                Map.of("SLURM_JOB_ID", "1", "SLURM_JOB_NODELIST", "n[1-3]", "SLURM_TASKS_PER_NODE", "2(x)"),
                Map.of("SLURM_JOB_ID", "1", "SLURM_JOB_NODELIST", "n[1-3]", "SLURM_TASKS_PER_NODE", "2(x2)"),
                Map.of("SLURM_JOB_ID", "1", "SLURM_JOB_NODELIST", "n[1-2]", "SLURM_TASKS_PER_NODE", "1(x3)"));
        for (Map<String, String> env : bad) {
            UsageException e = assertThrows(UsageException.class, () -> read(env), env.toString());
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
        }
    }

    @Test
    void hostNamesAndCountsGoThroughTheOneHostCheck() {
        Map<Map<String, String>, String> bad = Map.of(
                Map.of("SLURM_JOB_ID", "1", "SLURM_JOB_NODELIST", "-np", "SLURM_TASKS_PER_NODE", "1"),
                "SLURM_JOB_NODELIST host 1: host name '-np' starts with '-'",
                Map.of("SLURM_JOB_ID", "1", "SLURM_JOB_NODELIST", "n1,--mca", "SLURM_TASKS_PER_NODE", "1(x2)"),
                "SLURM_JOB_NODELIST host 2: host name '--mca' starts with '-'",
                Map.of("SLURM_JOB_ID", "1", "SLURM_NODELIST", "a" + "b".repeat(300), "SLURM_TASKS_PER_NODE", "1"),
                "is 301 characters long, more than 253",
                Map.of("SLURM_JOB_ID", "1", "SLURM_JOB_NODELIST", "n1", "SLURM_TASKS_PER_NODE", "999999999"),
                "slot count 999999999 is more than troika's limit of 1048576",
                Map.of("SLURM_JOB_ID", "1", "SLURM_JOB_NODELIST", "n[1-3]", "SLURM_TASKS_PER_NODE", "1048576(x3)"),
                "3145728 slots in all, more than troika's limit");
        bad.forEach((env, fragment) -> {
            UsageException e = assertThrows(UsageException.class, () -> HostResolver.resolve(
                    RunSettings.of(List.of("true")), env, List.of(slurm), NO_FILES, null),
                    env.toString());
            assertTrue(e.getMessage().contains(fragment), e.getMessage());
        });
    }

    @Test
    void isRegisteredAsService() {
        List<String> names = ServiceLoader.load(JobEnvironment.class).stream().map(p -> p.get().name()).toList();
        assertTrue(names.contains("slurm"), names.toString());
    }
}
