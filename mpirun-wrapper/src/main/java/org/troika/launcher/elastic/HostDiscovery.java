package org.troika.launcher.elastic;

import java.time.Duration;
import java.util.List;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostSlots;

/**
 * Where an elastic job learns which hosts it may use. Called by the driver's single loop thread, once per
 * discovery interval; an implementation need not be thread-safe.
 */
public interface HostDiscovery {
    /** Bound on one call of a discovery script. */
    Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(10);


    /**
     * One discovery's answer: the hosts with slots (as {@link #discover}), and the <em>standby</em> hosts, those the
     * source lists with 0 slots (a discovery script's {@code host:0}): known to the job, no ranks, their task services
     * kept ready (started and registered) so that a host that later gets slots joins without waiting for its service,
     * and a host whose slots go to 0 keeps it.
     *
     * @param hosts the hosts with slots, each once, in the source's order
     * @param standby the standby hosts, each once, in the source's order, none of them in {@code hosts}
     */
    record Found(List<HostSlots> hosts, List<String> standby) {
        public Found {
            hosts = List.copyOf(hosts);
            standby = List.copyOf(standby);
        }
    }

    /**
     * The hosts available now, each once, in the order the source lists them, and the standby ones ({@link Found}).
     * An empty answer is valid ("no hosts yet").
     *
     * @throws HostDiscoveryException when the source failed; the message is meant for the user
     */
    Found discoverAll() throws HostDiscoveryException;

    /**
     * The hosts available now ({@link #discoverAll}'s hosts with slots).
     *
     * @throws HostDiscoveryException when the source failed; the message is meant for the user
     */
    default List<HostSlots> discover() throws HostDiscoveryException {
        return discoverAll().hosts();
    }

    /**
     * The discovery of an elastic {@code settings}: its script if one is given, else its fixed host list
     * ({@code -H} / hostfile: fault tolerance without scaling).
     *
     * @throws UsageException when neither is given, or the fixed list has fewer than two hosts
     */
    static HostDiscovery forSettings(RunSettings settings, CommandRunner runner) {
        if (settings.elastic().discoveryScript() != null) {
            return new ScriptHostDiscovery(settings.elastic().discoveryScript(), settings.elastic().slotsPerHost(),
                    runner,
                    DEFAULT_CALL_TIMEOUT);
        }
        return new FixedHostDiscovery(settings.hosts().list());
    }
}
