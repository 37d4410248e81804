package org.troika.launcher.elastic;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.launcher.elastic.FakeLauncher.succeedAfter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The pause between discovery runs: the policy as a table, then the driver's polls on the fake clock (a discovery
 * that takes a set time per call, call start times recorded).
 */
class DiscoveryIntervalTest {
    private final FakeClock clock = new FakeClock();
    private final FakeLauncher launcher = new FakeLauncher(clock);

    @ParameterizedTest(name = "last run {0} ms -> pause {1} ms")
    @CsvSource({"0, 250", "1, 250", "5, 250", "12, 250", "13, 260", "25, 500", "49, 980", "50, 1000", "80, 1000",
        "10000, 1000", "9223372036854775807, 1000"})
    void adaptiveIsTwentyTimesTheLastRunBetweenAQuarterAndOneSecond(long lastRunMillis, long pauseMillis) {
        assertEquals(Duration.ofMillis(pauseMillis), DiscoveryInterval.adaptive().after(Duration.ofMillis(lastRunMillis)));
    }

    @Test
    void adaptiveDiscoveryOfAScriptFasterThanFiftyMillisecondsTakesUnderFivePercentOfTheTime() {
        for (long run = 1; run < 50; run++) {
            long pause = DiscoveryInterval.adaptive().after(Duration.ofMillis(run)).toMillis();
            double share = (double) run / (run + pause);
            assertTrue(share < 0.05, run + " ms run, " + pause + " ms pause: " + share);
        }
    }

    @ParameterizedTest(name = "last run {0} ms, {1} ms of CPU -> pause {2} ms")
    @CsvSource({"22, 0, 250", "22, 10, 250", "100, 10, 300", "200, 0, 600", "400, 0, 1000", "60, 12, 250",
        "60, 13, 260", "60, 30, 600", "60, 50, 1000", "5000, 5000, 1000", "0, 0, 250"})
    void withItsCpuKnownThePauseIsTwentyTimesTheCpuAndThreeTimesTheRunAtLeast(long wallMillis, long cpuMillis,
            long pauseMillis) {
        assertEquals(Duration.ofMillis(pauseMillis), DiscoveryInterval.adaptive().after(new DiscoveryInterval.Run(
                Duration.ofMillis(wallMillis), Duration.ofMillis(cpuMillis))));
    }

    /** Discovery's CPU stays under 5 % of the time, and a script that waits on something runs under a quarter. */
    @Test
    void withItsCpuKnownDiscoveryTakesUnderFivePercentOfTheCpuAndUnderAQuarterOfTheTime() {
        for (long wall = 0; wall <= 1_000; wall += 5) {
            for (long cpu = 0; cpu <= Math.min(wall, 49); cpu++) {
                long pause = DiscoveryInterval.adaptive().after(new DiscoveryInterval.Run(Duration.ofMillis(wall),
                        Duration.ofMillis(cpu))).toMillis();
                assertTrue((double) cpu / (wall + pause) < 0.05, wall + " ms run, " + cpu + " ms CPU, " + pause);
                assertTrue(wall <= 334 ? (double) wall / (wall + pause) <= 0.25 : pause == 1_000,
                        wall + " ms run, " + pause + " ms pause");
            }
        }
    }

