package org.troika.worker.elastic;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.troika.common.SpawnCommand;
import org.troika.common.TroikaEnv;
import org.troika.mpi.Spawn;
import org.troika.wire.ElasticMessage;

/** The commit broadcast of a host change (issue 25: it carries a change in place) and the spawn the ranks would make. */
class HostChangeTest {
    private static final ElasticMessage.ChangeWorld LEAVE = new ElasticMessage.ChangeWorld(1, List.of(2, 3), List.of(),
            4);
    private static final ElasticMessage.ChangeWorld MIXED = new ElasticMessage.ChangeWorld(2, List.of(1),
            List.of(new ElasticMessage.ChangeWorld.Spawn("10.0.0.9", 2, 2)), 7);
    /** Standby ranks activated (a launch with --standby-ranks), one more spawned. */
    private static final ElasticMessage.ChangeWorld ACTIVATE = new ElasticMessage.ChangeWorld(3, List.of(),
            List.of(new ElasticMessage.ChangeWorld.Spawn("c", 1, 3),
                    new ElasticMessage.ChangeWorld.Spawn("s\u00e9", 2, 5, List.of(1, 3), 4)), 9,
            List.of(new ElasticMessage.ChangeWorld.Activate("s\u00e9", 4), new ElasticMessage.ChangeWorld.Activate("t",
                    5)));

    @Test
    void nothingARelaunchAndChangesInPlaceSurviveTheBroadcastEncoding() {
        assertNull(HostChange.decode(HostChange.encode(null)));
        HostChange relaunch = new HostChange(123, true, false);
        assertEquals(relaunch, HostChange.decode(HostChange.encode(relaunch)));
        for (ElasticMessage.ChangeWorld w : List.of(LEAVE, MIXED, ACTIVATE)) {
            HostChange c = HostChange.of(456, w);
            HostChange back = HostChange.decode(HostChange.encode(c));
            assertEquals(c, back);
            assertEquals(w, back.inPlace());
        }
        assertTrue(HostChange.of(1, LEAVE).removed());
        assertTrue(HostChange.of(1, MIXED).added() && HostChange.of(1, MIXED).removed());
        HostChange activateOnly = HostChange.of(1, new ElasticMessage.ChangeWorld(4, List.of(), List.of(), 9,
                ACTIVATE.activate()));
        assertTrue(activateOnly.added() && !activateOnly.removed(), "an activation adds ranks");
        byte[] good = HostChange.encode(HostChange.of(456, ACTIVATE));
        assertThrows(CollectiveFailure.class, () -> HostChange.decode(Arrays.copyOf(good, good.length - 1)));
    }

    @Test
    void aDamagedBroadcastIsACollectiveFailureNotAWrongChange() {
        byte[] good = HostChange.encode(HostChange.of(456, MIXED));
        assertThrows(CollectiveFailure.class, () -> HostChange.decode(Arrays.copyOf(good, good.length - 1)));
        assertThrows(CollectiveFailure.class, () -> HostChange.decode(Arrays.copyOf(good, good.length + 1)));
        byte[] huge = good.clone();
        ByteBuffer.wrap(huge).putInt(13, Integer.MAX_VALUE); // the count of leaving ranks
        assertThrows(CollectiveFailure.class, () -> HostChange.decode(huge));
        byte[] wrongBits = good.clone();
        wrongBits[0] = 4 | 2; // says "added only", but a rank leaves
        assertThrows(CollectiveFailure.class, () -> HostChange.decode(wrongBits));
        assertThrows(CollectiveFailure.class, () -> HostChange.decode(new byte[3]));
    }

    @Test
    void changesInPlaceDoNotAddUp() {
        HostChange merged = HostChange.of(5, LEAVE).merge(HostChange.of(9, MIXED));
        assertNull(merged.inPlace(), "two changes in place merged are a relaunch");
        assertEquals(9, merged.timestampMillis());
    }

    @Test
    void theSpawnOfAChangeCarriesTheRankCommandTheHostsAndTheJoinIds() {
        byte[] odd = {'a', (byte) 0xff, 'b'};
        Map<String, String> env = Map.of(TroikaEnv.ELASTIC_SPAWN_COMMAND,
                SpawnCommand.encode(List.of("java", org.troika.common.exec.NativeText.decode(odd))),
                TroikaEnv.ELASTIC_SPAWN_ENV, "TROIKA_JOB_ID,TROIKA_HOSTS,MISSING", TroikaEnv.JOB_ID, "e1",
                TroikaEnv.HOSTS, "parent-placement");
        RankSpawner s = RankSpawner.fromEnvironment(env).orElseThrow();
        assertEquals(2, s.command().size());
        assertArrayEquals("java".getBytes(StandardCharsets.US_ASCII), s.command().get(0));
        assertArrayEquals(odd, s.command().get(1), "the words' exact bytes");
        assertEquals(Map.of(TroikaEnv.JOB_ID, "e1"), s.exported(), "a parent's placement is not inherited");
        Spawn spawn = s.request(MIXED, 3).orElseThrow();
        assertEquals(2, spawn.count());
        assertEquals("10.0.0.9:2", spawn.info().get("PMIX_ADD_HOST"));
        assertEquals("10.0.0.9:2", spawn.info().get("host"));
        assertEquals(List.of(TroikaEnv.ELASTIC_JOIN_ID + "=7", TroikaEnv.ELASTIC_EPOCH + "=3",
                TroikaEnv.HOSTS + "=10.0.0.9:2", "TROIKA_JOB_ID=e1"), List.of(spawn.info().get("PMIX_ENVAR").split("\n")));
        assertTrue(RankSpawner.fromEnvironment(Map.of()).isEmpty(), "no command: this world cannot grow");
        assertTrue(RankSpawner.fromEnvironment(Map.of(TroikaEnv.ELASTIC_SPAWN_COMMAND, "!!")).isEmpty());
    }

