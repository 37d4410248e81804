package org.troika.launcher.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/troika-rankenv} turns on Open MPI's {@code mpi_yield_when_idle} for a rank whose host runs more of the
 * job's ranks than CPUs the rank may use (Open MPI does so itself only when the ranks outnumber the host's slots,
 * which troika declares as many as the ranks): the boundary under {@code taskset}, a user's own setting, the switch
 * and MPICH.
 */
class RankEnvYieldScriptTest {
    private static final String PRINT = "echo \"${OMPI_MCA_mpi_yield_when_idle-unset}\"";

    /** What the rank sees for the parameter, run as {@code [prefix...] sh troika-rankenv sh -c PRINT}. */
    private static String seenValue(Map<String, String> env, String... prefix) throws Exception {
        RankEnvScriptTest.Result r = RankEnvScriptTest.run(List.of(prefix), env, "sh", "-c", PRINT);
        assertEquals(0, r.exit(), r.err());
        assertEquals("", r.err(), "nothing added to the rank's error output");
        return r.out().strip();
    }

    private static Map<String, String> openMpiRank(int localSize, String... more) {
        Map<String, String> env = new HashMap<>(Map.of("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE",
                Integer.toString(localSize), "OMPI_COMM_WORLD_LOCAL_RANK", "0", "OMPI_COMM_WORLD_LOCAL_SIZE",
                Integer.toString(localSize), "TROIKA_OMPI_PML_AUTO", "0"));
        for (int i = 0; i < more.length; i += 2) {
            env.put(more[i], more[i + 1]);
        }
        return env;
    }

    @Test
    void moreRanksThanCpusYieldAsManyDoNot() throws Exception {
        assertEquals("1", seenValue(openMpiRank(100_000)), "more ranks on the host than any machine's CPUs");
        assertEquals("unset", seenValue(openMpiRank(1)), "one rank never outnumbers the CPUs");
    }

    /**
     * The CPUs are the host's (the cpuset, else the online ones), not the rank's own affinity, which Open MPI's binding
     * narrows to the rank's share: pinned to one CPU, as many ranks as the host's CPUs still do not yield, one more does.
     */
    @Test
    void theCountIsTheHostsCpusNotTheRanksBinding() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/taskset")),
                "no taskset (util-linux) on this machine to bind the script to one CPU");
        int cpus = org.troika.testkit.HostCpus.count();
        org.junit.jupiter.api.Assumptions.assumeTrue(cpus >= 2, "a host with one CPU: binding narrows nothing");
        String one = firstAllowedCpu();
        assertEquals("unset", seenValue(openMpiRank(cpus), "taskset", "-c", one));
        assertEquals("1", seenValue(openMpiRank(cpus + 1), "taskset", "-c", one));
        assertEquals("unset", seenValue(openMpiRank(cpus)));
        assertEquals("1", seenValue(openMpiRank(cpus + 1)));
    }

    /** The first CPU this process may run on (CPU 0 need not be one of them in a container or an allocation). */
    private static String firstAllowedCpu() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return line.substring(line.indexOf(':') + 1).trim().split("[-,]")[0];
            }
        }
        throw new AssertionError("no Cpus_allowed_list in /proc/self/status");
    }

    @Test
    void aUsersSettingTheSwitchAndOtherMpisAreLeftAlone() throws Exception {
        assertEquals("0", seenValue(openMpiRank(100_000, "OMPI_MCA_mpi_yield_when_idle", "0")), "the user's own");
        assertEquals("", seenValue(openMpiRank(100_000, "OMPI_MCA_mpi_yield_when_idle", "")), "set, even if empty");
        assertEquals("unset", seenValue(openMpiRank(100_000, "TROIKA_YIELD_WHEN_OVERSUBSCRIBED", "0")), "switched off");
        assertEquals("unset", seenValue(Map.of("PMI_RANK", "0", "PMI_SIZE", "1", "MPI_LOCALRANKID", "0",
                "MPI_LOCALNRANKS", "100000")), "MPICH");
        assertEquals("unset", seenValue(openMpiRank(100_000, "OMPI_COMM_WORLD_LOCAL_SIZE", "")),
                "no local size (the layout gives one only with TROIKA_HOSTS or TROIKA_HOST_SLOTS)");
    }
}
