package org.troika.launcher.elastic;

import java.time.Duration;
import java.util.Objects;
import org.troika.launcher.spi.RunSettings;

/**
 * The numbers that bound an elastic job, with the defaults applied. The settings' {@link RunSettings.Elastic} checked
 * them; this is their resolved form.
 *
 * @param minNp fewest ranks a generation may have; the driver waits for this many slots
 * @param maxNp most ranks a generation may have, or {@code null} = every usable slot
 * @param elasticTimeout how long to wait for {@code minNp} slots before failing
 * @param resetLimit how many generations may follow the first, or {@code null} = unlimited
 * @param discoveryInterval the pause between two discovery runs
 * @param cooldown blacklist cooldown range, or {@code null} = permanent blacklist
 */
public record ElasticLimits(int minNp, Integer maxNp, Duration elasticTimeout, Integer resetLimit,
        DiscoveryInterval discoveryInterval, RunSettings.Cooldown cooldown) {

    public ElasticLimits {
        Objects.requireNonNull(elasticTimeout, "elasticTimeout");
        Objects.requireNonNull(discoveryInterval, "discoveryInterval");
    }

    /**
     * The limits of {@code settings}: {@code --min-np} defaults to {@code -np}, else 1; the discovery interval is
     * {@code --discovery-interval}, else adaptive for a discovery script and {@link DiscoveryInterval#FIXED_LIST} for
     * a fixed host list.
     */
    public static ElasticLimits from(RunSettings s) {
        RunSettings.Elastic e = s.elastic();
        int min = e.minNp() != null ? e.minNp() : s.hosts().np() != null ? s.hosts().np() : 1;
        DiscoveryInterval interval = e.discoveryInterval() != null ? DiscoveryInterval.fixed(e.discoveryInterval())
                : e.discoveryScript() != null ? DiscoveryInterval.adaptive()
                : DiscoveryInterval.fixed(DiscoveryInterval.FIXED_LIST);
        return new ElasticLimits(min, e.maxNp(), e.timeoutOrDefault(), e.resetLimit(), interval, e.cooldown());
    }

    /** World size for {@code availableSlots}: all of them up to {@code maxNp}; 0 if fewer than {@code minNp}. */
    public int worldSize(int availableSlots) {
        if (availableSlots < minNp) {
            return 0;
        }
        return maxNp == null ? availableSlots : Math.min(availableSlots, maxNp);
    }
}
