package org.troika.launcher.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimelineTests {
    @TempDir
    Path tmp;

    /** An elastic job: two generations on two then three hosts, a failure, a blacklisting, commits and a hang. */
    static Timeline sample() {
        Timeline t = Timeline.inMemory();
        t.title("troika run java Train <demo>");
        t.span(Timeline.Kind.PLAN, "plan", null, 0, 200_000, Map.of());
        for (String h : new String[] {"n1", "n2"}) {
            t.span(Timeline.Kind.SERVICE, "task service", h, 200_000, 700_000, Map.of());
            t.span(Timeline.Kind.GENERATION, "generation 1", h, 800_000, 5_000_000, Map.of("generation", 1));
        }
        t.span(Timeline.Kind.MPIRUN, "mpirun (generation 1)", null, 800_000, 5_000_000, Map.of());
        for (long c = 1; c <= 4; c++) {
            t.instantAt(Timeline.Kind.COMMIT, "commit " + c, "n1", 1_000_000 * c, Map.of("commits", c));
        }
        t.instantAt(Timeline.Kind.HOST, "added", "n3", 3_000_000, Map.of());
        t.instantAt(Timeline.Kind.FAILURE, "rank 1 exit 137", "n2", 5_000_000, Map.of("rank", 1, "exitCode", 137));
        t.instantAt(Timeline.Kind.BLACKLIST, "blacklisted", "n2", 5_100_000, Map.of());
        for (String h : new String[] {"n1", "n3"}) {
            t.span(Timeline.Kind.GENERATION, "generation 2", h, 5_300_000, 10_000_000, Map.of("generation", 2));
        }
        t.instantAt(Timeline.Kind.HANG, "rank 1 stuck", "n3", 9_000_000, Map.of("rank", 1));
        t.instantAt(Timeline.Kind.TEARDOWN, "hang: tearing down", null, 9_000_000, Map.of());
        return t;
    }

    @Test
    void theTraceHasARowPerHostAndCompleteAndInstantEvents() {
        String json = TimelineJson.render(sample());
        assertTrue(json.startsWith("{\"traceEvents\":["), json);
        assertTrue(json.contains("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"host n2\"}}"), json);
        assertTrue(json.contains("{\"name\":\"generation 2\",\"cat\":\"generation\",\"ph\":\"X\",\"ts\":5300000,"
                + "\"dur\":4700000,\"pid\":1,\"tid\":3,\"args\":{\"generation\":2}}"), json);
        assertTrue(json.contains("{\"name\":\"rank 1 exit 137\",\"cat\":\"failure\",\"ph\":\"i\",\"ts\":5000000,"
                + "\"s\":\"t\",\"pid\":1,\"tid\":2,\"args\":{"), json);
        assertTrue(json.contains("\"troika run java Train \\u003cdemo\\u003e\""), "text is escaped: " + json);
    }

    @Test
    void closeWritesTheJsonAndTheHtmlBesideItAndNothingWhenOff() throws Exception {
        Path f = tmp.resolve("job.json");
        Timeline t = Timeline.to(f);
        t.instant(Timeline.Kind.FAILURE, "rank 0 exit 1", "h1", Map.of());
        t.close();
        assertTrue(Files.readString(f).contains("\"rank 0 exit 1\""));
        String html = Files.readString(tmp.resolve("job.html"));
        assertTrue(html.contains("<svg") && html.contains("host h1") && !html.contains("<script")
                && !html.contains("http://") || html.contains("xmlns=\"http://www.w3.org/2000/svg\""), html);
        assertFalse(html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "").contains("http"), "nothing to fetch");
        Timeline off = Timeline.off();
        off.instant(Timeline.Kind.FAILURE, "x", "h", Map.of());
        off.close();
        assertTrue(off.events().isEmpty());
    }

    @Test
    void filesFollowTheOptions() {
        assertEquals(Path.of("t.json"), Timeline.fileFor(Path.of("t.json"), false, null));
        assertEquals(Path.of("out/timeline.json"), Timeline.fileFor(null, true, Path.of("out")));
        assertEquals(null, Timeline.fileFor(null, false, Path.of("out")));
        assertEquals(Path.of("d/run.html"), Timeline.htmlFileFor(Path.of("d/run.json")));
        assertEquals(Path.of("d/run.trace.html"), Timeline.htmlFileFor(Path.of("d/run.trace")));
    }
    /** Issue 22: the user's umask decides the mode (it was forced to 0644), as for any file the user makes. */
    @Test
    void filesGetTheModeTheUsersUmaskGivesNotAFixedOne() throws Exception {
        Path f = tmp.resolve("job.json");
        Timeline.to(f).close();
        Path plain = Files.createFile(tmp.resolve("plain")); // 0666 less the umask, as troika's JVM runs it
        assertEquals(Files.getPosixFilePermissions(plain), Files.getPosixFilePermissions(f));
        assertEquals(Files.getPosixFilePermissions(plain), Files.getPosixFilePermissions(tmp.resolve("job.html")));
    }

    /** A link planted where the timeline goes is replaced, never written through. */
    @Test
    void aPlantedLinkIsReplacedNotFollowed() throws Exception {
        Path victim = Files.writeString(tmp.resolve("victim"), "keep me");
        Path f = tmp.resolve("job.json");
        Files.createSymbolicLink(f, victim);
        Files.createSymbolicLink(tmp.resolve("job.html"), victim);
        Timeline.to(f).close();
        assertEquals("keep me", Files.readString(victim));
        assertFalse(Files.isSymbolicLink(f));
        assertTrue(Files.readString(f).contains("traceEvents"));
    }

    /** A failed write leaves no {@code .timeline-*.tmp} behind, and says so in one line. */
    @Test
    void aFailedWriteLeavesNoTemporaryFile() throws Exception {
        Path f = Files.createDirectories(tmp.resolve("taken.json").resolve("inside")).getParent();
        java.io.UncheckedIOException e = org.junit.jupiter.api.Assertions.assertThrows(
                java.io.UncheckedIOException.class, () -> Timeline.to(f).close());
        assertTrue(e.getMessage().startsWith("cannot write the timeline '"), e.getMessage());
        try (java.util.stream.Stream<Path> left = Files.list(tmp)) {
            assertEquals(java.util.List.of("taken.json"), left.map(p -> p.getFileName().toString()).toList());
        }
    }

    @Test
    void unusableTargetsAreOneUsageErrorBeforeAnythingStarts() throws Exception {
        Path fifo = tmp.resolve("fifo.json");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Files.createDirectories(tmp.resolve("dir.html"));
        java.util.Map<String, String> want = new java.util.LinkedHashMap<>();
        want.put(fifo.toString(), "is a FIFO, not a regular file");
        want.put("/dev/null", "is a character device, not a regular file");
        want.put(tmp.resolve("dir.json").toString(), "dir.html' is a directory, not a regular file");
        want.put(tmp + "/", "is not a file name");
        want.put(tmp.resolve("x".repeat(300) + ".json").toString(), "has 305 bytes; file systems take at most 255");
        want.put(tmp.resolve("missing/t.json").toString(), "does not exist; create it first");
        want.forEach((name, why) -> {
            org.troika.common.UsageException e = org.junit.jupiter.api.Assertions.assertThrows(
                    org.troika.common.UsageException.class, () -> Timeline.checkTarget(name, "--timeline", false),
                    name);
            assertTrue(e.getMessage().startsWith("--timeline '") && e.getMessage().contains(why), e.getMessage());
            assertTrue(e.getMessage().length() < 400, "names are abbreviated: " + e.getMessage());
        });
        assertEquals(tmp.resolve("missing/t.json"), Timeline.checkTarget(tmp.resolve("missing/t.json").toString(),
                "--output-filename", true));
        assertEquals(Path.of("ok.json"), Timeline.checkTarget("ok.json", "--timeline", false));
    }
}
