package org.troika.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The driver's class-data-sharing decisions for ranks on its machine (files in a temp folder; no JVM is started). */
class RankCdsTest {
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    @TempDir
    Path tmp;

    private Path jar(String name, String content) throws IOException {
        return Files.writeString(tmp.resolve(name), content);
    }

    private static List<String> stamps(String classpath) throws IOException {
        List<String> s = new ArrayList<>();
        assertNull(RankCds.classPathStamps(classpath, s));
        return s;
    }

    @Test
    void theKeyChangesWithTheJdkTheOptionsAndEveryJar() throws Exception {
        Path a = jar("a.jar", "a");
        String cp = a + ":" + jar("b.jar", "b");
        String base = RankCds.key("jdk17", List.of("-Xmx1g"), stamps(cp));
        assertEquals(base, RankCds.key("jdk17", List.of("-Xmx1g"), stamps(cp)));
        assertNotEquals(base, RankCds.key("jdk21", List.of("-Xmx1g"), stamps(cp)));
        assertNotEquals(base, RankCds.key("jdk17", List.of("-Xmx2g"), stamps(cp)));
        Files.setLastModifiedTime(a, FileTime.from(Instant.parse("2020-01-01T00:00:00Z")));
        assertNotEquals(base, RankCds.key("jdk17", List.of("-Xmx1g"), stamps(cp)), "a rebuilt jar records anew");
        assertTrue(base.matches("spark-[0-9a-f]{32}"), base);
    }

    @Test
    void aFolderWildcardStampsItsJarsInNameOrderAndANonEmptyFolderRulesTheArchiveOut() throws Exception {
        Path lib = Files.createDirectories(tmp.resolve("lib"));
        Files.writeString(lib.resolve("z.jar"), "z");
        Files.writeString(lib.resolve("a.jar"), "a");
        Files.writeString(lib.resolve("notes.txt"), "n");
        List<String> s = stamps(lib + "/*");
        assertEquals(2, s.size());
        assertTrue(s.get(0).startsWith(lib.resolve("a.jar") + " ") && s.get(1).startsWith(lib.resolve("z.jar") + " "), s::toString);
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        assertEquals(1, stamps(empty.toString()).size(), "an empty folder is archivable");
        assertEquals(lib.toString(), RankCds.classPathStamps(empty + ":" + lib, new ArrayList<>()));
    }

    @Test
    void optionsThatChooseClassDataSharingThemselvesAreLeftAlone() {
        for (String o : List.of("-Xshare:off", "-XX:SharedArchiveFile=/x.jsa", "-XX:ArchiveClassesAtExit=/y.jsa",
                "-XX:+AutoCreateSharedArchive", "--module-path")) {
            assertEquals(o, RankCds.refusedOption(List.of("-Xmx1g", o)));
        }
        assertNull(RankCds.refusedOption(List.of("-Xmx1g", "-XX:+UseParallelGC", "-Dx=y")));
    }

    @Test
    void onlyAJdk13OrLaterWithAReleaseFileQualifies() throws Exception {
        assertTrue(RankCds.javaIdentity(JAVA, Map.of()).contains("JAVA_VERSION=\""));
        Path jdk11 = Files.createDirectories(tmp.resolve("jdk11/bin"));
        Files.writeString(tmp.resolve("jdk11/release"), "JAVA_VERSION=\"11.0.2\"\n");
        Path java11 = Files.writeString(jdk11.resolve("java"), "");
        assertNull(RankCds.javaIdentity(java11.toString(), Map.of()));
        assertNull(RankCds.javaIdentity("no-such-java", Map.of("PATH", tmp.toString())));
    }

    @Test
    void theFirstJobRecordsAFinishedDumpIsKeptAndLaterJobsMapIt() throws Exception {
        Path cache = tmp.resolve("cache");
        Map<String, String> env = Map.of(RankCds.CDS_DIR, cache.toString());
        String cp = jar("app.jar", "app").toString();
        RankCds.Plan first = RankCds.plan(env, "spark-a", JAVA, List.of(), cp);
        assertTrue(first.recording() != null && first.recording().getParent().equals(cache), first::toString);
        assertTrue(first.archive().getFileName().toString().endsWith(".jsa"), first::toString);
        assertEquals(List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off"), first.jvmOptions(), "rank 0 adds the dump");

        // a dump cut short (no header yet) is not kept
        Files.write(first.recording(), new byte[] {0, 0, 0, 0, 1});
        assertFalse(RankCds.keep(first));
        assertFalse(Files.exists(first.recording()));
        assertFalse(Files.exists(first.archive()));

        RankCds.Plan again = RankCds.plan(env, "spark-a", JAVA, List.of(), cp);
        Files.write(again.recording(), new byte[] {(byte) 0xa8, (byte) 0xab, 0x0b, (byte) 0xf0, 9, 9});
        assertTrue(RankCds.keep(again));
        assertFalse(Files.exists(again.recording()));
        assertTrue(Files.isRegularFile(again.archive()));

        RankCds.Plan later = RankCds.plan(env, "spark-a", JAVA, List.of(), cp);
        assertNull(later.recording());
        assertEquals(List.of("-XX:SharedArchiveFile=" + again.archive(), "-Xshare:auto", "-Xlog:cds=off",
                "-Xlog:cds+dynamic=off"), later.jvmOptions());
        assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(cache)));
    }

    @Test
    void aRecordingLeftByADeadDriverIsRemovedAndAFailedJobLeavesNothing() throws Exception {
        Path cache = Files.createDirectories(tmp.resolve("cache"));
        Path old = Files.writeString(cache.resolve("spark-x.jsa.1.recording"), "partial");
        Files.setLastModifiedTime(old, FileTime.from(Instant.now().minusSeconds(7200)));
        Path fresh = Files.writeString(cache.resolve("spark-y.jsa.2.recording"), "another driver's, still running");
        RankCds.Plan p = RankCds.plan(Map.of(RankCds.CDS_DIR, cache.toString()), "h", JAVA, List.of(),
                jar("app.jar", "app").toString());
        assertFalse(Files.exists(old));
        assertTrue(Files.exists(fresh));
        Files.writeString(p.recording(), "dump of a job that failed");
        RankCds.discard(p);
        assertFalse(Files.exists(p.recording()));
    }

    @Test
    void offWhenAskedWithoutACacheOrForAClassPathFolder() throws Exception {
        String cp = jar("app.jar", "app").toString();
        Map<String, String> cache = Map.of(RankCds.CDS_DIR, tmp.resolve("c").toString());
        assertNull(RankCds.plan(Map.of("TROIKA_JAVA_CDS", "0", RankCds.CDS_DIR, tmp.toString()), "h", JAVA, List.of(), cp)
                .archive());
        assertNull(RankCds.plan(Map.of(), "h", JAVA, List.of(), cp).archive(), "no HOME, no XDG_CACHE_HOME");
        assertNull(RankCds.plan(cache, "h", JAVA, List.of("-Xshare:off"), cp).archive());
        Path classes = Files.createDirectories(tmp.resolve("classes"));
        Files.writeString(classes.resolve("A.class"), "x");
        RankCds.Plan folder = RankCds.plan(cache, "h", JAVA, List.of(), cp + ":" + classes);
        assertNull(folder.archive());
        assertTrue(folder.describe().contains("non-empty folder " + classes), folder.describe());
        assertEquals(List.of(), folder.jvmOptions());
        assertEquals(tmp.resolve("home/.cache/troika/cds/spark-a"), RankCds.directory(Map.of("HOME",
                tmp.resolve("home").toString()), "spark-a"));
    }
}
