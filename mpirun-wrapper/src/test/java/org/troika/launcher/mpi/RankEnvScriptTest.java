package org.troika.launcher.mpi;

import org.troika.common.RankTable;
import org.troika.testkit.RankTableGolden;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.SlotInfo;

/** Runs {@code dist/src/bin/troika-rankenv} with {@code sh} and recorded MPI environments (no MPI involved). */
class RankEnvScriptTest {
    static final Path SCRIPT = Path.of("..", "dist", "src", "bin", "troika-rankenv").toAbsolutePath().normalize();

    record Result(int exit, String out, String err) {
        Map<String, String> vars() {
            Map<String, String> m = new HashMap<>();
            for (String line : out.split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    m.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
            return m;
        }
    }

    static Result run(Map<String, String> env, String... command) throws IOException, InterruptedException {
        return run(List.of(), env, command);
    }

    /** {@link #run(Map, String...)} started through {@code prefix} (e.g. {@code taskset -c 0}). */
    static Result run(List<String> prefix, Map<String, String> env, String... command)
            throws IOException, InterruptedException {
        return run(prefix, "sh", env, command);
    }

    /** {@link #run(List, Map, String...)} with another {@code shell} as the script's interpreter (e.g. bash). */
    static Result run(List<String> prefix, String shell, Map<String, String> env, String... command)
            throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(prefix);
        argv.addAll(List.of(shell, SCRIPT.toString()));
        argv.addAll(List.of(command));
        ProcessBuilder pb = new ProcessBuilder(argv);
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/bin:/bin");
        pb.environment().putAll(env);
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Path err = Files.createTempFile("rankenv", ".err");
        pb.redirectError(err.toFile());
        Process p = pb.start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "troika-rankenv did not finish");
            return new Result(p.exitValue(), out, Files.readString(err));
        } finally {
            p.destroyForcibly();
            Files.deleteIfExists(err);
        }
    }

    /**
     * The script must agree with {@link HostPlan#assign} on every rank of several layouts, for both MPI families and
     * srun direct launch (Slurm's variables as slurmstepd sets them; no local size there).
     */
    @Test
    void matchesTheRankTableForOpenMpiHydraAndSrun() throws Exception {
        List<List<HostSlots>> layouts = List.of(
                List.of(new HostSlots("a", 2), new HostSlots("b", 1), new HostSlots("c", 1)),
                List.of(new HostSlots("n1", 1), new HostSlots("n2", 3), new HostSlots("n3", 2)),
                List.of(new HostSlots("solo", 3)));
        for (List<HostSlots> layout : layouts) {
            HostPlan plan = HostPlan.assign("test", layout, layout.stream().mapToInt(HostSlots::slots).sum());
            for (SlotInfo slot : plan.slots()) {
                Map<String, String> ompi = Map.of("OMPI_COMM_WORLD_RANK", "" + slot.rank(),
                        "OMPI_COMM_WORLD_LOCAL_RANK", "" + slot.localRank(),
                        "OMPI_COMM_WORLD_LOCAL_SIZE", "" + slot.localSize(),
                        "OMPI_COMM_WORLD_SIZE", "" + slot.size(), "TROIKA_HOSTS", plan.hostList());
                Map<String, String> hydra = Map.of("PMI_RANK", "" + slot.rank(), "MPI_LOCALRANKID", "" + slot.localRank(),
                        "MPI_LOCALNRANKS", "" + slot.localSize(), "PMI_SIZE", "" + slot.size(),
                        "TROIKA_HOSTS", plan.hostList());
                Map<String, String> srun = Map.of("SLURM_PROCID", "" + slot.rank(), "SLURM_LOCALID",
                        "" + slot.localRank(), "SLURM_STEP_ID", "0", "SLURM_STEP_NUM_TASKS", "" + slot.size(),
                        "TROIKA_HOSTS", plan.hostList());
                for (Map<String, String> env : List.of(ompi, hydra, srun)) {
                    Result r = run(env, "env");
                    Map<String, String> v = r.vars();
                    String where = plan.hostList() + " rank " + slot.rank() + " " + env.keySet();
                    assertAll(where,
                            () -> assertEquals(0, r.exit(), r.err()),
                            () -> assertEquals("" + slot.rank(), v.get("TROIKA_RANK")),
                            () -> assertEquals("" + slot.size(), v.get("TROIKA_SIZE")),
                            () -> assertEquals("" + slot.localRank(), v.get("TROIKA_LOCAL_RANK")),
                            () -> assertEquals("" + slot.localSize(), v.get("TROIKA_LOCAL_SIZE")),
                            () -> assertEquals("" + slot.crossRank(), v.get("TROIKA_CROSS_RANK")),
                            () -> assertEquals("" + slot.crossSize(), v.get("TROIKA_CROSS_SIZE")),
                            () -> assertEquals(slot.host(), v.get("TROIKA_HOSTNAME")));
                }
            }
        }
    }

    /**
     * A rank spawned into a running world exports the job's variables its host's service holds
     * (TROIKA_SPAWN_ENV_FILE) over what its daemon gave it; names the shell owns, troika's own (but the hang watchdog's
     * address, key and interval and the generation's shared ones) and malformed lines are skipped (bash ends a script
     * that exports a read-only name); a rank of the launch itself ignores the file.
     */
    @Test
    void aSpawnedRankExportsTheJobsVariablesFromItsHostsFile() throws Exception {
        Path file = Files.createTempFile("spawn-env", ".txt");
        try {
            Files.write(file, org.troika.common.exec.NativeText.encode("USER_A=from the launcher\nPATH=/opt/app/bin:"
                    + "/usr/bin:/bin\nTROIKA_ELASTIC_EPOCH=9\nUID=7\nIFS=x\nnot a line\nBAD-NAME=1\nEMPTY=\nEQ=a=b\n"
                    + "TROIKA_PROGRESS_ADDR=10.0.0.1:4000\nTROIKA_PROGRESS_KEY=a2V5\nTROIKA_PROGRESS_INTERVAL_MS=2000\n"
                    + "TROIKA_PROGRESS_OTHER=1\nTROIKA_WORKER_ADDR=10.0.0.1:4100\nTROIKA_JOB_ID=e1-ab\n"
                    + "TROIKA_ELASTIC=1\nTROIKA_ELASTIC_GENERATION=3\nTROIKA_FAULT_TOLERANCE=shrink\n"
                    + "TROIKA_ELASTIC_MIN_NP=2\nTROIKA_ELASTIC_SPAWN_COMMAND=x\n"));
            Map<String, String> env = new HashMap<>(Map.of("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "1",
                    "TROIKA_SPAWN_ENV_FILE", file.toString(), "USER_A", "the host's", "TROIKA_ELASTIC_EPOCH", "2"));
            Map<String, String> plain = run(env, "env").vars();
            env.put("TROIKA_ELASTIC_JOIN_ID", "3");
            Result r = run(env, "env");
            Map<String, String> spawned = r.vars();
            assertAll(
                    () -> assertEquals(0, r.exit(), r.err()),
                    () -> assertEquals("from the launcher", spawned.get("USER_A")),
                    () -> assertEquals("/opt/app/bin:/usr/bin:/bin", spawned.get("PATH")),
                    () -> assertEquals("", spawned.get("EMPTY")),
                    () -> assertEquals("a=b", spawned.get("EQ")),
                    () -> assertEquals("2", spawned.get("TROIKA_ELASTIC_EPOCH"), "troika's own come with the spawn"),
                    () -> assertEquals("10.0.0.1:4000", spawned.get("TROIKA_PROGRESS_ADDR"), "but the watchdog's"),
                    () -> assertEquals("a2V5", spawned.get("TROIKA_PROGRESS_KEY")),
                    () -> assertEquals("2000", spawned.get("TROIKA_PROGRESS_INTERVAL_MS")),
                    () -> assertFalse(spawned.containsKey("TROIKA_PROGRESS_OTHER")),
                    // the generation's shared ones too (a spawn onto two hosts has no room left for the driver's
                    // address), and exactly the names the launcher writes there
                    () -> assertEquals("10.0.0.1:4100", spawned.get("TROIKA_WORKER_ADDR")),
                    () -> assertEquals(RankLaunch.SPAWN_FILE_OWN, spawned.keySet().stream()
                            .filter(k -> k.startsWith("TROIKA_") && !plain.containsKey(k)
                                    && !k.equals("TROIKA_ELASTIC_JOIN_ID"))
                            .collect(java.util.stream.Collectors.toSet())),
                    () -> assertFalse(plain.containsKey("TROIKA_PROGRESS_KEY"), "a launch's rank ignores the file"),
                    () -> assertFalse(spawned.containsKey("UID")),
                    () -> assertFalse(spawned.containsKey("BAD-NAME")),
                    () -> assertEquals("the host's", plain.get("USER_A"), "a launch's rank ignores the file"),
                    () -> assertFalse(plain.containsKey("EMPTY")));
            Result bash = run(List.of(), "bash", env, "env"); // where /bin/sh is bash (RHEL, Fedora)
            assertEquals(0, bash.exit(), "bash ends a script that exports a read-only name: " + bash.err());
            assertEquals("from the launcher", bash.vars().get("USER_A"));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * Ranks spawned into a running world of 3, 3 of them: 2 on host b next to running ranks that hold local ranks 0 and
     * 2 there (TROIKA_ELASTIC_SPAWN_LOCALS gives b {@code 4:1.3}), 1 alone on c ({@code -}): MPI's local rank within the
     * spawn becomes the host's, the rank and size become the world's (TROIKA_ELASTIC_SPAWN_BASE 3: ranks 3-5 of 6), the
     * spawn's host list goes, and so do both variables. A rank of the launch ignores them.
     */
    @Test
    void aRankSpawnedNextToRunningRanksTakesTheLocalRankTheyLeaveFree() throws Exception {
        String[] expected = {"1 4", "3 4", "0 1"};
        int[] spawnLocal = {0, 1, 0};
        for (int rank = 0; rank < 3; rank++) {
            Map<String, String> env = new HashMap<>(Map.of("OMPI_COMM_WORLD_RANK", Integer.toString(rank),
                    "OMPI_COMM_WORLD_SIZE", "3", "OMPI_COMM_WORLD_LOCAL_RANK", Integer.toString(spawnLocal[rank]),
                    "OMPI_COMM_WORLD_LOCAL_SIZE", rank < 2 ? "2" : "1", "TROIKA_HOSTS", "b:2,c:1",
                    "TROIKA_ELASTIC_SPAWN_LOCALS", "4:1.3,-", "TROIKA_ELASTIC_JOIN_ID", "5",
                    "TROIKA_ELASTIC_SPAWN_BASE", "3"));
            Result r = run(env, "env");
            Map<String, String> v = r.vars();
            assertEquals(0, r.exit(), r.err());
            assertEquals(expected[rank], v.get("TROIKA_LOCAL_RANK") + " " + v.get("TROIKA_LOCAL_SIZE"), "rank " + rank);
            assertEquals(rank < 2 ? "b" : "c", v.get("TROIKA_HOSTNAME"));
            assertFalse(v.containsKey("TROIKA_ELASTIC_SPAWN_LOCALS"), "plumbing left to the program");
            assertFalse(v.containsKey("TROIKA_ELASTIC_SPAWN_BASE"), "plumbing left to the program");
            assertEquals((3 + rank) + " of 6", v.get("TROIKA_RANK") + " of " + v.get("TROIKA_SIZE"));
            assertFalse(v.containsKey("TROIKA_HOSTS"), "the spawn's layout, not the world's");
            if (rank == 1) {
                env.remove("TROIKA_ELASTIC_JOIN_ID");
                Map<String, String> launched = run(env, "env").vars();
                assertEquals("1 2", launched.get("TROIKA_LOCAL_RANK") + " " + launched.get("TROIKA_LOCAL_SIZE"),
                        "a launch's rank keeps MPI's");
                assertEquals("1 of 3", launched.get("TROIKA_RANK") + " of " + launched.get("TROIKA_SIZE"));
            }
        }
    }

    @Test
    void troikaSizeFromTheLauncherWinsOverMpi() throws Exception {
        Result r = run(Map.of("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "2", "TROIKA_SIZE", "2",
                "TROIKA_HOSTS", "h:2"), "env");
        assertEquals("2", r.vars().get("TROIKA_SIZE"));
        assertEquals("0", r.vars().get("TROIKA_LOCAL_RANK"), "derived from TROIKA_HOSTS when MPI gives none");
        assertEquals("2", r.vars().get("TROIKA_LOCAL_SIZE"));
    }

    @Test
    void withoutHostListUsesTheMachineHostname() throws Exception {
        Result r = run(Map.of("OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_LOCAL_RANK", "1",
                "OMPI_COMM_WORLD_LOCAL_SIZE", "2", "OMPI_COMM_WORLD_SIZE", "2"), "env");
        assertEquals(0, r.exit(), r.err());
        assertFalse(r.vars().get("TROIKA_HOSTNAME").isEmpty());
        assertFalse(r.vars().containsKey("TROIKA_CROSS_RANK"));
        assertEquals("1", r.vars().get("TROIKA_LOCAL_RANK"));
    }

    @Test
    void keepsArgumentsIntact() throws Exception {
        Result r = run(Map.of("PMI_RANK", "0", "PMI_SIZE", "1", "TROIKA_HOSTS", "h:1"), "printf", "<%s>\\n", "a b", "*",
                "");
        assertEquals(0, r.exit(), r.err());
        assertEquals("<a b>\n<*>\n<>\n", r.out());
    }

    /** mpirun inside Slurm: the ranks inherit the SLURM_PROCID of the orted that srun started; MPI's rank wins. */
    @Test
    void mpiRankWinsOverTheSlurmTaskOfItsDaemon() throws Exception {
        Result r = run(Map.of("OMPI_COMM_WORLD_RANK", "3", "OMPI_COMM_WORLD_SIZE", "4", "SLURM_PROCID", "1",
                "SLURM_LOCALID", "0", "SLURM_STEP_ID", "0", "TROIKA_HOSTS", "n1:2,n2:2"), "env");
        assertEquals("3", r.vars().get("TROIKA_RANK"));
        assertEquals("1", r.vars().get("TROIKA_LOCAL_RANK"));
        assertEquals("n2", r.vars().get("TROIKA_HOSTNAME"));
    }

    /** A batch script (SLURM_PROCID=0 but no step) is not a rank. */
    @Test
    void refusesToRunOutsideMpi() throws Exception {
        for (Map<String, String> env : List.of(Map.<String, String>of(), Map.of("SLURM_PROCID", "0"))) {
            Result r = run(env, "env");
            assertEquals(2, r.exit());
            assertTrue(r.err().contains("OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID"), r.err());
            assertEquals("", r.out());
        }
    }

    /** Given only the MPI's rank and size and TROIKA_HOSTS, the script computes every golden row itself. */
    @Test
    void rankTableMatchesTheGoldenFixture() throws Exception {
        for (RankTableGolden.Case c : RankTableGolden.cases()) {
            for (RankTable.Row row : c.rows()) {
                Result r = run(Map.of("PMI_RANK", "" + row.rank(), "PMI_SIZE", "" + row.size(), "TROIKA_HOSTS",
                        c.troikaHosts()), "env");
                Map<String, String> v = r.vars();
                String where = c.troikaHosts() + " rank " + row.rank();
                assertEquals(0, r.exit(), where + ": " + r.err());
                assertEquals(List.of("" + row.rank(), row.host(), "" + row.localRank(), "" + row.localSize(),
                        "" + row.crossRank(), "" + row.crossSize(), "" + row.size()),
                        List.of(v.get("TROIKA_RANK"), v.get("TROIKA_HOSTNAME"), v.get("TROIKA_LOCAL_RANK"),
                                v.get("TROIKA_LOCAL_SIZE"), v.get("TROIKA_CROSS_RANK"), v.get("TROIKA_CROSS_SIZE"),
                                v.get("TROIKA_SIZE")), where);
                // the slot counts alone (what ranks get when the names are too long to export): same place
                String counts = String.join(",", c.hosts().stream().map(h -> Integer.toString(h.slots())).toList());
                Result bySlots = run(Map.of("PMI_RANK", "" + row.rank(), "PMI_SIZE", "" + row.size(),
                        "TROIKA_HOST_SLOTS", counts), "env");
                Map<String, String> w = bySlots.vars();
                assertEquals(List.of("" + row.localRank(), "" + row.localSize(), "" + row.crossRank(),
                        "" + row.crossSize()), List.of(w.get("TROIKA_LOCAL_RANK"), w.get("TROIKA_LOCAL_SIZE"),
                        w.get("TROIKA_CROSS_RANK"), w.get("TROIKA_CROSS_SIZE")), where + " by slot counts " + counts);
            }
        }
    }

    /** Runs of equal hosts ({@code SxK}): ranks of a 10,000-host layout find their place in a few steps. */
    @Test
    void placesRanksFromRunLengthSlotCounts() throws Exception {
        String layout = "8x9998,3,8"; // hosts 0..9997: 8 slots, 9998: 3, 9999: 8
        int[][] cases = { // rank, local rank, local size, cross rank, cross size
            {0, 0, 8, 0, 10000}, {79983, 7, 8, 9997, 9999}, {79986, 2, 3, 9998, 10000}, {79990, 3, 8, 9998, 9999},
            {79994, 7, 8, 9998, 9999}};
        for (int[] c : cases) {
            Result r = run(Map.of("OMPI_COMM_WORLD_RANK", "" + c[0], "OMPI_COMM_WORLD_SIZE", "79995",
                    "TROIKA_HOST_SLOTS", layout), "env");
            Map<String, String> v = r.vars();
            assertEquals(0, r.exit(), r.err());
            assertEquals(List.of("" + c[1], "" + c[2], "" + c[3], "" + c[4]), List.of(v.get("TROIKA_LOCAL_RANK"),
                    v.get("TROIKA_LOCAL_SIZE"), v.get("TROIKA_CROSS_RANK"), v.get("TROIKA_CROSS_SIZE")), "rank " + c[0]);
        }
    }
}
