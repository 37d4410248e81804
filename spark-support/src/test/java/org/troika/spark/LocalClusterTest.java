package org.troika.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.jar.JarFile;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.troika.mpi.Mpi;
import org.troika.mpi.Op;
import org.troika.testkit.Requires;

/**
 * {@code local-cluster[2,2,1024]}: two executor JVMs started by an in-process standalone worker, so the task services,
 * orted and the ranks live under separate executor processes and the relay crosses process boundaries. Spark needs a
 * SPARK_HOME with a {@code jars/} directory; the pom points SPARK_HOME at {@code target/spark-home}, filled here with
 * links to the test class path's jars (MEASURED-HERE, Spark section 4).
 */
@Tag("integration")
@Timeout(600)
class LocalClusterTest {
    private static SparkSession spark;

    @BeforeAll
    static void startCluster() throws IOException {
        Requires.command("mpirun");
        String home = System.getenv("SPARK_HOME");
        Requires.check(home != null && home.endsWith("spark-home"), "SPARK_HOME set by the spark-support pom");
        List<String> dirs = new ArrayList<>();
        Path jars = Path.of(home, "jars");
        Files.createDirectories(jars);
        try (var stale = Files.list(jars)) { // links of an earlier run may name other builds of troika's modules
            for (Path p : stale.toList()) {
                Files.delete(p);
            }
        }
        for (String entry : testClassPath()) {
            Path p = Path.of(entry);
            if (entry.endsWith(".jar") && Files.isRegularFile(p)) {
                Path link = jars.resolve(p.getFileName());
                if (!Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.createSymbolicLink(link, p.toAbsolutePath()); // first of equal names wins, as on a class path
                }
            } else if (Files.isDirectory(p)) {
                dirs.add(p.toAbsolutePath().toString());
            }
        }
        spark = SparkSession.builder().master("local-cluster[2,2,1024]").appName("troika-spark-local-cluster")
                .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.executor.extraClassPath", String.join(File.pathSeparator, dirs))
                .config("spark.scheduler.barrier.maxConcurrentTasksCheck.interval", "1s")
                .config("spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures", "60")
                .getOrCreate();
    }

    /** The real test class path (surefire runs tests from a manifest-only jar). */
    static List<String> testClassPath() throws IOException {
        String cp = System.getProperty("surefire.test.class.path");
        if (cp != null && !cp.isBlank()) {
            return List.of(cp.split(File.pathSeparator));
        }
        List<String> out = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            out.add(e);
            if (e.endsWith(".jar")) {
                try (JarFile j = new JarFile(e)) {
                    String more = j.getManifest() == null ? null : j.getManifest().getMainAttributes().getValue("Class-Path");
                    if (more != null) {
                        for (String u : more.trim().split("\\s+")) {
                            out.add(Path.of(java.net.URI.create(u)).toString());
                        }
                    }
                }
            }
        }
        return out;
    }

    @AfterAll
    static void stopCluster() {
        if (spark != null) {
            spark.stop();
        }
    }

    /** The pid of the executor JVM above this process, or -1. */
    static long executorPid() {
        Optional<ProcessHandle> p = ProcessHandle.current().parent();
        while (p.isPresent()) {
            if (p.get().info().commandLine().orElse("").contains("CoarseGrainedExecutorBackend")) {
                return p.get().pid();
            }
            p = p.get().parent();
        }
        return -1L;
    }

    /**
     * Also the keys a rank holds: the rank key in a 0600 file of its task service, and no launch agent key (the file
     * its daemon inherited is deleted once every daemon was looked up, before any rank starts) or job secret.
     */
    @Test
    void ranksRunUnderExecutorJvmsNotUnderTheDriver() {
        long driver = ProcessHandle.current().pid();
        List<String> seen = TroikaSpark.run(spark, env -> {
            String agentFile = System.getenv("TROIKA_SECRET_FILE");
            Path keyFile = Path.of(System.getenv(RankMain.KEY_FILE_ENV));
            return executorPid() + " " + (agentFile == null || !Files.exists(Path.of(agentFile))) + " "
                    + java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile))
                    + " " + (System.getenv("TROIKA_SECRET_KEY") == null);
        }, RunOptions.builder().np(4).startTimeout(Duration.ofSeconds(300)).build());
        assertEquals(4, seen.size());
        for (String s : seen) {
            assertTrue(s.endsWith(" true rw------- true"), "no agent key or secret, a 0600 rank key: " + seen);
        }
        List<Long> executors = seen.stream().map(s -> Long.parseLong(s.split(" ")[0])).toList();
        for (long e : executors) {
            assertTrue(e > 0, "a rank is not below an executor JVM: " + executors);
            assertNotEquals(driver, e);
        }
        assertEquals(1, executors.stream().distinct().count(),
                "one host hash: every rank under the executor of the lowest task: " + executors);
    }

    @Test
    void oneHostPerExecutorRelaysToBothExecutorsAndAllreduceCrossesThem() {
        List<String> r = TroikaSpark.run(spark, env -> {
            Mpi mpi = Mpi.init();
            try {
                long[] v = {env.rank() + 1};
                Mpi.world().allreduce(v, Op.SUM);
                return executorPid() + " " + env.hostname() + " " + env.localSize() + " " + v[0];
            } finally {
                mpi.close();
            }
        }, RunOptions.builder().np(4).hostPerExecutor(true).startTimeout(Duration.ofSeconds(300)).build());
        assertEquals(4, r.size());
        List<String[]> parts = r.stream().map(x -> x.split(" ")).toList();
        assertEquals(2, parts.stream().map(p -> p[0]).distinct().count(), "ranks below two executor JVMs: " + r);
        assertTrue(parts.stream().noneMatch(p -> p[0].equals("-1")), r::toString);
        assertEquals(2, parts.stream().map(p -> p[1]).distinct().count(), "two host words: " + r);
        assertTrue(parts.stream().allMatch(p -> p[2].equals("2") && p[3].equals("10")), r::toString);
    }
}
