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
}
