package org.troika.launcher.watchdog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.launcher.options.RunOptionTable.HANG_TIMEOUT;
import static org.troika.launcher.options.RunOptionTable.HANG_WARNING;
import static org.troika.launcher.options.RunOptionTable.MIN_NP;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;
import org.troika.launcher.spi.RunSettings;

class HangSettingsTests {
    private static final RunSettings STATIC = RunSettings.of(List.of("x"));
    private static final RunSettings ELASTIC = STATIC.with(MIN_NP, 2);

    @Test
    void offForStaticJobsOnForElasticOnesAndTheFlagBeatsTheEnvironment() {
        assertNull(HangWatch.timeout(STATIC, Map.of()));
        assertEquals(HangWatch.ELASTIC_DEFAULT, HangWatch.timeout(ELASTIC, Map.of()));
        assertEquals(Duration.ofSeconds(90), HangWatch.timeout(STATIC, Map.of("TROIKA_HANG_TIMEOUT", "90")));
        assertNull(HangWatch.timeout(ELASTIC, Map.of("TROIKA_HANG_TIMEOUT", "0")), "0 turns it off");
        RunSettings flag = STATIC.with(HANG_TIMEOUT, Duration.ofSeconds(20));
        assertEquals(Duration.ofSeconds(20), HangWatch.timeout(flag, Map.of("TROIKA_HANG_TIMEOUT", "90")));
        assertNull(HangWatch.timeout(ELASTIC.with(HANG_TIMEOUT, Duration.ZERO), Map.of()));
        assertThrows(UsageException.class, () -> HangWatch.timeout(STATIC, Map.of("TROIKA_HANG_TIMEOUT", "10s")));
    }

    @Test
    void warningsOnlyForLongTimeoutsUnlessAsked() {
        assertEquals(Duration.ofSeconds(60), HangWatch.warning(ELASTIC, Duration.ofSeconds(300)));
        assertNull(HangWatch.warning(STATIC, Duration.ofSeconds(30)));
        RunSettings w = STATIC.with(HANG_WARNING, Duration.ofSeconds(10));
        assertEquals(Duration.ofSeconds(10), HangWatch.warning(w, Duration.ofSeconds(30)));
        assertNull(HangWatch.warning(w, Duration.ofSeconds(10)), "not at or above the timeout");
    }

    @Test
    void ranksReportAFifthOfTheTimeoutBetweenAFifthOfASecondAndTwoSeconds() {
        assertEquals(Duration.ofMillis(200), HangWatch.interval(Duration.ofSeconds(1), 4));
        assertEquals(Duration.ofMillis(1000), HangWatch.interval(Duration.ofSeconds(5), 4));
        assertEquals(Duration.ofMillis(2000), HangWatch.interval(Duration.ofSeconds(300), 4));
        assertEquals(Duration.ofMillis(2000), HangWatch.interval(Duration.ofSeconds(300), 5_000));
    }

    @Test
    void largeJobsReportLessOftenSoTheLauncherGetsAtMost2500ReportsASecond() {
        assertEquals(Duration.ofMillis(4000), HangWatch.interval(Duration.ofSeconds(300), 10_000));
        assertEquals(Duration.ofMillis(32_000), HangWatch.interval(Duration.ofSeconds(300), 80_000));
        assertEquals(Duration.ofMillis(60_000), HangWatch.interval(Duration.ofSeconds(300), 1_000_000),
                "never over a fifth of the timeout");
        assertEquals(Duration.ofMillis(2000), HangWatch.interval(Duration.ofSeconds(10), 80_000),
                "a short timeout keeps its precision");
        for (int ranks : new int[] {1, 100, 10_000, 80_000, 1_048_576}) {
            long ms = HangWatch.interval(Duration.ofSeconds(600), ranks).toMillis();
            assertTrue(ranks * 1000L / ms <= 2_500 || ms == 120_000, ranks + " ranks every " + ms + " ms");
        }
    }
}
