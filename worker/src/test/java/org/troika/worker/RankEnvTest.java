package org.troika.worker;

import org.troika.common.RankTable;
import org.troika.testkit.RankTableGolden;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;

class RankEnvTest {
    private static RankEnv of(Map<String, String> env) {
        return RankEnv.from(env, () -> "machine");
    }

    @Test
    void singletonWithoutVariables() {
        assertEquals(new RankEnv(0, 1, 0, 1, 0, 1, "machine"), of(Map.of()));
    }

    @Test
    void readsOpenMpiVariables() {
        assertEquals(new RankEnv(3, 4, 1, 2, 1, 2, "machine"), of(Map.of("OMPI_COMM_WORLD_RANK", "3",
                "OMPI_COMM_WORLD_SIZE", "4", "OMPI_COMM_WORLD_LOCAL_RANK", "1", "OMPI_COMM_WORLD_LOCAL_SIZE", "2")));
    }

    @Test
    void readsHydraVariables() {
        assertEquals(new RankEnv(2, 3, 2, 3, 0, 1, "machine"), of(Map.of("PMI_RANK", "2", "PMI_SIZE", "3",
                "MPI_LOCALRANKID", "2", "MPI_LOCALNRANKS", "3")));
    }

    @Test
    void troikaVariablesWinOverTheMpis() {
        RankEnv env = of(Map.of("TROIKA_RANK", "1", "TROIKA_SIZE", "2", "TROIKA_LOCAL_RANK", "0",
                "TROIKA_LOCAL_SIZE", "1", "TROIKA_CROSS_RANK", "1", "TROIKA_CROSS_SIZE", "2", "TROIKA_HOSTNAME", "n2",
                "OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "9", "PMI_RANK", "5"));
        assertEquals(new RankEnv(1, 2, 0, 1, 1, 2, "n2"), env);
    }

    /** Horovod's rule: cross rank = index among the hosts that have a slot at this local rank. */
    @Test
    void derivesHostLocalAndCrossRanksFromTheHostList() {
        String hosts = "a:2,b:1,c:3";
        int[][] expected = { // rank -> localRank, localSize, crossRank, crossSize
            {0, 2, 0, 3}, {1, 2, 0, 2}, {0, 1, 1, 3}, {0, 3, 2, 3}, {1, 3, 1, 2}, {2, 3, 0, 1}};
        String[] host = {"a", "a", "b", "c", "c", "c"};
        for (int r = 0; r < 6; r++) {
            RankEnv e = of(Map.of("TROIKA_HOSTS", hosts, "OMPI_COMM_WORLD_RANK", Integer.toString(r),
                    "OMPI_COMM_WORLD_SIZE", "6"));
            int[] x = expected[r];
            int rank = r;
            assertAll("rank " + r,
                    () -> assertEquals(x[0], e.localRank()), () -> assertEquals(x[1], e.localSize()),
                    () -> assertEquals(x[2], e.crossRank()), () -> assertEquals(x[3], e.crossSize()),
                    () -> assertEquals(host[rank], e.hostname()));
        }
    }

    @Test
    void withoutHostListAssumesEqualHostsInRankOrder() {
        RankEnv e = of(Map.of("OMPI_COMM_WORLD_RANK", "5", "OMPI_COMM_WORLD_SIZE", "8",
                "OMPI_COMM_WORLD_LOCAL_RANK", "1", "OMPI_COMM_WORLD_LOCAL_SIZE", "4"));
        assertAll(() -> assertEquals(1, e.crossRank()), () -> assertEquals(2, e.crossSize()));
    }

    @Test
    void badValuesAreUsageErrorsNamingTheVariable() {
        assertAll(
                () -> assertMessage("TROIKA_RANK='x'", Map.of("TROIKA_RANK", "x")),
                () -> assertMessage("impossible", Map.of("PMI_RANK", "4", "PMI_SIZE", "4")),
                () -> assertMessage("have 2 slots but this is rank 2",
                        Map.of("TROIKA_HOSTS", "a:2", "TROIKA_RANK", "2", "TROIKA_SIZE", "3")),
                () -> assertMessage("have 16 slots but this is rank 16",
                        Map.of("TROIKA_HOST_SLOTS", "8x2", "TROIKA_RANK", "16", "TROIKA_SIZE", "17")),
                () -> assertMessage("TROIKA_HOST_SLOTS", Map.of("TROIKA_HOST_SLOTS", "8x0", "TROIKA_RANK", "1")),
                () -> assertMessage("TROIKA_HOST_SLOTS", Map.of("TROIKA_HOST_SLOTS", "8,,2", "TROIKA_RANK", "1")),
                () -> assertMessage("host:slots", Map.of("TROIKA_HOSTS", "a:0")));
    }

    private static void assertMessage(String part, Map<String, String> env) {
        UsageException e = assertThrows(UsageException.class, () -> of(env));
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }

    /** Without TROIKA_HOSTS (too long to export), the slot counts alone place the rank; the name is the machine's. */
    @Test
    void derivesLocalAndCrossRanksFromTheSlotCountsAlone() {
        // 10,000 hosts: 9,998 with 8 slots, then one with 3 and one with 8
        String layout = "8x9998,3,8";
        RankEnv last = of(Map.of("TROIKA_HOST_SLOTS", layout, "PMI_RANK", "79994", "PMI_SIZE", "79995"));
        assertEquals(new RankEnv(79994, 79995, 7, 8, 9998, 9999, "machine"), last);
        RankEnv onSmall = of(Map.of("TROIKA_HOST_SLOTS", layout, "PMI_RANK", "79986", "PMI_SIZE", "79995"));
        assertEquals(new RankEnv(79986, 79995, 2, 3, 9998, 10000, "machine"), onSmall);
        RankEnv after = of(Map.of("TROIKA_HOST_SLOTS", layout, "PMI_RANK", "79990", "PMI_SIZE", "79995"));
        assertEquals(new RankEnv(79990, 79995, 3, 8, 9998, 9999, "machine"), after);
        RankEnv first = of(Map.of("TROIKA_HOST_SLOTS", layout, "PMI_RANK", "0", "PMI_SIZE", "79995"));
        assertEquals(new RankEnv(0, 79995, 0, 8, 0, 10000, "machine"), first);
    }

    /** Given only rank, size and TROIKA_HOSTS, every rank of every golden case finds its own row. */
    @Test
    void rankTableMatchesTheGoldenFixture() {
        for (RankTableGolden.Case c : RankTableGolden.cases()) {
            for (RankTable.Row r : c.rows()) {
                RankEnv e = RankEnv.from(Map.of("OMPI_COMM_WORLD_RANK", "" + r.rank(), "OMPI_COMM_WORLD_SIZE",
                        "" + r.size(), "TROIKA_HOSTS", c.troikaHosts()), () -> "not-asked");
                assertEquals(new RankEnv(r.rank(), r.size(), r.localRank(), r.localSize(), r.crossRank(), r.crossSize(),
                        r.host()), e, c.troikaHosts() + " rank " + r.rank());
                RankEnv bySlots = RankEnv.from(Map.of("PMI_RANK", "" + r.rank(), "PMI_SIZE", "" + r.size(),
                        "TROIKA_HOST_SLOTS", slotCounts(c)), () -> "machine");
                assertEquals(new RankEnv(r.rank(), r.size(), r.localRank(), r.localSize(), r.crossRank(), r.crossSize(),
                        "machine"), bySlots, c.troikaHosts() + " by slot counts, rank " + r.rank());
            }
        }
    }

    /** The case's slot counts, one run per host ({@code 2,1,3}). */
    static String slotCounts(RankTableGolden.Case c) {
        return String.join(",", c.hosts().stream().map(h -> Integer.toString(h.slots())).toList());
    }
}