    /** The system clock counts the CPU of a child process once it has ended (what the driver charges a discovery run). */
    @Test
    void theSystemClockCountsTheCpuOfEndedChildren() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isReadable(java.nio.file.Path.of(
                "/proc/self/stat")), "no /proc/self/stat here: the pause follows the wall time alone");
        Clock system = Clock.system();
        long before = system.childCpuMillis();
        assertTrue(before >= 0, "read from /proc/self/stat");
        Process p = new ProcessBuilder("/bin/sh", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done")
                .redirectErrorStream(true).start();
        assertEquals(0, p.waitFor());
        long after = system.childCpuMillis();
        assertTrue(after - before >= 10, "a busy child's CPU (ms, 10 ms ticks): " + before + " -> " + after);
    }

    @Test
    void aFixedIntervalIgnoresTheRunTime() {
        DiscoveryInterval quarter = DiscoveryInterval.fixed(Duration.ofMillis(250));
        assertAll(
                () -> assertEquals(Duration.ofMillis(250), quarter.after(Duration.ZERO)),
                () -> assertEquals(Duration.ofMillis(250), quarter.after(Duration.ofSeconds(3))),
                () -> assertEquals(Duration.ofMillis(50), DiscoveryInterval.fixed(DiscoveryInterval.MINIMUM)
                        .after(Duration.ZERO)));
    }

    // ---- the driver's polls -----------------------------------------------------------------------------------

    private ScriptedDiscovery runJob(ScriptedDiscovery d, int minNp, DiscoveryInterval interval) throws Exception {
        ElasticLimits limits = new ElasticLimits(minNp, null, Duration.ofSeconds(30), null, interval, null);
        ElasticResult r = new ElasticDriver(limits, d, new HostManager(clock, null, () -> 0.0), launcher, clock,
                new ElasticDriverTest.Recorder()).run();
        assertTrue(r.ok(), r.message());
        return d;
    }

    /** Milliseconds between the starts of successive discovery calls. */
    private static List<Long> gaps(ScriptedDiscovery d) {
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < d.callMillis.size(); i++) {
            gaps.add(d.callMillis.get(i) - d.callMillis.get(i - 1));
        }
        return gaps;
    }

    @Test
    void aCheapScriptIsPolledEveryQuarterSecondWhileAGenerationRuns() throws Exception {
        launcher.on(1, succeedAfter(2_000));
        ScriptedDiscovery d = runJob(new ScriptedDiscovery(clock, "a:2").takes(call -> Duration.ofMillis(5)), 2,
                DiscoveryInterval.adaptive());
        // each gap: the 5 ms run, then 20 x 5 ms = 100 ms raised to the 250 ms floor
        assertEquals(List.of(255L, 255L, 255L, 255L, 255L, 255L, 255L), gaps(d));
    }

    @Test
    void aSlowScriptKeepsTheOneSecondIntervalAndTheIntervalFollowsTheLastRun() throws Exception {
        launcher.on(1, succeedAfter(4_000));
        // 80 ms (1 s pause), 80 ms, then 30 ms runs (600 ms pause), then 5 ms (250 ms)
        ScriptedDiscovery d = runJob(new ScriptedDiscovery(clock, "a:2").takes(call -> Duration.ofMillis(
                call <= 2 ? 80 : call <= 4 ? 30 : 5)), 2, DiscoveryInterval.adaptive());
        assertEquals(List.of(1_080L, 1_080L, 630L, 630L, 255L, 255L), gaps(d));
    }

    /**
     * A cheap script that is slow for a while because ranks keep the launcher's cores busy: the pause follows the
     * shortest of the last 8 runs (the script's own cost), so the busy spell does not stretch it to 1 s; once 8 slow
     * runs in a row leave no fast one in the window, the script really got slower and the pause grows.
     */
    @Test
    void slowRunsOnABusyMachineDoNotStretchTheIntervalOfACheapScript() throws Exception {
        launcher.on(1, succeedAfter(3_900));
        ScriptedDiscovery d = runJob(new ScriptedDiscovery(clock, "a:2").takes(call -> Duration.ofMillis(
                call <= 2 ? 5 : 60)), 2, DiscoveryInterval.adaptive());
        // calls 1-2 take 5 ms, then 60 ms each: the first gaps are 5 + 250 and 60 + 250 while a 5 ms run is among the
        // last 8; from call 10 on (runs 3-10 all 60 ms) the pause is 1 s
        assertEquals(List.of(255L, 255L, 310L, 310L, 310L, 310L, 310L, 310L, 310L, 1_060L), gaps(d));
    }

    /**
     * The same cheap script on a busy machine, with the CPU its runs cost known (the system clock reads it from
     * /proc/self/stat): 60 ms runs of 5 ms of CPU keep the 250 ms pause however many there are, where the wall time
     * alone gave 1 s after the eighth (the test above).
     */
    @Test
    void slowRunsOfACheapScriptKeepTheQuarterSecondWhenTheirCpuIsKnown() throws Exception {
        launcher.on(1, succeedAfter(3_900));
        ScriptedDiscovery d = runJob(new ScriptedDiscovery(clock, "a:2").takes(call -> Duration.ofMillis(
                call <= 2 ? 5 : 60)).cpu(call -> Duration.ofMillis(5)), 2, DiscoveryInterval.adaptive());
        // max(20 x 5 ms, 3 x 60 ms) = 180 ms, raised to the 250 ms floor, for every run
        assertEquals(List.of(255L, 255L, 310L, 310L, 310L, 310L, 310L, 310L, 310L, 310L, 310L, 310L), gaps(d));
    }

    @Test
    void aGivenIntervalIsKeptWhateverTheScriptTakes() throws Exception {
        launcher.on(1, succeedAfter(500));
        ScriptedDiscovery d = runJob(new ScriptedDiscovery(clock, "a:2").takes(call -> Duration.ofMillis(5)), 2,
                DiscoveryInterval.fixed(Duration.ofMillis(100)));
        assertEquals(List.of(105L, 105L, 105L, 105L), gaps(d));
    }

    @Test
    void whileWaitingForSlotsACheapScriptSeesTheNewHostWithinAQuarterSecond() throws Exception {
        long t0 = clock.millis();
        launcher.on(1, succeedAfter(1_000));
        runJob(new ScriptedDiscovery(clock, "a:2").from(1_100, "a:2,b:2").takes(call -> Duration.ofMillis(5)), 4,
                DiscoveryInterval.adaptive());
        // polls at 0, 255, 510, 765, 1020, 1275: the 1275 ms one (5 ms) finds b, and the generation starts
        assertEquals(1_280, launcher.runs.get(0).startMillis - t0);
    }
}
