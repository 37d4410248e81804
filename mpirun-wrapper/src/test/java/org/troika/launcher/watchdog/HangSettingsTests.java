package org.troika.launcher.watchdog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;
import org.troika.launcher.spi.RunSettings;

class HangSettingsTests {
    private static final RunSettings STATIC = RunSettings.builder().command(List.of("x")).build();
    private static final RunSettings ELASTIC = STATIC.toBuilder().minNp(2).build();

    @Test
    void offForStaticJobsOnForElasticOnesAndTheFlagBeatsTheEnvironment() {
        assertNull(HangWatch.timeout(STATIC, Map.of()));
        assertEquals(HangWatch.ELASTIC_DEFAULT, HangWatch.timeout(ELASTIC, Map.of()));
        assertEquals(Duration.ofSeconds(90), HangWatch.timeout(STATIC, Map.of("TROIKA_HANG_TIMEOUT", "90")));
        assertNull(HangWatch.timeout(ELASTIC, Map.of("TROIKA_HANG_TIMEOUT", "0")), "0 turns it off");
        RunSettings flag = STATIC.toBuilder().hangTimeout(Duration.ofSeconds(20)).build();
        assertEquals(Duration.ofSeconds(20), HangWatch.timeout(flag, Map.of("TROIKA_HANG_TIMEOUT", "90")));
        assertNull(HangWatch.timeout(ELASTIC.toBuilder().hangTimeout(Duration.ZERO).build(), Map.of()));
        assertThrows(UsageException.class, () -> HangWatch.timeout(STATIC, Map.of("TROIKA_HANG_TIMEOUT", "10s")));
    }

    @Test
    void warningsOnlyForLongTimeoutsUnlessAsked() {
        assertEquals(Duration.ofSeconds(60), HangWatch.warning(ELASTIC, Duration.ofSeconds(300)));
        assertNull(HangWatch.warning(STATIC, Duration.ofSeconds(30)));
        RunSettings w = STATIC.toBuilder().hangWarning(Duration.ofSeconds(10)).build();
        assertEquals(Duration.ofSeconds(10), HangWatch.warning(w, Duration.ofSeconds(30)));
        assertNull(HangWatch.warning(w, Duration.ofSeconds(10)), "not at or above the timeout");
    }

    @Test
    void ranksReportAFifthOfTheTimeoutBetweenAFifthOfASecondAndTwoSeconds() {
        assertEquals(Duration.ofMillis(200), HangWatch.interval(Duration.ofSeconds(1)));
        assertEquals(Duration.ofMillis(1000), HangWatch.interval(Duration.ofSeconds(5)));
        assertEquals(Duration.ofMillis(2000), HangWatch.interval(Duration.ofSeconds(300)));
    }
}