    /**
     * PMIX_ADD_HOST sets a host's slot count, its running processes included (measured on Open MPI 5.0.7: one rank
     * on {@code -H vm:1} spawns one more with {@code vm:2} and fails with {@code vm:1}, "All nodes ... are already
     * filled"): a spawn next to running ranks names the host with the slots the launcher counted; the {@code host} key
     * says how many go there; a spawn with no host slots names no host to add.
     */
    @Test
    void aSpawnNextToRunningRanksTellsTheHostsWholeSlotCount() {
        RankSpawner s = new RankSpawner(List.of("java".getBytes(StandardCharsets.US_ASCII)), Map.of());
        ElasticMessage.ChangeWorld beside = new ElasticMessage.ChangeWorld(1, List.of(), List.of(
                new ElasticMessage.ChangeWorld.Spawn("a", 1, 3), new ElasticMessage.ChangeWorld.Spawn("b", 2, 0)), 4);
        Spawn spawn = s.request(beside, 1).orElseThrow();
        assertEquals(3, spawn.count());
        assertEquals("a:3", spawn.info().get("PMIX_ADD_HOST"), "b is named by the host key alone");
        assertEquals("a:1,b:2", spawn.info().get("host"));
        assertNull(s.request(new ElasticMessage.ChangeWorld(1, List.of(), List.of(
                new ElasticMessage.ChangeWorld.Spawn("b", 2, 0)), 4), 1).orElseThrow().info().get("PMIX_ADD_HOST"));
        assertThrows(IllegalArgumentException.class, () -> new ElasticMessage.ChangeWorld.Spawn("a", 2, 1),
                "fewer host slots than ranks spawned there");
        assertNull(envar(spawn, TroikaEnv.ELASTIC_SPAWN_LOCALS), "no host runs ranks next to them");
    }

    /** {@code name}'s value in the spawned ranks' environment ({@code PMIX_ENVAR}), or {@code null}. */
    private static String envar(Spawn spawn, String name) {
        for (String line : spawn.info().get("PMIX_ENVAR").split("\n")) {
            if (line.startsWith(name + "=")) {
                return line.substring(name.length() + 1);
            }
        }
        return null;
    }

    /**
     * Ranks spawned next to running ones are told, per host of the spawn, their local ranks there and the host's
     * local size (troika-rankenv sets TROIKA_LOCAL_RANK from it); malformed local ranks are refused.
     */
    @Test
    void aSpawnNextToRunningRanksNamesTheirLocalRanks() {
        RankSpawner s = new RankSpawner(List.of("java".getBytes(StandardCharsets.US_ASCII)), Map.of());
        Spawn spawn = s.request(new ElasticMessage.ChangeWorld(1, List.of(), List.of(
                new ElasticMessage.ChangeWorld.Spawn("a", 2, 5, List.of(0, 3), 4),
                new ElasticMessage.ChangeWorld.Spawn("c", 1, 1)), 6), 1).orElseThrow();
        assertEquals("4:0.3,-", envar(spawn, TroikaEnv.ELASTIC_SPAWN_LOCALS));
        assertNull(envar(spawn, TroikaEnv.ELASTIC_SPAWN_BASE), "not told the world's size");
        assertEquals("5", envar(s.request(new ElasticMessage.ChangeWorld(1, List.of(), List.of(
                new ElasticMessage.ChangeWorld.Spawn("c", 1, 1)), 6), 1, 5).orElseThrow(),
                TroikaEnv.ELASTIC_SPAWN_BASE), "joins a world of 5: its rank 5");
        // members 0, 1, 2, 5; 2 leaves, one standby rank is activated: the spawn joins a world of 4
        assertEquals(4, ElasticWorld.sizeBeforeSpawn(new int[] {0, 1, 2, 5}, new ElasticMessage.ChangeWorld(1,
                List.of(2), List.of(new ElasticMessage.ChangeWorld.Spawn("c", 1, 1)), 6,
                List.of(new ElasticMessage.ChangeWorld.Activate("s", 3)))));
        for (List<Integer> bad : List.of(List.of(0), List.of(1, 1), List.of(0, 4), List.of(-1, 0))) {
            assertThrows(IllegalArgumentException.class, () -> new ElasticMessage.ChangeWorld.Spawn("a", 2, 5, bad, 4),
                    "local ranks " + bad);
        }
        assertThrows(IllegalArgumentException.class, () -> new ElasticMessage.ChangeWorld.Spawn("a", 2, 5,
                List.of(0, 1), 1), "a local size below the spawn");
    }

