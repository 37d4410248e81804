package org.troika.launcher.timeline;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * A {@link Timeline} as one self-contained HTML page: inline SVG and CSS, no script and nothing fetched, so it opens
 * offline in any browser (pure).
 *
 * <pre>
 *   title, time axis (seconds)
 *   launcher  [plan][mpirun.................................]   ▮ hang   ▮ teardown
 *   host n1   [service][ generation 1 ][ generation 2 ........]  | commits
 *   host n2   [service][ generation 1 ]▮ failure (rank 1 exit 137) x blacklisted
 *   legend
 * </pre>
 * One row per host (the launcher first), spans as bars (generations as coloured bands, alternating colours),
 * instants as vertical marks across the row (failures red, hangs orange, blacklisting black, host changes green,
 * commits short green ticks); every mark has a tooltip with its details. {@link Layout} gives the geometry, so tests
 * can look at known places of a screenshot.
 */
public final class TimelineHtml {
    /** Colours of generation bands, by generation id (alternating so neighbours differ). */
    public static final List<String> GENERATION_COLORS = List.of("#42a5f5", "#26a69a", "#5c6bc0", "#29b6f6");

    private TimelineHtml() {}

    /** The page's geometry for a timeline (pure). */
    public record Layout(int width, int labelWidth, int top, int rowHeight, int rows, long spanMicros) {
        public static final int WIDTH = 1200;
        public static final int LABEL = 210;
        public static final int RIGHT = 30;
        public static final int TOP = 70;
        public static final int ROW = 34;

        public static Layout of(Timeline t) {
            long end = 1;
            for (Timeline.Event e : t.events()) {
                end = Math.max(end, e.endMicros());
            }
            return new Layout(WIDTH, LABEL, TOP, ROW, TimelineJson.rows(t).size(), end);
        }

        /** x of a time, in page pixels. */
        public double x(long micros) {
            return labelWidth + (double) micros * (width - labelWidth - RIGHT) / spanMicros;
        }

        /** y of the top of row {@code i} (0 = launcher). */
        public int rowTop(int i) {
            return top + i * rowHeight;
        }

        public int height() {
            return top + rows * rowHeight + 70;
        }
    }

