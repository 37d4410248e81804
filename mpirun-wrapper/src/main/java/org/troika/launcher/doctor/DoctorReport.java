package org.troika.launcher.doctor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.troika.common.Json;

/**
 * What {@code troika doctor} found: the checks in the order they ran, and how long it took (pure rendering).
 */
public record DoctorReport(List<Check> checks, Duration took) {
    /** Exit code when some check failed. */
    public static final int EXIT_FAILED = 1;

    public DoctorReport {
        checks = List.copyOf(checks);
    }

    /** Whether everything a run needs works (no check failed; warnings and skips do not count). */
    public boolean ok() {
        return checks.stream().noneMatch(c -> c.verdict() == Check.Verdict.FAIL);
    }

    public int exitCode() {
        return ok() ? 0 : EXIT_FAILED;
    }

    /** One line per check ({@code [ OK ] name (host): detail}, the fix indented below), then a summary line. */
    public String text() {
        StringBuilder sb = new StringBuilder();
        for (Check c : checks) {
            sb.append(String.format("[%-4s] %s%s: %s%n", c.verdict().name(), c.name(),
                    c.host() == null ? "" : " (" + c.host() + ")", c.detail()));
            if (c.fix() != null) {
                sb.append("       fix: ").append(c.fix()).append('\n');
            }
        }
        long failed = checks.stream().filter(c -> c.verdict() == Check.Verdict.FAIL).count();
        long warned = checks.stream().filter(c -> c.verdict() == Check.Verdict.WARN).count();
        sb.append(ok() ? "troika doctor: ready to run" : "troika doctor: " + failed + " problem(s) stop a run")
                .append(warned > 0 ? ", " + warned + " warning(s)" : "")
                .append(String.format(Locale.ROOT, " (%.1f s)%n", took.toMillis() / 1000.0));
        return sb.toString();
    }

    /** {@code {"ok":..,"seconds":..,"checks":[{"name","host","verdict","detail","fix"},...]}}. */
    public String json() {
        List<Object> list = new ArrayList<>();
        for (Check c : checks) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", c.name());
            m.put("host", c.host());
            m.put("verdict", c.verdict().name().toLowerCase(Locale.ROOT));
            m.put("detail", c.detail());
            m.put("fix", c.fix());
            list.add(m);
        }
        Map<String, Object> top = new LinkedHashMap<>();
        top.put("ok", ok());
        top.put("seconds", took.toMillis() / 1000.0);
        top.put("checks", list);
        return Json.write(top);
    }
}
