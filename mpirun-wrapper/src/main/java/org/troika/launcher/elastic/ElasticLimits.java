package org.troika.launcher.elastic;

import java.time.Duration;
import java.util.Objects;
import org.troika.common.UsageException;
import org.troika.launcher.spi.RunSettings;

/**
 * The numbers that bound an elastic job, validated once.
 *
 * @param minNp fewest ranks a generation may have; the driver waits for this many slots
 * @param maxNp most ranks a generation may have, or {@code null} = every usable slot
 * @param elasticTimeout how long to wait for {@code minNp} slots before failing
 * @param resetLimit how many generations may follow the first, or {@code null} = unlimited
 * @param discoveryInterval the pause between two discovery runs
 * @param cooldown blacklist cooldown range, or {@code null} = permanent blacklist
 */
public record ElasticLimits(int minNp, Integer maxNp, Duration elasticTimeout, Integer resetLimit,
        DiscoveryInterval discoveryInterval, HostManager.Cooldown cooldown) {

    public ElasticLimits {
        Objects.requireNonNull(elasticTimeout, "elasticTimeout");
        Objects.requireNonNull(discoveryInterval, "discoveryInterval");
        if (minNp < 1) {
            throw new UsageException("--min-np must be at least 1, got " + minNp);
        }
        if (maxNp != null && maxNp < minNp) {
            throw new UsageException("--max-np " + maxNp + " is below --min-np " + minNp + "; raise --max-np");
        }
        if (resetLimit != null && resetLimit < 0) {
            throw new UsageException("--reset-limit must be 0 or more, got " + resetLimit);
        }
        if (elasticTimeout.isNegative()) {
            throw new UsageException("--elastic-timeout must not be negative");
        }
    }

    /**
     * The limits of {@code settings}: {@code --min-np} defaults to {@code -np}, else 1; a cooldown needs both
     * bounds; the discovery interval is {@code --discovery-interval}, else adaptive for a discovery script and
     * {@link DiscoveryInterval#FIXED_LIST} for a fixed host list.
     */
    public static ElasticLimits from(RunSettings s) {
        int min = s.minNp() != null ? s.minNp() : s.np() != null ? s.np() : 1;
        if ((s.cooldownMin() == null) != (s.cooldownMax() == null)) {
            throw new UsageException("--blacklist-cooldown-range needs both MIN and MAX seconds");
        }
        HostManager.Cooldown cooldown = s.cooldownMin() == null ? null
                : new HostManager.Cooldown(s.cooldownMin(), s.cooldownMax());
        DiscoveryInterval interval = s.discoveryInterval() != null ? DiscoveryInterval.fixed(s.discoveryInterval())
                : s.hostDiscoveryScript() != null ? DiscoveryInterval.adaptive()
                : DiscoveryInterval.fixed(DiscoveryInterval.FIXED_LIST);
        return new ElasticLimits(min, s.maxNp(), s.elasticTimeout(), s.resetLimit(), interval, cooldown);
    }

    /** World size for {@code availableSlots}: all of them up to {@code maxNp}; 0 if fewer than {@code minNp}. */
    public int worldSize(int availableSlots) {
        if (availableSlots < minNp) {
            return 0;
        }
        return maxNp == null ? availableSlots : Math.min(availableSlots, maxNp);
    }
}
