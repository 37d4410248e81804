package org.troika.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.troika.mpi.Mpi;
import org.troika.mpi.Op;
import org.troika.testkit.Requires;

/**
 * End to end on Spark local[4]: barrier tasks in this JVM, mpirun starting the ranks itself (no task service or launch
 * agent: the relayed path is LocalClusterTest's), ranks in this JVM's descendants.
 */
@Tag("integration")
@Timeout(300)
class TroikaSparkLocalTest {
    private static SparkSession spark;

    @BeforeAll
    static void startSpark() {
        Requires.command("mpirun");
        spark = LocalSpark.start("local[4]");
    }

    @AfterAll
    static void stopSpark() {
        if (spark != null) {
            spark.stop();
        }
    }

    private static RunOptions np4() {
        return RunOptions.builder().np(4).startTimeout(Duration.ofSeconds(120)).build();
    }

    @Test
    void resultsComeBackOrderedByRank() {
        List<String> r = TroikaSpark.run(spark, env -> "rank " + env.rank() + " of " + env.size() + " local "
                + env.localRank() + "/" + env.localSize(), np4());
        assertEquals(List.of("rank 0 of 4 local 0/4", "rank 1 of 4 local 1/4", "rank 2 of 4 local 2/4",
                "rank 3 of 4 local 3/4"), r);
    }

    @Test
    void aFailingRankFailsTheJobNamingRankHostAndExitCode() {
        TroikaSparkException e = assertThrows(TroikaSparkException.class, () -> TroikaSpark.run(spark, env -> {
            if (env.rank() == 2) {
                throw new IllegalStateException("boom in rank two");
            }
            return env.rank();
        }, np4()));
        String m = e.getMessage();
        assertTrue(m.contains("rank 2 on host spark-") && m.contains("exit code 1")
                && m.contains("IllegalStateException: boom in rank two"), m);
    }

    @Test
    void ranksRunACollectiveThroughTroikaMpi() {
        List<Long> sums = TroikaSpark.run(spark, env -> {
            Mpi mpi = Mpi.init();
            try {
                long[] v = {env.rank() + 1, 100L * Mpi.world().rank()};
                Mpi.world().allreduce(v, Op.SUM);
                return v[0] * 1000 + v[1];
            } finally {
                mpi.close();
            }
        }, np4());
        assertEquals(List.of(10_600L, 10_600L, 10_600L, 10_600L), sums);
    }

