package org.troika.lsf;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner;
import org.troika.common.exec.CommandRunner.ProbeResult;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.Allocation;
import org.troika.launcher.spi.FileSource;
import org.troika.launcher.spi.JobEnvironment;

class LsfEnvironmentTest {
    private static final FileSource NO_FILES = p -> { throw new NoSuchFileException(p.toString()); };
    private static final CommandRunner NO_PROBES = (argv, t) -> { throw new AssertionError("no probe: " + argv); };
    private final LsfEnvironment lsf = new LsfEnvironment();

    private Allocation read(Map<String, String> env) {
        return lsf.allocation(env, NO_FILES, NO_PROBES);
    }

    private static Map<String, String> env(String... kv) {
        Map<String, String> m = new HashMap<>();
        m.put("LSB_JOBID", "4242");
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static List<HostSlots> hosts(String spec) {
        List<HostSlots> out = new ArrayList<>();
        for (String hs : spec.split(",")) {
            String[] p = hs.split(":");
            out.add(new HostSlots(p[0], Integer.parseInt(p[1])));
        }
        return out;
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', value = {
        // LSB_MCPU_HOSTS pairs, trailing space, a repeated host adds up
        "LSB_MCPU_HOSTS | 'h1 4 h2 4 '                 | h1:4,h2:4",
        "LSB_MCPU_HOSTS | 'h1  2   h2 1'               | h1:2,h2:1",
        "LSB_MCPU_HOSTS | 'h1 2 h2 1 h1 1'             | h1:3,h2:1",
        // Summit-style: batch node first, dropped by the launch-node rule
        "LSB_MCPU_HOSTS | 'batch3 1 a01n01 42 a01n02 42' | a01n01:42,a01n02:42",
        "LSB_MCPU_HOSTS | 'login1 1 h1 4'              | h1:4",
        // LSB_HOSTS: one token per slot
        "LSB_HOSTS      | 'h1 h1 h2 h1'                | h1:3,h2:1",
        "LSB_HOSTS      | 'batch1 h1 h1'               | h1:2",
    })
    void readsHostVariables(String var, String value, String expected) {
        Allocation a = read(env(var, value));
        assertEquals(hosts(expected), a.hosts());
        assertEquals("blaunch", a.remoteShell());
        assertFalse(a.mpiReadsAllocation());
        assertTrue(a.description().startsWith("lsf job 4242"), a.description());
    }

    @Test
    void mcpuHostsWinOverHostfileAndLsbHosts() {
        Allocation a = read(env("LSB_MCPU_HOSTS", "m1 2", "LSB_DJOB_HOSTFILE", "/nope", "LSB_HOSTS", "x1 x1"));
        assertEquals(hosts("m1:2"), a.hosts());
    }

    @Test
    void readsDjobHostfileBeforeLsbHosts() {
        FileSource files = p -> {
            assertEquals(Path.of("/spool/4242.hostfile"), p);
            return List.of("batch2", "c1", "c1", "c2", "", "c2");
        };
        Allocation a = lsf.allocation(env("LSB_DJOB_HOSTFILE", "/spool/4242.hostfile", "LSB_HOSTS", "x x"),
                files, NO_PROBES);
        assertEquals(hosts("c1:2,c2:2"), a.hosts());
    }

    @Test
    void launchNodeRuleIsConfigurable() {
        assertAll(
                () -> assertEquals(hosts("batch3:1,a1:4"),
                        read(env("LSB_MCPU_HOSTS", "batch3 1 a1 4", "TROIKA_LSF_LAUNCH_NODE_PREFIXES", "")).hosts()),
                () -> assertEquals(hosts("a1:4"),
                        read(env("LSB_MCPU_HOSTS", "launch7 1 a1 4", "TROIKA_LSF_SKIP_FIRST_HOST", "1")).hosts()),
                () -> assertEquals(hosts("a1:4"),
                        read(env("LSB_MCPU_HOSTS", "svc1 1 a1 4", "TROIKA_LSF_LAUNCH_NODE_PREFIXES", "svc")).hosts()));
    }