    public static String render(Timeline t) {
        Layout l = Layout.of(t);
        List<String> rows = TimelineJson.rows(t);
        List<Timeline.Event> events = t.events();
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">%n", l.width(), l.height()));
        svg.append(String.format(Locale.ROOT, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>%n",
                l.width(), l.height()));
        svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"22\" font-size=\"16\" font-weight=\"bold\">%s"
                + "</text>%n", esc(t.title().length() > 120 ? t.title().substring(0, 117) + "..." : t.title())));
        axis(svg, l);
        for (int i = 0; i < rows.size(); i++) {
            svg.append(String.format(Locale.ROOT, "<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n",
                    l.rowTop(i), l.width(), l.rowHeight(), i % 2 == 0 ? "#f5f5f5" : "#ebebeb"));
            svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"%d\">%s</text>%n",
                    l.rowTop(i) + l.rowHeight() / 2 + 4, esc(rows.get(i))));
        }
        // generation bands first, other spans over their lower half, then instants on top; failures last
        for (Timeline.Event e : events) {
            if (!e.instant() && e.kind() == Timeline.Kind.GENERATION) {
                span(svg, l, rows, e);
            }
        }
        for (Timeline.Event e : events) {
            if (!e.instant() && e.kind() != Timeline.Kind.GENERATION) {
                span(svg, l, rows, e);
            }
        }
        for (Timeline.Kind k : List.of(Timeline.Kind.COMMIT, Timeline.Kind.HOST, Timeline.Kind.TEARDOWN,
                Timeline.Kind.BLACKLIST, Timeline.Kind.HANG, Timeline.Kind.FAILURE, Timeline.Kind.PLAN,
                Timeline.Kind.SERVICE, Timeline.Kind.MPIRUN, Timeline.Kind.GENERATION)) {
            for (Timeline.Event e : events) {
                if (e.instant() && e.kind() == k) {
                    mark(svg, l, rows, e);
                }
            }
        }
        legend(svg, l);
        svg.append("</svg>\n");
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + esc(t.title())
                + " - troika timeline</title>\n<style>body{margin:0;background:#fff}</style></head>\n<body>\n" + svg
                + "</body></html>\n";
    }

    private static void axis(StringBuilder svg, Layout l) {
        double seconds = l.spanMicros() / 1e6;
        double step = 1e-3;
        for (double s : new double[] {0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60,
                120, 300, 600, 1800, 3600, 7200, 21600, 43200, 86400}) {
            step = s;
            if (seconds / s <= 12) {
                break;
            }
        }
        int y = l.top() - 8;
        for (int i = 0; i * step <= seconds + 1e-9; i++) {
            double x = l.x((long) (i * step * 1e6));
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#bdbdbd\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" fill=\"#616161\" text-anchor=\"middle\">%s s</text>%n", x, y, x,
                    l.top() + l.rows() * l.rowHeight(), x, y - 4, trim(i * step)));
        }
    }

    private static String trim(double v) {
        String s = String.format(Locale.ROOT, "%.3f", v);
        return s.replaceAll("\\.?0+$", "");
    }

    private static void span(StringBuilder svg, Layout l, List<String> rows, Timeline.Event e) {
        int row = TimelineJson.tid(rows, e.host());
        double x0 = l.x(e.startMicros());
        double w = Math.max(2, l.x(e.endMicros()) - x0);
        boolean band = e.kind() == Timeline.Kind.GENERATION;
        String color = band ? generationColor(e) : e.kind().color();
        // a generation is a band over the whole row, its name in the upper half; other spans fill the lower half
        int y = l.rowTop(row) + (band ? 3 : l.rowHeight() / 2 + 1);
        int h = band ? l.rowHeight() - 6 : l.rowHeight() / 2 - 5;
        svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
                + "rx=\"3\"><title>%s</title></rect>%n", x0, y, w, h, color, esc(tooltip(e))));
        if (w > 7 * e.name().length() + 8) {
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" fill=\"#ffffff\" font-size=\"11\">%s"
                    + "</text>%n", x0 + 4, band ? y + 11 : y + h - 2, esc(e.name())));
        }
    }

    private static void mark(StringBuilder svg, Layout l, List<String> rows, Timeline.Event e) {
        int row = TimelineJson.tid(rows, e.host());
        double x = l.x(e.startMicros());
        int top = l.rowTop(row);
        if (e.kind() == Timeline.Kind.COMMIT) {
            svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"2\" height=\"%d\" fill=\"%s\">"
                    + "<title>%s</title></rect>%n", x - 1, top + l.rowHeight() / 2, l.rowHeight() / 2 - 2,
                    e.kind().color(), esc(tooltip(e))));
            return;
        }
        int w = e.kind() == Timeline.Kind.FAILURE || e.kind() == Timeline.Kind.HANG ? 6 : 4;
        svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\">"
                + "<title>%s</title></rect>%n", x - w / 2.0, top + 1, w, l.rowHeight() - 2, e.kind().color(),
                esc(tooltip(e))));
    }

    private static void legend(StringBuilder svg, Layout l) {
        int y = l.top() + l.rows() * l.rowHeight() + 25;
        int x = 10;
        for (Timeline.Kind k : Timeline.Kind.values()) {
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"%d\">%s</text>%n", x, y - 10, k.color(), x + 16, y, esc(k.label())));
            x += 30 + 7 * k.label().length();
        }
    }

    /** The band colour of a generation span (by its {@code generation} argument). */
    public static String generationColor(Timeline.Event e) {
        Object g = e.args().get("generation");
        int id = g instanceof Number n ? n.intValue() : 1;
        return GENERATION_COLORS.get(Math.floorMod(id - 1, GENERATION_COLORS.size()));
    }

    private static String tooltip(Timeline.Event e) {
        String when = String.format(Locale.ROOT, "%.3f s", e.startMicros() / 1e6)
                + (e.instant() ? "" : String.format(Locale.ROOT, " + %.3f s", e.durationMicros() / 1e6));
        String args = e.args().entrySet().stream().map(a -> a.getKey() + "=" + a.getValue())
                .collect(Collectors.joining(", "));
        return e.kind().label() + ": " + e.name() + " (" + when + ")" + (args.isEmpty() ? "" : "\n" + args);
    }

    static String esc(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&#39;");
                default -> sb.append(c < 0x20 && c != '\n' ? ' ' : c);
            }
        }
        return sb.toString();
    }
}