    /**
     * Open MPI 5.0.7 refuses an info value of 256 bytes or more (MPI_ERR_INFO_VALUE: the whole growth fell back to a
     * relaunch): the job's variables first, then troika's, then the user's, as many as fit in 255 bytes.
     */
    @Test
    void theSpawnedRanksEnvironmentFitsOneInfoValue() {
        Map<String, String> env = new java.util.LinkedHashMap<>();
        env.put(TroikaEnv.ELASTIC_SPAWN_COMMAND, SpawnCommand.encode(List.of("java")));
        env.put(TroikaEnv.ELASTIC_SPAWN_ENV, "AAA_USER,TROIKA_JAVA_CDS,TROIKA_WORKER_ADDR,TROIKA_JOB_ID,ZZZ_USER,"
                + TroikaEnv.HOST_SLOTS);
        env.put("AAA_USER", "u".repeat(80));
        env.put(TroikaEnv.HOST_SLOTS, "1,1"); // the launch's layout: a spawned rank places itself by its spawn's
        env.put(TroikaEnv.JAVA_CDS, "1");
        env.put(TroikaEnv.WORKER_ADDR, "10.0.0.1:41234");
        env.put(TroikaEnv.JOB_ID, "j".repeat(40));
        env.put("ZZZ_USER", "z");
        Spawn spawn = RankSpawner.fromEnvironment(env).orElseThrow().request(MIXED, 3).orElseThrow();
        String envar = spawn.info().get("PMIX_ENVAR");
        assertTrue(envar.length() <= RankSpawner.ENVAR_LIMIT, envar);
        assertEquals(List.of(TroikaEnv.ELASTIC_JOIN_ID + "=7", TroikaEnv.ELASTIC_EPOCH + "=3",
                TroikaEnv.HOSTS + "=10.0.0.9:2", TroikaEnv.JOB_ID + "=" + "j".repeat(40),
                TroikaEnv.WORKER_ADDR + "=10.0.0.1:41234", TroikaEnv.JAVA_CDS + "=1", "ZZZ_USER=z"),
                List.of(envar.split("\n")), "where to report the leave comes with the job's variables; the long user"
                + " variable is left out, the short one fits");
        env.put(TroikaEnv.HOSTS, "x");
        env.put(TroikaEnv.JOB_ID, "j".repeat(300));
        assertTrue(RankSpawner.fromEnvironment(env).orElseThrow().request(MIXED, 3).isPresent(),
                "a job id that does not fit is left out, not the spawn");
        // the boundary: MPI_MAX_INFO_VAL (256) counts the terminating NUL, so a value of 256 bytes is refused
        Map<String, String> edge = new java.util.LinkedHashMap<>();
        edge.put(TroikaEnv.ELASTIC_SPAWN_COMMAND, SpawnCommand.encode(List.of("java")));
        edge.put(TroikaEnv.ELASTIC_SPAWN_ENV, "U");
        edge.put("U", "");
        int base = RankSpawner.fromEnvironment(edge).orElseThrow().request(MIXED, 3).orElseThrow().info()
                .get("PMIX_ENVAR").length() - "\nU=".length();
        for (int total : List.of(255, 256)) {
            edge.put("U", "v".repeat(total - base - "\nU=".length()));
            String value = RankSpawner.fromEnvironment(edge).orElseThrow().request(MIXED, 3).orElseThrow().info()
                    .get("PMIX_ENVAR");
            assertEquals(total == 255, value.endsWith("\nU=" + edge.get("U")), total + " bytes: " + value);
            assertTrue(value.length() <= 255, value);
        }
    }

    @Test
    void aVariableWithANewlineIsLeftOutOfTheSpawnNotTheSpawn() {
        Map<String, String> env = new java.util.LinkedHashMap<>();
        env.put(TroikaEnv.ELASTIC_SPAWN_COMMAND, SpawnCommand.encode(List.of("java")));
        env.put(TroikaEnv.ELASTIC_SPAWN_ENV, "PEM,AFTER");
        env.put("PEM", "-----BEGIN-----\nabc\n-----END-----");
        env.put("AFTER", "kept");
        String envar = RankSpawner.fromEnvironment(env).orElseThrow().request(MIXED, 3).orElseThrow().info()
                .get("PMIX_ENVAR");
        List<String> lines = List.of(envar.split("\n"));
        assertTrue(lines.contains("AFTER=kept"), envar);
        assertTrue(lines.stream().noneMatch(l -> l.startsWith("PEM=") || l.startsWith("abc")
                || l.startsWith("-----")), "no line of the multi-line value: " + envar);
    }
}