    @Test
    void gpusFromEnvironmentWhenNoCsm() {
        assertEquals(4, read(env("LSB_MCPU_HOSTS", "h1 4", "TROIKA_GPUS_PER_HOST", "4")).gpusPerHost());
        assertEquals(0, read(env("LSB_MCPU_HOSTS", "h1 4")).gpusPerHost());
        assertThrows(UsageException.class, () -> read(env("LSB_MCPU_HOSTS", "h1 4", "TROIKA_GPUS_PER_HOST", "x")));
    }

    @ParameterizedTest(name = "[{index}] {0}={1}")
    @CsvSource(delimiter = '|', value = {
        "LSB_MCPU_HOSTS | 'h1 4 h2'            | pairs",
        "LSB_MCPU_HOSTS | 'h1 four'            | slot count 'four' is not a whole number",
        "LSB_MCPU_HOSTS | 'h1 0'               | has 0 slots",
        "LSB_MCPU_HOSTS | 'h1 -1'              | slot count '-1' is not a whole number",
        "LSB_MCPU_HOSTS | 'h$1 2'              | host name 'h$1' contains '$'",
        "LSB_MCPU_HOSTS | '-np 1'              | host name '-np' starts with '-'",
        "LSB_MCPU_HOSTS | 'a 1048576 a 1'      | more than troika's limit",
        "LSB_MCPU_HOSTS | 'a 1048576 b 1'      | 1048577 slots in all",
        "LSB_HOSTS      | 'a --mca'            | host name '--mca' starts with '-'",
        "LSB_MCPU_HOSTS | 'batch1 1 login2 1'  | only launch nodes",
        "LSB_HOSTS      | 'batch1'             | only launch nodes",
        "LSB_DJOB_HOSTFILE | /missing          | LSB_DJOB_HOSTFILE=/missing does not exist; pass -H/--hostfile",
        "LSB_JOBNAME    | train                | none of",
    })
    void malformedValuesGiveOneLineUsageErrors(String var, String value, String fragment) {
        UsageException e = assertThrows(UsageException.class, () -> read(env(var, value)));
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
    }

    @Test
    void emptyDjobHostfileIsAUsageError() {
        FileSource empty = p -> List.of("", "   ");
        UsageException e = assertThrows(UsageException.class,
                () -> lsf.allocation(env("LSB_DJOB_HOSTFILE", "/f"), empty, NO_PROBES));
        assertTrue(e.getMessage().contains("lists no hosts"), e.getMessage());
    }

    // --- CSM, with recorded outputs of the query tools ---

