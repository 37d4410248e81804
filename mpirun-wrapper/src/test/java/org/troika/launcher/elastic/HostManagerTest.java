package org.troika.launcher.elastic;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostSlots;

class HostManagerTest {
    private final FakeClock clock = new FakeClock();

    private static List<HostSlots> hosts(String spec) {
        return ScriptedDiscovery.parse(spec).hosts();
    }

    private static String names(HostManager m) {
        return String.join(",", m.current().stream().map(HostSlots::toString).toList());
    }

    private HostManager withCooldown(int minSeconds, int maxSeconds, double jitter) {
        return new HostManager(clock, new RunSettings.Cooldown(Duration.ofSeconds(minSeconds),
                Duration.ofSeconds(maxSeconds)), () -> jitter);
    }

    @Test
    void updateFlagsFollowHostsAndSlotCounts() {
        HostManager m = new HostManager(clock, null, () -> 0);
        assertAll(
                () -> assertEquals(HostUpdate.ADDED, m.update(hosts("a:2,b:2"))),
                () -> assertEquals(HostUpdate.NONE, m.update(hosts("b:2,a:2"))),
                () -> assertEquals(HostUpdate.ADDED, m.update(hosts("a:3,b:2"))),
                () -> assertEquals(HostUpdate.REMOVED, m.update(hosts("a:1,b:2"))),
                () -> assertEquals(HostUpdate.REMOVED, m.update(hosts("b:2"))),
                () -> assertEquals(HostUpdate.MIXED, m.update(hosts("c:1"))),
                () -> assertEquals(HostUpdate.MIXED, m.update(hosts("d:2"))),
                () -> assertEquals(HostUpdate.REMOVED, m.update(hosts(""))),
                () -> assertEquals(HostUpdate.NONE, m.update(hosts(""))));
    }

    @Test
    void survivorsKeepTheirPlaceAndNewHostsAreAppendedInDiscoveryOrder() {
        HostManager m = new HostManager(clock, null, () -> 0);
        m.update(hosts("b:1,a:1,c:1"));
        m.update(hosts("e:1,c:1,d:1,b:1"));
        assertEquals("b:1,c:1,e:1,d:1", names(m));
        assertEquals(4, m.availableSlots());
    }

    @Test
    void cooldownGrowsExponentiallyWithJitterAndIsClamped() {
        HostManager m = withCooldown(10, 100, 0.5);
        m.update(hosts("a:1"));
        long t0 = clock.millis();
        // k-th blacklisting lasts clamp(10·2^k + 0.5·10, 10, 100) s: 25, 45, 85, 100
        long[] expected = {25_000, 45_000, 85_000, 100_000};
        for (long want : expected) {
            long now = clock.millis();
            HostManager.Blacklisting b = m.blacklist("a").orElseThrow();
            assertEquals(want, b.untilMillis() - now, "blacklisting #" + b.count());
            clock.advance(Duration.ofMillis(want));
        }
        assertTrue(clock.millis() > t0);
    }

    @Test
    void cooldownNeverGoesBelowTheLowerBound() {
        HostManager m = withCooldown(30, 30, 0.0);
        HostManager.Blacklisting b = m.blacklist("a").orElseThrow();
        assertEquals(30_000, b.untilMillis() - clock.millis());
    }

    @Test
    void blacklistingAHostStillCoolingDownChangesNothing() {
        HostManager m = withCooldown(10, 100, 0.0);
        HostManager.Blacklisting first = m.blacklist("a").orElseThrow();
        clock.advance(Duration.ofSeconds(5));
        assertTrue(m.blacklist("a").isEmpty());
        clock.advance(Duration.ofMillis(first.untilMillis() - clock.millis()));
        assertEquals(2, m.blacklist("a").orElseThrow().count());
    }

    @Test
    void resurrectedHostComesBackAsAddedAtTheEnd() {
        HostManager m = withCooldown(10, 100, 0.0);
        m.update(hosts("a:1,b:1,c:1"));
        m.blacklist("a");
        assertEquals("b:1,c:1", names(m));
        assertTrue(m.isBlacklisted("a"));
        assertEquals(HostUpdate.NONE, m.update(hosts("a:1,b:1,c:1")), "a is still cooling down");
        clock.advance(Duration.ofSeconds(20));
        assertFalse(m.isBlacklisted("a"));
        assertEquals(HostUpdate.ADDED, m.update(hosts("a:1,b:1,c:1")));
        assertEquals("b:1,c:1,a:1", names(m));
    }

    @Test
    void withoutACooldownRangeTheBlacklistIsPermanent() {
        HostManager m = new HostManager(clock, null, () -> 0);
        m.update(hosts("a:1,b:1"));
        assertTrue(m.blacklist("a").orElseThrow().permanent());
        clock.advance(Duration.ofDays(365));
        assertEquals(HostUpdate.NONE, m.update(hosts("a:1,b:1")));
        assertEquals("b:1", names(m));
    }
}
