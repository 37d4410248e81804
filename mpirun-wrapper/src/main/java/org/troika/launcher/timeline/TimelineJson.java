package org.troika.launcher.timeline;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.troika.common.Json;

/**
 * A {@link Timeline} as Chrome trace-event JSON (the "JSON Object Format": {@code {"traceEvents":[...]}}), which
 * Perfetto (ui.perfetto.dev) and chrome://tracing open (pure).
 *
 * <ul>
 *   <li>one process ({@code pid 1}, named after the job); one thread per row: {@code tid 0} is the launcher, then
 *       one per host in the order hosts appeared ({@code M} events {@code thread_name} and
 *       {@code thread_sort_index});</li>
 *   <li>spans are complete events ({@code "ph":"X"}, {@code ts} and {@code dur} in microseconds since the job
 *       started), instants are thread-scoped instant events ({@code "ph":"i","s":"t"});</li>
 *   <li>{@code cat} is the event kind ({@code generation}, {@code failure}, ...), {@code args} its details;</li>
 *   <li>{@code otherData.startEpochMillis} anchors the trace in wall-clock time.</li>
 * </ul>
 */
public final class TimelineJson {
    private TimelineJson() {}

    public static String render(Timeline t) {
        List<String> rows = rows(t);
        List<Object> out = new ArrayList<>();
        out.add(meta("process_name", 0, Map.of("name", t.title())));
        for (int i = 0; i < rows.size(); i++) {
            out.add(meta("thread_name", i, Map.of("name", rows.get(i))));
            out.add(meta("thread_sort_index", i, Map.of("sort_index", i)));
        }
        for (Timeline.Event e : t.events()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", e.name());
            m.put("cat", e.kind().label());
            m.put("ph", e.instant() ? "i" : "X");
            m.put("ts", e.startMicros());
            if (e.instant()) {
                m.put("s", "t");
            } else {
                m.put("dur", e.durationMicros());
            }
            m.put("pid", 1);
            m.put("tid", tid(rows, e.host()));
            m.put("args", e.args());
            out.add(m);
        }
        Map<String, Object> top = new LinkedHashMap<>();
        top.put("traceEvents", out);
        top.put("displayTimeUnit", "ms");
        top.put("otherData", Map.of("startEpochMillis", t.startEpochMillis(), "producer", "troika"));
        return Json.write(top);
    }

    /** Row names: {@code launcher}, then {@code host NAME} per host. */
    static List<String> rows(Timeline t) {
        List<String> rows = new ArrayList<>();
        rows.add("launcher");
        t.hosts().forEach(h -> rows.add("host " + h));
        return rows;
    }

    static int tid(List<String> rows, String host) {
        return host == null ? 0 : rows.indexOf("host " + host);
    }

    private static Map<String, Object> meta(String name, int tid, Map<String, Object> args) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("ph", "M");
        m.put("pid", 1);
        m.put("tid", tid);
        m.put("args", args);
        return m;
    }
}
