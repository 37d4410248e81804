package org.troika.launcher.watchdog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.troika.common.ProgressReport;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;

class HangWatchdogTests {
    static final HostPlan PLAN = HostPlan.assign("test", List.of(new HostSlots("n1", 2), new HostSlots("n2", 2)), 4);
    static final Duration T = Duration.ofSeconds(10);

    static ProgressReport at(int rank, long entered, long left, String where) {
        return new ProgressReport(rank, 0, 0, 0, entered, left, "allreduce", where);
    }

    private static HangWatchdog dog() {
        return new HangWatchdog(PLAN, T, Duration.ofSeconds(5), Duration.ofSeconds(30), 0);
    }

    @Test
    void aRankThatStopsOutsideTheCollectiveIsNamedAndTheWaitingRanksAreToldApart() {
        HangWatchdog d = dog();
        for (int r = 0; r < 4; r++) {
            d.report(at(r, 56, 56, "step 55"), 1_000);
        }
        // ranks 0, 1, 3 enter allreduce #57; rank 2 never arrives
        for (int r : new int[] {0, 1, 3}) {
            d.report(at(r, 57, 56, "step 56"), 2_000);
        }
        assertTrue(d.check(10_999).isEmpty(), "rank 2 has 10 s from its last progress at 1 s");
        HangReport h = d.check(12_000).orElseThrow();
        assertTrue(h.allIdle(), "the others entered the collective 10 s ago: nobody progressed since");
        assertEquals(List.of(2), h.stuck().stream().map(HangReport.RankState::rank).toList());
        assertEquals("n2", h.stuck().get(0).host());
        List<String> lines = h.lines();
        assertEquals("troika: hang:   rank 2 on host n2 is stuck: never arrived at allreduce #57; last seen 11 s ago, "
                + "after allreduce #56, at 'step 55'", lines.get(1));
        assertEquals("troika: hang:   ranks 0,1,3 (hosts n1,n2) are blocked inside allreduce #57, waiting for it",
                lines.get(2));
        assertTrue(d.check(20_000).isEmpty(), "declared once");
        assertTrue(d.hung());
    }

    @Test
    void aRankThatDiedWhileTheOthersShrankIsNoHang() {
        HangWatchdog d = dog();
        for (int r = 0; r < 4; r++) {
            d.report(at(r, 5, 5, "step 5"), 1_000);
        }
        d.forget(2); // --fault-tolerance shrink: rank 2 died, the others go on without it
        for (long t = 2_000; t <= 60_000; t += 1_000) {
            for (int r : new int[] {0, 1, 3}) {
                d.report(at(r, t / 1000, t / 1000, "step " + t / 1000), t);
            }
            assertTrue(d.check(t).isEmpty(), "at " + t);
        }
        // the survivors all blocked in one collective for good is still a hang
        for (int r : new int[] {0, 1, 3}) {
            d.report(at(r, 100, 60, "step 60"), 61_000);
        }
        assertEquals(3, d.check(72_000).orElseThrow().blocked().size());
    }

    @Test
    void aSlowButProgressingJobIsNeverHung() {
        HangWatchdog d = dog();
        long now = 0;
        for (int step = 1; step <= 100; step++) {
            now += 9_000; // each step takes 9 s, just under the timeout
            for (int r = 0; r < 4; r++) {
                d.report(at(r, step, step, "step " + step), now);
            }
            assertTrue(d.check(now + 999).isEmpty(), "step " + step);
        }
    }

    @Test
    void ranksWaitingInACollectiveForAPeerThatStillProgressesAreNotHung() {
        HangWatchdog d = dog();
        for (int r = 1; r < 4; r++) {
            d.report(at(r, 1, 0, ""), 0); // blocked in a barrier for a minute
        }
        for (long t = 0; t <= 60_000; t += 1_000) {
            d.report(new ProgressReport(0, 0, t / 1000, 0, 0, 0, "", "loading shard " + t), t); // rank 0 beats
            assertTrue(d.check(t).isEmpty(), "at " + t);
        }
    }

    @Test
    void everyRankInsideTheSameCollectiveMeansTheCollectiveDoesNotComplete() {
        HangWatchdog d = dog();
        for (int r = 0; r < 4; r++) {
            d.report(at(r, 7, 6, ""), 0);
        }
        HangReport h = d.check(10_000).orElseThrow();
        assertTrue(h.stuck().isEmpty());
        assertTrue(h.behind().isEmpty());
        assertTrue(h.lines().get(1).contains("every rank is inside it: the collective itself does not complete"),
                h.lines().toString());
    }

    @Test
    void aRankInsideAnEarlierCollectiveIsTheOneThatNeverArrived() {
        HangWatchdog d = dog();
        d.report(at(0, 7, 6, ""), 0);
        d.report(at(1, 7, 6, ""), 0);
        d.report(at(2, 6, 5, ""), 0);
        d.report(at(3, 7, 6, ""), 0);
        HangReport h = d.check(10_000).orElseThrow();
        assertEquals(List.of(2), h.culprits().stream().map(HangReport.RankState::rank).toList());
        assertTrue(h.lines().get(1).startsWith("troika: hang:   rank 2 on host n2 never arrived at allreduce #7"),
                h.lines().toString());
    }

