package org.troika.launcher.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Class-data sharing in {@code bin/troika-rankenv} ({@code TROIKA_JAVA_CDS=1}) with this JDK's real {@code java}:
 * the first rank records an archive into the per-host cache, a later one promotes it and maps it (checked with
 * {@code -Xlog:class+load}), concurrent ranks never fail or corrupt it, and a class path the JVM cannot archive
 * (a non-empty directory) runs without CDS instead of failing at exit.
 */
class RankEnvCdsScriptTest {
    static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    @TempDir
    Path tmp;
    Path cache;
    Path jar;

    @BeforeEach
    void jarWithTheRank() throws IOException {
        cache = tmp.resolve("cache");
        jar = tmp.resolve("app.jar");
        String name = CdsHello.class.getName().replace('.', '/') + ".class";
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out)) {
            j.putNextEntry(new JarEntry(name));
            try (var in = CdsHello.class.getClassLoader().getResourceAsStream(name)) {
                in.transferTo(j);
            }
            j.closeEntry();
        }
    }

    private Map<String, String> env(String... more) {
        Map<String, String> env = new HashMap<>(Map.of("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "1",
                "TROIKA_HOSTS", "h:1", "TROIKA_JAVA_CDS", "1", "TROIKA_CDS_DIR", cache.toString(),
                "HOME", tmp.toString()));
        for (int i = 0; i < more.length; i += 2) {
            env.put(more[i], more[i + 1]);
        }
        return env;
    }

    private RankEnvScriptTest.Result rank(Map<String, String> env, String classpath) throws Exception {
        return RankEnvScriptTest.run(env, JAVA, "-cp", classpath, CdsHello.class.getName(), "x", "y");
    }

    private List<String> cacheEntries() throws IOException {
        if (!Files.isDirectory(cache)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(cache)) {
            // .ldconfig-dirs: the folders ldconfig names, kept for JNA's library path (not an archive)
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".")).sorted().toList();
        }
    }

    /**
     * The cache after one recording rank has exited: its claim, a symlink {@code KEY.recorder} naming its pid, and the
     * archive it wrote, {@code KEY.PID.part}; returns the archive.
     */
    private Path recording() throws IOException {
        List<String> entries = cacheEntries();
        assertEquals(2, entries.size(), entries.toString());
        Path claim = cache.resolve(entries.get(1));
        assertTrue(claim.toString().endsWith(".recorder") && Files.isSymbolicLink(claim), entries.toString());
        String pid = Files.readSymbolicLink(claim).toString();
        String key = entries.get(1).substring(0, entries.get(1).length() - ".recorder".length());
        assertEquals(key + "." + pid + ".part", entries.get(0), "the recorder's own file: " + entries);
        return cache.resolve(entries.get(0));
    }

    @Test
    void firstRankRecordsTheNextMapsTheArchive() throws Exception {
        RankEnvScriptTest.Result first = rank(env(), jar.toString());
        assertEquals(0, first.exit(), first.err());
        assertEquals("hello x,y\n", first.out());
        assertEquals("", first.err(), "no CDS messages in the rank's output");
        Path part = recording();
        assertTrue(Files.size(part) > 0, "recorded at exit");

        // the recorder has exited: the next rank promotes the archive and maps it (the main class comes from it)
        RankEnvScriptTest.Result second = rank(env("JAVA_TOOL_OPTIONS", "-Xlog:class+load"), jar.toString());
        assertEquals(0, second.exit(), second.err());
        assertTrue(second.out().lines().anyMatch(l -> l.contains(CdsHello.class.getName() + " source: shared objects "
                + "file (top)")), second.out());
        List<String> entries = cacheEntries();
        assertEquals(1, entries.size(), entries.toString());
        assertTrue(entries.get(0).endsWith(".jsa"), entries.toString());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(cache)),
                "the cache is the user's alone");
    }

    @Test
    void aDumpCutShortIsDiscardedAndRecordedAgain() throws Exception {
        assertEquals(0, rank(env(), jar.toString()).exit()); // records
        // as if the recorder was killed while writing: no header yet
        Files.write(recording(), new byte[4096]);
        RankEnvScriptTest.Result r = rank(env(), jar.toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals(List.of(), cacheEntries(), "the cut dump was dropped, not promoted");
        assertEquals(0, rank(env(), jar.toString()).exit());
        assertTrue(Files.size(recording()) > 0, "recorded again: " + cacheEntries());
    }

    @Test
    void aRebuiltJarGetsANewArchive() throws Exception {
        assertEquals(0, rank(env(), jar.toString()).exit());
        assertEquals(0, rank(env(), jar.toString()).exit()); // promotes
        Files.setLastModifiedTime(jar, java.nio.file.attribute.FileTime.fromMillis(1_000_000_000L));
        RankEnvScriptTest.Result r = rank(env(), jar.toString());
        assertEquals(0, r.exit(), r.err());
        List<String> entries = cacheEntries();
        assertEquals(3, entries.size(), "old archive and a new recording: " + entries);
        String oldKey = entries.stream().filter(n -> n.endsWith(".jsa")).findFirst().orElseThrow().replace(".jsa", "");
        assertTrue(entries.stream().filter(n -> n.endsWith(".recorder")).noneMatch(n -> n.startsWith(oldKey + ".")),
                "another key: " + entries);
    }

    /**
     * A rank that finds a dead recorder's claim removes that claim and the dead recorder's file only: another rank's
     * recording (its own {@code KEY.PID.part}, written while its JVM exits) is never touched. Two ranks recording
     * into one folder, removed under the second, failed that rank at its exit before.
     */
    @Test
    void aDeadRecordersCleanUpLeavesALiveRecordingAlone() throws Exception {
        assertEquals(0, rank(env(), jar.toString()).exit());
        Path part = recording();
        String name = part.getFileName().toString();
        String key = name.substring(0, name.indexOf('.'));
        Process live = new ProcessBuilder("sleep", "30").start();
        try {
            Path livePart = cache.resolve(key + "." + live.pid() + ".part");
            Files.write(livePart, new byte[] {1, 2, 3});
            Files.delete(part); // its recorder (exited) left nothing: a dump cut short before any byte
            RankEnvScriptTest.Result r = rank(env(), jar.toString());
            assertEquals(0, r.exit(), r.err());
            assertEquals(List.of(livePart.getFileName().toString()), cacheEntries(), "the stale claim went, "
                    + "the live recording stayed");
            org.junit.jupiter.api.Assertions.assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(livePart));
        } finally {
            live.destroy();
            live.waitFor();
        }
    }

    @Test
    void concurrentRanksOnOneHostAllSucceedAndOneRecords() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 2; round++) {
                List<Future<RankEnvScriptTest.Result>> ranks = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    ranks.add(pool.submit(() -> rank(env(), jar.toString())));
                }
                for (Future<RankEnvScriptTest.Result> f : ranks) {
                    RankEnvScriptTest.Result r = f.get();
                    assertEquals(0, r.exit(), r.err());
                    assertEquals("hello x,y\n", r.out());
                }
            }
        } finally {
            pool.shutdownNow();
        }
        List<String> entries = cacheEntries();
        assertEquals(1, entries.size(), "one key, one archive: " + entries);
        assertTrue(entries.get(0).endsWith(".jsa"), "promoted by a rank of the second round: " + entries);
    }

    /** A class-path folder with a file in it, a hidden one included: the JVM would refuse to archive it. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"x.txt", ".hidden"})
    void aNonEmptyDirectoryOnTheClassPathRunsWithoutCds(String file) throws Exception {
        Path classes = Files.createDirectories(tmp.resolve("classes"));
        Files.writeString(classes.resolve(file), "x");
        RankEnvScriptTest.Result r = rank(env(), classes + ":" + jar);
        assertEquals(0, r.exit(), "the JVM would fail at exit had it been asked to dump: " + r.err());
        assertEquals("hello x,y\n", r.out());
        assertFalse(Files.exists(cache), "nothing cached: " + cacheEntries());
    }

    @Test
    void offUnlessAskedAndOnlyForJava() throws Exception {
        Map<String, String> off = env();
        off.remove("TROIKA_JAVA_CDS");
        assertEquals(0, rank(off, jar.toString()).exit());
        assertEquals(0, RankEnvScriptTest.run(env(), "true").exit());
        assertEquals(0, rank(env("TROIKA_JAVA_CDS", "0"), jar.toString()).exit());
        assertFalse(Files.exists(cache), "nothing cached: " + cacheEntries());
    }

    @Test
    void javaRanksGetJnasLibraryPathUpFrontUnlessTheyChoseOne() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(List.of("amd64", "aarch64").contains(System.getProperty("os.arch")),
                "JNA's multiarch folder is uname -m + -linux-gnu only on x86_64 and aarch64");
        RankEnvScriptTest.Result r = RankEnvScriptTest.run(env(), JAVA, "-cp", jar.toString(),
                CdsHello.class.getName(), "jna");
        assertEquals(0, r.exit(), r.err());
        String path = r.out().lines().filter(l -> l.startsWith("jna.platform.library.path=")).findFirst().orElseThrow()
                .substring("jna.platform.library.path=".length());
        List<String> dirs = List.of(path.split(":"));
        assertTrue(dirs.size() >= 2 && dirs.stream().allMatch(d -> Files.isDirectory(Path.of(d))), path);
        assertEquals(dirs.size(), dirs.stream().distinct().count(), "each folder once: " + path);
        assertTrue(dirs.contains("/usr/lib") || dirs.contains("/lib"), path);

        RankEnvScriptTest.Result own = RankEnvScriptTest.run(env(), JAVA, "-Djna.platform.library.path=/opt/x", "-cp",
                jar.toString(), CdsHello.class.getName(), "jna");
        assertTrue(own.out().contains("jna.platform.library.path=/opt/x\n"), own.out());
        Map<String, String> off = env();
        off.remove("TROIKA_JAVA_CDS");
        assertTrue(RankEnvScriptTest.run(off, JAVA, "-cp", jar.toString(), CdsHello.class.getName(), "jna").out()
                .contains("jna.platform.library.path=null"), "off unless asked");
    }

    /**
     * The folders {@code ldconfig -p} names are kept in the cache folder and read by the next ranks instead of starting
     * ldconfig, sed and awk again, while the list is newer than ldconfig's own cache (ldconfig rewrites that on every
     * run); an older list is made again.
     */
    @Test
    void ldconfigsFoldersAreKeptWhileNewerThanItsCache() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(List.of("amd64", "aarch64").contains(System.getProperty("os.arch")),
                "JNA's multiarch folder is uname -m + -linux-gnu only on x86_64 and aarch64");
        Path ldCache = Path.of("/etc/ld.so.cache");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isRegularFile(ldCache),
                "no /etc/ld.so.cache on this machine: nothing to compare the kept list with");
        String first = jnaPath(RankEnvScriptTest.run(env(), JAVA, "-cp", jar.toString(), CdsHello.class.getName(),
                "jna"));
        Path memo = cache.resolve(".ldconfig-dirs");
        assertTrue(Files.isRegularFile(memo), "kept: " + cacheEntries());
        // a folder only the kept list names: it shows whether the next rank read the list or asked ldconfig
        Path marker = Files.createDirectories(tmp.resolve("only-in-the-kept-list"));
        Files.writeString(memo, Files.readString(memo) + marker + "\n" + tmp.resolve("gone") + "\n");
        String second = jnaPath(RankEnvScriptTest.run(env(), JAVA, "-cp", jar.toString(), CdsHello.class.getName(),
                "jna"));
        assertEquals(first + ":" + marker, second, "the kept list, existing folders only");

        Files.setLastModifiedTime(memo, java.nio.file.attribute.FileTime.fromMillis(
                Files.getLastModifiedTime(ldCache).toMillis() - 10_000));
        String third = jnaPath(RankEnvScriptTest.run(env(), JAVA, "-cp", jar.toString(), CdsHello.class.getName(),
                "jna"));
        assertEquals(first, third, "older than ldconfig's cache: made again");
        assertFalse(Files.readString(memo).contains(marker.toString()), "and kept again");
    }

    private static String jnaPath(RankEnvScriptTest.Result r) {
        assertEquals(0, r.exit(), r.err());
        return r.out().lines().filter(l -> l.startsWith("jna.platform.library.path=")).findFirst().orElseThrow()
                .substring("jna.platform.library.path=".length());
    }

    /** A {@code java} found on PATH (no slash in the command) gets its archive as an absolute one does. */
    @Test
    void javaFromPathIsFound() throws Exception {
        Map<String, String> env = env();
        env.put("PATH", Path.of(JAVA).getParent() + ":/usr/bin:/bin");
        assertEquals(0, RankEnvScriptTest.run(env, "java", "-Xlog:class+load=info", "-cp", jar.toString(),
                CdsHello.class.getName()).exit());
        RankEnvScriptTest.Result r = RankEnvScriptTest.run(env, "java", "-Xlog:class+load=info", "-cp",
                jar.toString(), CdsHello.class.getName());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.contains(CdsHello.class.getName() + " source: shared objects ")),
                "mapped from the archive the first run recorded: " + cacheEntries());
        assertEquals(1, cacheEntries().size(), cacheEntries().toString());
    }

    @Test
    void userCdsOptionsAreLeftAlone() throws Exception {
        Path own = tmp.resolve("own.jsa");
        RankEnvScriptTest.Result r = RankEnvScriptTest.run(env(), JAVA, "-XX:ArchiveClassesAtExit=" + own,
                "-Xlog:cds=off", "-Xlog:cds+dynamic=off", "-cp", jar.toString(), CdsHello.class.getName());
        assertEquals(0, r.exit(), r.err());
        assertTrue(Files.exists(own));
        assertFalse(Files.exists(cache), "nothing cached: " + cacheEntries());
    }
}
