package org.troika.jsrun;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;

class ErfWriterTest {
    private static final List<HostSlots> SUMMIT_2 = List.of(new HostSlots("a01n01", 6), new HostSlots("a01n02", 6));
    private static final List<String> NAMES = List.of("a01n01", "a01n02");

    @Test
    void summitLikeHostsGetOneGpuAndAnEqualCpuShareEach() {
        // 42 usable cores x SMT4 / 6 GPUs = 28 logical CPUs per rank; np 8 stops on the second host
        HostPlan plan = HostPlan.assign("lsf", SUMMIT_2, 8);
        JsrunOptions opts = new JsrunOptions(JsrunOptions.HostKey.HOSTNAME, null, 4, "logical");
        String erf = ErfWriter.render(plan, NAMES, 6, 42, opts);
        assertEquals("""
                cpu_index_using: logical
                overlapping_rs: allow

                rank: 0: { hostname: a01n01; cpu: {0-27}; gpu: {0}; mem: * }
                rank: 1: { hostname: a01n01; cpu: {28-55}; gpu: {1}; mem: * }
                rank: 2: { hostname: a01n01; cpu: {56-83}; gpu: {2}; mem: * }
                rank: 3: { hostname: a01n01; cpu: {84-111}; gpu: {3}; mem: * }
                rank: 4: { hostname: a01n01; cpu: {112-139}; gpu: {4}; mem: * }
                rank: 5: { hostname: a01n01; cpu: {140-167}; gpu: {5}; mem: * }

                rank: 6: { hostname: a01n02; cpu: {0-27}; gpu: {0}; mem: * }
                rank: 7: { hostname: a01n02; cpu: {28-55}; gpu: {1}; mem: * }
                """, erf);
    }

    @Test
    void hostIndexKeyAndCpuOnlyHosts() {
        HostPlan plan = HostPlan.assign("lsf", List.of(new HostSlots("c1", 2), new HostSlots("c2", 1)), 3);
        JsrunOptions opts = new JsrunOptions(JsrunOptions.HostKey.HOST_INDEX, null, 1, "physical");
        String erf = ErfWriter.render(plan, List.of("c1", "c2"), 0, 4, opts);
        assertEquals("""
                cpu_index_using: physical
                overlapping_rs: allow

                rank: 0: { host: 1; cpu: {0-1}; mem: * }
                rank: 1: { host: 1; cpu: {2-3}; mem: * }

                rank: 2: { host: 2; cpu: {0-3}; mem: * }
                """, erf);
    }

    @Test
    void singleCpuRangesAreWrittenAsOneNumber() {
        HostPlan plan = HostPlan.assign("x", List.of(new HostSlots("c1", 2)), 2);
        String erf = ErfWriter.render(plan, List.of("c1"), 0, 2, JsrunOptions.defaults());
        assertTrue(erf.contains("rank: 1: { hostname: c1; cpu: {1}; mem: * }"), erf);
    }

    @Test
    void moreRanksThanGpusOnAHostIsAUsageError() {
        HostPlan plan = HostPlan.assign("lsf", List.of(new HostSlots("a01n01", 8)), 8);
        UsageException e = assertThrows(UsageException.class,
                () -> ErfWriter.render(plan, List.of("a01n01"), 6, 42, JsrunOptions.defaults()));
        assertEquals("host a01n01 would run 8 ranks but has only 6 GPUs (one rank per GPU under jsrun); "
                + "lower -np or request more hosts", e.getMessage());
    }

    @Test
    void tooFewCpusOrForeignHostsAreUsageErrors() {
        HostPlan plan = HostPlan.assign("x", List.of(new HostSlots("c1", 4)), 4);
        assertThrows(UsageException.class, () -> ErfWriter.render(plan, List.of("c1"), 0, 2, JsrunOptions.defaults()));
        UsageException e = assertThrows(UsageException.class,
                () -> ErfWriter.render(plan, List.of("c9"), 0, 8, JsrunOptions.defaults()));
        assertTrue(e.getMessage().contains("not one of the allocation's compute hosts"), e.getMessage());
    }

    @Test
    void optionsFromEnvironment() {
        assertEquals(JsrunOptions.defaults(), JsrunOptions.fromEnv(Map.of()));
        assertEquals(new JsrunOptions(JsrunOptions.HostKey.HOST_INDEX, 42, 4, "physical"),
                JsrunOptions.fromEnv(Map.of("TROIKA_JSRUN_HOST_KEY", "host", "TROIKA_JSRUN_CORES_PER_HOST", "42",
                        "TROIKA_JSRUN_THREADS_PER_CORE", "4", "TROIKA_JSRUN_CPU_INDEX", "physical")));
        for (Map<String, String> bad : List.of(Map.of("TROIKA_JSRUN_HOST_KEY", "name"),
                Map.of("TROIKA_JSRUN_CORES_PER_HOST", "0"), Map.of("TROIKA_JSRUN_THREADS_PER_CORE", "smt4"),
                Map.of("TROIKA_JSRUN_CPU_INDEX", "virtual"))) {
            assertThrows(UsageException.class, () -> JsrunOptions.fromEnv(bad), bad.toString());
        }
    }
}