    @Test
    void aStragglerIsNamedWhileOthersProgress() {
        HangWatchdog d = dog();
        for (long t = 0; t <= 12_000; t += 1_000) {
            for (int r = 0; r < 3; r++) {
                d.report(new ProgressReport(r, 0, t, 0, 0, 0, "", ""), t);
            }
        }
        d.report(new ProgressReport(3, 0, 1, 0, 0, 0, "", "step 1"), 1_000);
        HangReport h = d.check(12_000).orElseThrow();
        assertFalse(h.allIdle());
        assertEquals("troika: hang: 1 rank(s) made no progress for 10 s while the others did", h.lines().get(0));
        assertEquals(3, h.stuck().get(0).rank());
    }

    @Test
    void ranksWatchedByOutputAndTheStartGrace() {
        HangWatchdog d = dog();
        assertTrue(d.check(29_999).isEmpty(), "no rank showed life yet: the 30 s start grace applies");
        for (int r = 0; r < 4; r++) {
            d.output(r, 5_000);
        }
        assertTrue(d.check(14_999).isEmpty());
        HangReport h = d.check(15_000).orElseThrow();
        assertEquals(4, h.stuck().size());
        assertTrue(h.lines().get(1).endsWith("no progress report (watched by its output only)"), h.lines().toString());
    }

    @Test
    void theWarningComesOncePerStall() {
        HangWatchdog d = dog();
        for (int r = 0; r < 4; r++) {
            d.report(at(r, 1, 1, ""), 0);
        }
        assertTrue(d.warn(5_000).isPresent());
        assertTrue(d.warn(6_000).isEmpty());
        for (int r = 0; r < 4; r++) {
            d.report(at(r, 2, 2, ""), 7_000);
        }
        assertTrue(d.warn(12_000).isPresent(), "a new stall warns again");
    }

    @Test
    void reportsFromRanksOutsideTheWorldAreRefused() {
        assertFalse(dog().report(at(4, 1, 1, ""), 0));
    }

    /**
     * Issue 25: ranks that join the world in place (a standby rank activated, a spawned rank) are watched from their
     * joining on, under their ids in the generation, with the host they joined on; before, their reports were refused
     * and a spawned rank that stopped made the others' collective look like the cause.
     */
    @Test
    void aRankThatJoinedInPlaceIsWatchedFromItsJoiningAndNamedWithItsHost() {
        HangWatchdog d = dog();
        assertFalse(d.report(at(6, 1, 1, "waiting"), 500), "a standby or spawned rank is not watched before it joins");
        for (int r = 0; r < 4; r++) {
            d.report(at(r, 5, 5, "step 5"), 1_000);
        }
        d.join(6, "n3");
        d.join(2, "n9"); // a rank of the launch's world: not re-homed
        d.join(6, "n4"); // joined once
        assertTrue(d.report(at(6, 5, 5, "step 5"), 1_000));
        // the launch's ranks enter allreduce #6; the joined rank never arrives
        for (int r = 0; r < 4; r++) {
            d.report(at(r, 6, 5, "step 6"), 2_000);
        }
        assertTrue(d.check(10_999).isEmpty(), "the joined rank has 10 s from its last progress at 1 s");
        HangReport h = d.check(11_000).orElseThrow();
        assertEquals(List.of(6), h.stuck().stream().map(HangReport.RankState::rank).toList(), h.lines().toString());
        assertEquals("n3", h.stuck().get(0).host());
        assertEquals(List.of(0, 1, 2, 3), h.blocked().stream().map(HangReport.RankState::rank).toList());
        assertEquals("n1", h.blocked().get(0).host());
    }

    /**
     * A joined rank is judged from its first report on: its output is not the launch's to see, so one that cannot report
     * (no watchdog address reached it) is never blamed for its silence. A joined rank that left is forgotten.
     */
    @Test
    void aJoinedRankIsJudgedFromItsFirstReportAndForgottenWhenItLeaves() {
        HangWatchdog d = dog();
        d.join(5, "n3");
        for (long t = 1_000; t <= 60_000; t += 1_000) {
            for (int r = 0; r < 4; r++) {
                d.report(at(r, t, t, "step " + t), t);
            }
            assertTrue(d.check(t).isEmpty(), "never reported: not judged, at " + t);
        }
        d.report(at(5, 3, 3, "step 3"), 60_500);
        for (long t = 61_000; t < 70_500; t += 1_000) {
            for (int r = 0; r < 4; r++) {
                d.report(at(r, t, t, "step " + t), t);
            }
            assertTrue(d.check(t).isEmpty(), "at " + t);
        }
        assertEquals(List.of(5), d.check(70_500).orElseThrow().stuck().stream().map(HangReport.RankState::rank)
                .toList(), "silent for the timeout since its first report, though the others progress");
        HangWatchdog left = dog();
        left.join(5, "n3");
        left.report(at(5, 1, 1, "step 1"), 0);
        left.forget(5); // its host left the job: it split off
        for (int r = 0; r < 4; r++) {
            left.report(at(r, 1, 1, "step 1"), 15_000);
        }
        assertTrue(left.check(20_000).isEmpty(), "a joined rank that left is no hang");
    }

    @Test
    void joinsPastTheBoundAreIgnoredAndTheWatchGrowsToTheIdsThatJoined() {
        HangWatchdog d = dog();
        d.join(4 + org.troika.launcher.elastic.World.MAX_JOINED, "far");
        assertFalse(d.report(at(4 + org.troika.launcher.elastic.World.MAX_JOINED, 1, 1, ""), 0));
        for (int id = 4; id < 200; id++) {
            d.join(id, "h" + id);
        }
        assertTrue(d.report(at(199, 1, 1, "step 1"), 0));
        assertFalse(d.report(at(200, 1, 1, "step 1"), 0), "never joined");
    }
}
