package org.troika.launcher.timeline;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.troika.launcher.elastic.ElasticListener;
import org.troika.launcher.elastic.Generation;
import org.troika.launcher.elastic.GenerationResult;
import org.troika.launcher.elastic.HostManager;
import org.troika.launcher.elastic.HostUpdate;
import org.troika.launcher.elastic.RankExit;
import org.troika.launcher.elastic.World;
import org.troika.launcher.elastic.WorldChange;
import org.troika.launcher.spi.HostSlots;

/**
 * Records the elastic driver's events on a {@link Timeline} and passes each on to another listener (the printing
 * one): a generation is a band on every host of it (and on the launcher's row, with its world size), failed ranks
 * are failure marks on their hosts, discovery's additions and removals and blacklistings are marks on the host rows.
 */
public final class TimelineElasticListener implements ElasticListener {
    private final ElasticListener next;
    private final Timeline timeline;
    private final Map<String, Timeline.Span> open = new HashMap<>();
    private Set<String> known;

    public TimelineElasticListener(ElasticListener next, Timeline timeline) {
        this.next = Objects.requireNonNull(next, "next");
        this.timeline = Objects.requireNonNull(timeline, "timeline");
    }

    @Override
    public void waitingForSlots(int available, int required, int hosts, Duration waited, Duration timeout) {
        next.waitingForSlots(available, required, hosts, waited, timeout);
    }

    @Override
    public void discoveryFailed(String message) {
        next.discoveryFailed(message);
        timeline.instant(Timeline.Kind.HOST, "discovery failed", null, Map.of("message", message));
    }

    @Override
    public void hostsChanged(HostUpdate update, List<HostSlots> hosts) {
        next.hostsChanged(update, hosts);
        Set<String> now = new LinkedHashSet<>();
        hosts.forEach(h -> now.add(h.name()));
        if (known != null) {
            for (String h : now) {
                if (!known.contains(h)) {
                    timeline.instant(Timeline.Kind.HOST, "added", h, Map.of("hosts", now.size()));
                }
            }
            for (String h : known) {
                if (!now.contains(h)) {
                    timeline.instant(Timeline.Kind.HOST, "removed", h, Map.of("hosts", now.size()));
                }
            }
        } else {
            now.forEach(timeline::host);
        }
        known = now;
    }

    @Override
    public void standbyChanged(List<String> standby) {
        next.standbyChanged(standby);
    }

    @Override
    public void hostBlacklisted(HostManager.Blacklisting blacklisting, Duration cooldown) {
        next.hostBlacklisted(blacklisting, cooldown);
        timeline.instant(Timeline.Kind.BLACKLIST, "blacklisted", blacklisting.host(), Map.of("cooldownSeconds",
                blacklisting.permanent() ? "permanent" : cooldown.toSeconds()));
    }

    @Override
    public void generationStarted(Generation g) {
        next.generationStarted(g);
        Map<String, Object> args = new LinkedHashMap<>();
        args.put("generation", g.id());
        args.put("reason", g.reason().name().toLowerCase());
        args.put("worldSize", g.size());
        args.put("hosts", g.plan().hostList());
        for (HostSlots h : g.plan().hosts()) {
            Map<String, Object> a = new LinkedHashMap<>(args);
            a.put("slots", h.slots());
            open.put(h.name(), timeline.begin(Timeline.Kind.GENERATION, "generation " + g.id() + " (" + g.size()
                    + " ranks)", h.name(), a));
        }
    }

    /** A change in place: the generation's span ends on hosts whose ranks all left (issue 25). */
    @Override
    public void worldChanging(Generation g, World before, WorldChange change) {
        next.worldChanging(g, before, change);
        timeline.instant(Timeline.Kind.HOST, "world changes in place", null, Map.of("generation", g.id(),
                "change", change.describe(before), "worldSize", change.target().size()));
        for (String h : before.hostNames()) {
            Timeline.Span s = change.target().hostNames().contains(h) ? null : open.remove(h);
            if (s != null) {
                s.end(Map.of("outcome", "left in place"));
            }
        }
    }

    @Override
    public void generationEnded(Generation g, GenerationResult result) {
        next.generationEnded(g, result);
        String outcome = result.anySuccess() ? "done" : result.allHostsUpdated() ? "hosts updated"
                : result.launchError() != null ? "launch failed" : "failed";
        open.values().forEach(s -> s.end(Map.of("outcome", outcome)));
        open.clear();
        if (result.launchError() != null) {
            timeline.instant(Timeline.Kind.FAILURE, "launch failed", null, Map.of("generation", g.id(), "error",
                    result.launchError()));
        }
        for (RankExit f : result.failures()) {
            timeline.instant(Timeline.Kind.FAILURE, "rank " + f.rank() + " exit " + f.exitCode(), f.host(),
                    Map.of("rank", f.rank(), "exitCode", f.exitCode(), "generation", g.id()));
        }
    }
}
