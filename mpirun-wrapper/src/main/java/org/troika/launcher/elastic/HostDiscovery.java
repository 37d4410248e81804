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
     * The hosts available now, each once, in the order the source lists them. An empty list is valid ("no hosts
     * yet").
     *
     * @throws HostDiscoveryException when the source failed; the message is meant for the user
     */
    List<HostSlots> discover() throws HostDiscoveryException;

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
