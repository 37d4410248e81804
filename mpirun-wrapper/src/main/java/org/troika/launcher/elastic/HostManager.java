package org.troika.launcher.elastic;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.DoubleSupplier;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.RunSettings;

/**
 * The usable hosts of an elastic job, in order, and the blacklist.
 *
 * <p>Order: hosts that stay keep their place; hosts that appear (or come back from the blacklist) are appended
 * in discovery order. So the oldest surviving host comes first and gets rank 0.
 *
 * <p>Blacklist: a failed host leaves the usable set at once. With a cooldown range [L, U] its k-th blacklisting
 * lasts {@code clamp(L·2^k + u·L, L, U)} with {@code u} uniform in [0, 1) from the injected random source; once
 * that has passed, the next {@link #update} takes it back (reported as {@link HostUpdate#ADDED}) if discovery
 * still lists it. Without a range the blacklist is permanent. Blacklisting a host that is still cooling down
 * changes nothing.
 *
 * <p>Not thread-safe: the driver's loop thread owns it.
 */
public final class HostManager {
    /** Longest exponent used in the cooldown formula; the upper bound clamps long before. */
    private static final int MAX_EXPONENT = 30;

    private final Clock clock;
    private final RunSettings.Cooldown cooldown;
    private final DoubleSupplier random;
    private Map<String, HostSlots> usable = new LinkedHashMap<>();
    private final Map<String, Blacklisting> blacklist = new HashMap<>();

    /** One host's blacklist record: how often it was blacklisted and until when (monotonic millis). */
    public record Blacklisting(String host, int count, long untilMillis) {
        /** Whether this is a permanent blacklisting (no cooldown range). */
        public boolean permanent() {
            return untilMillis == Long.MAX_VALUE;
        }
    }

    /**
     * @param cooldown the cooldown range, or {@code null} for a permanent blacklist
     * @param random uniform values in [0, 1) for the cooldown jitter
     */
    public HostManager(Clock clock, RunSettings.Cooldown cooldown, DoubleSupplier random) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.cooldown = cooldown;
        this.random = Objects.requireNonNull(random, "random");
    }

    /**
     * Takes a fresh discovery result: drops hosts that vanished, appends new and resurrected ones, updates slot
     * counts, and says what changed.
     */
    public HostUpdate update(List<HostSlots> discovered) {
        long now = clock.millis();
        Map<String, HostSlots> found = new LinkedHashMap<>();
        for (HostSlots h : discovered) {
            if (!isBlacklisted(h.name(), now)) {
                found.putIfAbsent(h.name(), h);
            }
        }
        Map<String, HostSlots> next = new LinkedHashMap<>();
        for (String name : usable.keySet()) {
            if (found.containsKey(name)) {
                next.put(name, found.get(name));
            }
        }
        found.forEach(next::putIfAbsent);
        boolean added = false;
        boolean removed = false;
        for (HostSlots h : next.values()) {
            HostSlots before = usable.get(h.name());
            added |= before == null || h.slots() > before.slots();
            removed |= before != null && h.slots() < before.slots();
        }
        for (String name : usable.keySet()) {
            removed |= !next.containsKey(name);
        }
        usable = next;
        return HostUpdate.of(added, removed);
    }

    /** The usable hosts, oldest first. */
    public List<HostSlots> current() {
        return new ArrayList<>(usable.values());
    }

    /** Total slots of the usable hosts. */
    public int availableSlots() {
        return usable.values().stream().mapToInt(HostSlots::slots).sum();
    }

    /**
     * Blacklists a failed host and removes it from the usable set.
     *
     * @return the new record, or empty if the host was already blacklisted and still cooling down
     */
    public Optional<Blacklisting> blacklist(String host) {
        long now = clock.millis();
        if (isBlacklisted(host, now)) {
            return Optional.empty();
        }
        Blacklisting old = blacklist.get(host);
        int count = old == null ? 1 : old.count() + 1;
        long until = cooldown == null ? Long.MAX_VALUE : now + cooldownMillis(count);
        Blacklisting b = new Blacklisting(host, count, until);
        blacklist.put(host, b);
        usable.remove(host);
        return Optional.of(b);
    }

    /** Whether {@code host} is blacklisted now. */
    public boolean isBlacklisted(String host) {
        return isBlacklisted(host, clock.millis());
    }

    private boolean isBlacklisted(String host, long now) {
        Blacklisting b = blacklist.get(host);
        return b != null && now < b.untilMillis();
    }

    /** {@code clamp(L·2^k + u·L, L, U)} in millis. */
    private long cooldownMillis(int k) {
        double lower = cooldown.min().toMillis();
        double upper = cooldown.max().toMillis();
        double raw = lower * Math.pow(2, Math.min(k, MAX_EXPONENT)) + random.getAsDouble() * lower;
        return (long) Math.max(lower, Math.min(upper, raw));
    }
}
