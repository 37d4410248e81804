package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.troika.testkit.Dist;
import org.troika.testkit.MpiJob.Launcher;

/**
 * {@code troika run --java-cds} with real {@code java} ranks (the training example: JNA, {@code MPI_Init}, an
 * allreduce) on localhost, on every MPI under test: the first run records a class-data-sharing archive into
 * {@code TROIKA_CDS_DIR} (a finished dump: the JVM writes the archive's magic last), the second maps it (a rank loads
 * the main class from the archive's top layer, seen with {@code -Xlog:class+load}); the same job without the flag
 * maps nothing. The caller's {@code TROIKA_JAVA_CDS=0} shows that the flag, not the environment, turns it on.
 */
@Tag("integration")
class JavaCdsRunTest {
    private static final String MAIN = "org.troika.examples.Training";
    /** The first bytes of a finished archive: its magic 0xf00baba8, little-endian. */
    private static final byte[] ARCHIVE_MAGIC = {(byte) 0xa8, (byte) 0xab, 0x0b, (byte) 0xf0};

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @EnumSource(Launcher.class)
    void theFirstRunRecordsAnArchiveAndTheSecondMapsIt(Launcher mpi) throws Exception {
        Path cache = tmp.resolve("cds");
        List<String> cdsEntries;

        runRanks(mpi, cache, "--java-cds");
        cdsEntries = entries(cache);
        // one rank's claim (KEY.recorder) and the archive it recorded at its exit (KEY.PID.part)
        assertEquals(2, cdsEntries.size(), cdsEntries::toString);
        assertTrue(cdsEntries.get(0).endsWith(".part") && cdsEntries.get(1).endsWith(".recorder"),
                "recorded by one rank at its exit: " + cdsEntries);
        assertArrayEquals(ARCHIVE_MAGIC, head(cache.resolve(cdsEntries.get(0))), "the dump finished");
        assertEquals(0, ranksMappingTheArchive(), "nothing to map on the first run");

        runRanks(mpi, cache, "--java-cds");
        cdsEntries = entries(cache);
        assertTrue(cdsEntries.stream().anyMatch(e -> e.endsWith(".jsa")), "promoted: " + cdsEntries);
        assertTrue(ranksMappingTheArchive() >= 1, "a rank of the second run loads " + MAIN + " from the archive");

        runRanks(mpi, cache, null); // no flag: the caller's TROIKA_JAVA_CDS=0 holds
        assertEquals(0, ranksMappingTheArchive(), "without --java-cds no rank maps it");
    }

    /**
     * {@code troika run [FLAG] -np 2 java ... Training} ({@code flag} may be {@code null}) with the caller's {@code TROIKA_JAVA_CDS=0}; the ranks log their
     * class loading to {@code tmp/cl-PID.log} (one option text for every run: the options are part of the archive's
     * key). Old logs are removed first.
     */
    private void runRanks(Launcher mpi, Path cache, String flag) throws Exception {
        for (Path log : logs()) {
            Files.delete(log);
        }
        List<String> args = new ArrayList<>();
        if (flag != null) {
            args.add(flag);
        }
        args.addAll(List.of("-np", "2", "-H", "localhost:2", "java", "-Xlog:class+load:file=" + tmp + "/cl-%p.log",
                "-cp", Dist.home().resolve("lib") + "/*", MAIN, "--epochs", "1", "--samples", "64", "--batches", "1"));
        try (RunSupport run = RunSupport.start(mpi, tmp, Map.of("TROIKA_JAVA_CDS", "0", "TROIKA_CDS_DIR",
                cache.toString()), args.toArray(String[]::new))) {
            RunSupport.Result r = run.waitFor();
            run.assertNoSurvivors();
            assertEquals(0, r.exitCode(), r.toString());
            assertTrue(r.out().contains("final accuracy"), r.toString());
        }
        assertEquals(2, logs().size(), "both ranks logged their class loading: " + logs());
    }

    /** How many ranks of the last run loaded the main class from the archive's top (dynamic) layer. */
    private long ranksMappingTheArchive() throws IOException {
        long n = 0;
        for (Path log : logs()) {
            try (Stream<String> lines = Files.lines(log)) {
                if (lines.anyMatch(l -> l.contains(" " + MAIN + " source: shared objects file (top)"))) {
                    n++;
                }
            }
        }
        return n;
    }

    private List<Path> logs() throws IOException {
        try (Stream<Path> s = Files.list(tmp)) {
            return s.filter(p -> p.getFileName().toString().matches("cl-[0-9]+\\.log")).toList();
        }
    }

    private static List<String> entries(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            // .ldconfig-dirs: the folders ldconfig names, kept for JNA's library path (not an archive)
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".")).sorted().toList();
        }
    }

    private static byte[] head(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return in.readNBytes(4);
        }
    }
}
