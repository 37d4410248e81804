package org.troika.launcher.timeline;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.troika.rsh.driver.DriverService;
import org.troika.rsh.driver.HostsNotReadyException;

/**
 * Waits for the task services like {@link DriverService#awaitHosts} and records on the timeline, per host, the span
 * from its remote shell's start to its service's registration (to within {@value #SLICE_MILLIS} ms), and a failure
 * mark for each host that did not come up. Without a timeline it is exactly {@code awaitHosts}.
 */
public final class ServiceStarts {
    static final int SLICE_MILLIS = 20;

    private ServiceStarts() {}

    /**
     * @param startMicros per host, when its remote shell was started ({@link Timeline#nowMicros()})
     */
    public static void await(DriverService driver, List<String> hosts, Duration timeout, Timeline timeline,
            Map<String, Long> startMicros) throws HostsNotReadyException, InterruptedException {
        if (!timeline.enabled()) {
            driver.awaitHosts(timeout);
            return;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        Set<String> up = new HashSet<>();
        while (true) {
            try {
                driver.awaitHosts(Duration.ofMillis(SLICE_MILLIS));
                record(hosts, List.of(), up, timeline, startMicros);
                return;
            } catch (HostsNotReadyException e) {
                record(hosts, e.missing(), up, timeline, startMicros);
                if (System.nanoTime() >= deadline) {
                    for (String h : e.missing()) {
                        timeline.instant(Timeline.Kind.FAILURE, "task service did not start", h,
                                Map.of("timeoutSeconds", timeout.toSeconds()));
                    }
                    throw new HostsNotReadyException(e.missing(), timeout);
                }
            }
        }
    }

    private static void record(List<String> hosts, List<String> missing, Set<String> up, Timeline timeline,
            Map<String, Long> startMicros) {
        long now = timeline.nowMicros();
        for (String h : hosts) {
            if (!missing.contains(h) && up.add(h)) {
                timeline.span(Timeline.Kind.SERVICE, "task service", h, startMicros.getOrDefault(h, now), now,
                        Map.of());
            }
        }
    }
}