    @Test
    void cancellingTheSparkJobTearsTheMpiJobDownAndLeavesNoProcesses(@TempDir Path dir) throws Exception {
        String marks = dir.toString();
        CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
            try {
                TroikaSpark.run(spark, env -> {
                    Path tmp = Files.writeString(Path.of(marks, "tmp-" + env.rank()),
                            Long.toString(ProcessHandle.current().pid()));
                    Files.move(tmp, Path.of(marks, "rank-" + env.rank()), StandardCopyOption.ATOMIC_MOVE);
                    Thread.sleep(600_000);
                    return env.rank();
                }, np4());
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (countFiles(dir) < 4 && !outcome.isDone() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(4, countFiles(dir), "all four ranks started");
        assertTrue(ProcessHandle.current().descendants().findAny().isPresent(), "mpirun and ranks run");
        List<Long> ranks = new java.util.ArrayList<>();
        for (int r = 0; r < 4; r++) {
            ranks.add(Long.parseLong(Files.readString(dir.resolve("rank-" + r)).trim()));
        }
        spark.sparkContext().cancelAllJobs();
        Throwable e = outcome.get(180, TimeUnit.SECONDS);
        assertTrue(e instanceof TroikaSparkException && e.getMessage().contains("cancelled"), String.valueOf(e));
        while (ProcessHandle.current().descendants().findAny().isPresent() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(List.of(), ProcessHandle.current().descendants().map(p -> p.pid() + " "
                + p.info().commandLine().orElse("?")).toList(), "processes left after the cancel");
        // Open MPI gives each rank its own process group: a rank that outlived its orted would have left the tree
        while (ranks.stream().anyMatch(TroikaSparkLocalTest::alive) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(List.of(), ranks.stream().filter(TroikaSparkLocalTest::alive).toList(), "ranks left alive");
        // a daemonized orted would have left the process tree: none may name this job's host word either
        String host = HostHash.local();
        assertEquals(List.of(), ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("")
                .contains(host)).map(p -> p.pid() + " " + p.info().commandLine().orElse("?")).toList());
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static long countFiles(Path dir) throws java.io.IOException {
        try (var s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith("rank-")).count();
        }
    }

    /**
     * Rank 0 of the first job records a class-data-sharing archive into the cache; every rank of the next job maps it.
     * The rank class path is made of jars (a folder on it rules the archive out), the function's class among them.
     */
    @Test
    void ranksOnThisMachineMapAnArchiveRecordedByTheFirstJob(@TempDir Path dir) throws Exception {
        List<String> jars = new java.util.ArrayList<>();
        for (String entry : TroikaSpark.rankClasspath().split(":")) {
            Path p = Path.of(entry);
            jars.add((Files.isDirectory(p) ? jar(p, dir.resolve("cp-" + jars.size() + ".jar"), null) : p).toString());
        }
        Path tests = Path.of(CdsProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        jars.add(jar(tests, dir.resolve("probe.jar"), "org/troika/spark/CdsProbe").toString());
        Path cache = dir.resolve("cds");
        RunOptions o = RunOptions.builder().np(4).startTimeout(Duration.ofSeconds(120))
                .rankClasspath(String.join(":", jars)).env(java.util.Map.of("TROIKA_CDS_DIR", cache.toString())).build();
        List<String> first = TroikaSpark.run(spark, CdsProbe.archivesAndClassPath(), o);
        assertEquals(4, first.size());
        List<Path> archives;
        try (var s = Files.list(cache)) {
            archives = s.toList();
        }
        assertEquals(1, archives.size(), archives::toString);
        assertTrue(archives.get(0).toString().endsWith(".jsa") && RankCds.finished(archives.get(0)), archives::toString);
        List<String> second = TroikaSpark.run(spark, CdsProbe.archivesAndClassPath(), o);
        for (String r : second) {
            String[] mapsAndCp = r.split("\n", 2);
            assertTrue(List.of(mapsAndCp[0].split(",")).contains(archives.get(0).toString()), r);
            // Open MPI did not rewrite the java command (it would put the working directory first)
            assertEquals(String.join(":", jars), mapsAndCp[1]);
        }
    }

    /** A jar of the classes under {@code root} (those whose path starts with {@code prefix}, or all). */
    private static Path jar(Path root, Path jar, String prefix) throws java.io.IOException {
        try (var out = new java.util.jar.JarOutputStream(Files.newOutputStream(jar)); var files = Files.walk(root)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                String name = root.relativize(f).toString();
                if (prefix == null || name.startsWith(prefix)) {
                    out.putNextEntry(new java.util.jar.JarEntry(name));
                    Files.copy(f, out);
                    out.closeEntry();
                }
            }
        }
        return jar;
    }

    @Test
    void moreProcessesThanCoresFailsAtOnce() {
        var e = assertThrows(org.troika.common.UsageException.class,
                () -> TroikaSpark.run(spark, env -> env.rank(), RunOptions.builder().np(8).build()));
        assertTrue(e.getMessage().contains("8 processes need 8 Spark task slots") && e.getMessage().contains("has 4"),
                e.getMessage());
    }

    @Test
    void aStartTimeoutNamesHowManyTasksRegistered() {
        TroikaSparkException e = assertThrows(TroikaSparkException.class, () -> TroikaSpark.run(spark,
                env -> env.rank(), RunOptions.builder().np(4).startTimeout(Duration.ofMillis(1)).build()));
        assertTrue(e.getMessage().matches(".*start timeout: \\d of 4 Spark tasks registered within 1 ms.*"),
                e.getMessage());
    }
}