    private static String resource(String name) {
        try (InputStream in = LsfEnvironmentTest.class.getResourceAsStream("/csm/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** A fake CSM: answers the two queries with recorded YAML and records the argv it was given. */
    private static CommandRunner csm(String allocationYaml, String nodeYaml, List<List<String>> calls) {
        return (argv, timeout) -> {
            calls.add(argv);
            if (argv.get(0).endsWith("/csm_allocation_query")) {
                return new ProbeResult(0, resource(allocationYaml));
            }
            if (argv.get(0).endsWith("/csm_node_attributes_query")) {
                return new ProbeResult(0, resource(nodeYaml));
            }
            return new ProbeResult(ProbeResult.NOT_FOUND, "no such tool");
        };
    }

    @Test
    void csmAllocationGivesSortedComputeNodesWithOneSlotPerGpu() {
        List<List<String>> calls = new ArrayList<>();
        Allocation a = lsf.allocation(env("CSM_ALLOCATION_ID", " 1234 ", "LSB_MCPU_HOSTS", "batch1 1 x 42"), NO_FILES,
                csm("allocation_query.yaml", "node_attributes_query.yaml", calls));
        assertAll(
                () -> assertEquals(hosts("a01n01:6,a01n02:6,a01n03:6"), a.hosts()),
                () -> assertEquals(6, a.gpusPerHost()),
                () -> assertEquals("blaunch", a.remoteShell()),
                () -> assertEquals(List.of(
                        List.of("/opt/ibm/csm/bin/csm_allocation_query", "-a", "1234"),
                        // the first node as CSM lists it, not the first sorted one
                        List.of("/opt/ibm/csm/bin/csm_node_attributes_query", "-n", "a01n03")), calls),
                () -> assertTrue(a.description().contains("CSM allocation 1234"), a.description()));
    }

    @Test
    void csmWithoutGpusUsesUsableCores() {
        Allocation a = lsf.allocation(env("CSM_ALLOCATION_ID", "1234", "TROIKA_CSM_BIN", "/fake/csm"), NO_FILES,
                csm("allocation_query.yaml", "node_attributes_query_nogpu.yaml", new ArrayList<>()));
        // 44 cores - 2 sockets x 1 isolated core
        assertEquals(hosts("a01n01:42,a01n02:42,a01n03:42"), a.hosts());
        assertEquals(0, a.gpusPerHost());
    }

    @Test
    void csmFlowListAndDefaultIsolatedCores() {
        Allocation a = lsf.allocation(env("CSM_ALLOCATION_ID", "77"), NO_FILES,
                csm("allocation_query_flow.yaml", "node_attributes_query.yaml", new ArrayList<>()));
        assertEquals(hosts("c1:6,c2:6"), a.hosts());
    }

    @Test
    void failingCsmQueryNamesTheTool() {
        CommandRunner broken = (argv, t) -> new ProbeResult(3, "csm_allocation_query: allocation 9 not found\n");
        UsageException e = assertThrows(UsageException.class,
                () -> lsf.allocation(env("CSM_ALLOCATION_ID", "9"), NO_FILES, broken));
        assertTrue(e.getMessage().contains("csm_allocation_query -a 9 failed with exit code 3"), e.getMessage());
        assertTrue(e.getMessage().contains("allocation 9 not found"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
    }

    @Test
    void csmOutputWithoutNodesOrCoresIsAUsageError() {
        CommandRunner noNodes = (argv, t) -> new ProbeResult(0, "allocation_id: 5\ncompute_nodes:\nstate: running\n");
        assertThrows(UsageException.class, () -> lsf.allocation(env("CSM_ALLOCATION_ID", "5"), NO_FILES, noNodes));
        CommandRunner noCores = (argv, t) -> new ProbeResult(0, argv.get(0).endsWith("allocation_query")
                ? "compute_nodes:\n - c1\n" : "Record_1:\n  discovered_gpus: 4\n");
        UsageException e = assertThrows(UsageException.class,
                () -> lsf.allocation(env("CSM_ALLOCATION_ID", "5"), NO_FILES, noCores));
        assertTrue(e.getMessage().contains("discovered_cores"), e.getMessage());
    }

    @Test
    void csmNodeNamesAndIdAreCheckedBeforeTheyBecomeArguments() {
        List<List<String>> calls = new ArrayList<>();
        CommandRunner dashNode = (argv, t) -> {
            calls.add(argv);
            return new ProbeResult(0, "compute_nodes:\n - --help\n - c1\n");
        };
        UsageException e = assertThrows(UsageException.class,
                () -> lsf.allocation(env("CSM_ALLOCATION_ID", "5"), NO_FILES, dashNode));
        assertTrue(e.getMessage().contains("host name '--help' starts with '-'"), e.getMessage());
        assertEquals(1, calls.size(), "csm_node_attributes_query must not get '-n --help'");
        UsageException id = assertThrows(UsageException.class,
                () -> lsf.allocation(env("CSM_ALLOCATION_ID", "--all"), NO_FILES, dashNode));
        assertTrue(id.getMessage().contains("is not an allocation id"), id.getMessage());
        assertEquals(1, calls.size(), "no query with a bad id");
    }

    @Test
    void detectsLsfJobsOnlyAndIsRegistered() {
        assertTrue(lsf.detect(Map.of("LSB_JOBID", "1")));
        assertFalse(lsf.detect(Map.of("LSB_JOBID", "")));
        assertFalse(lsf.detect(Map.of("SLURM_JOB_ID", "1")));
        assertTrue(ServiceLoader.load(JobEnvironment.class).stream().anyMatch(p -> p.get().name().equals("lsf")));
    }
}
