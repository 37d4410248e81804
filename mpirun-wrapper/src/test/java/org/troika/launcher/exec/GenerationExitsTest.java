package org.troika.launcher.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.troika.launcher.elastic.GenerationResult;
import org.troika.launcher.elastic.RankExit;
import org.troika.launcher.mpi.FailedRank;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.watchdog.HangReport;

/** The pure function from a launch's outcome to a generation's exits (moved here from the generation launcher). */
class GenerationExitsTest {
    static final HostPlan PLAN = HostPlan.assign("test",
            List.of(new HostSlots("a", 2, 2), new HostSlots("b", 2, 2)), 4);

    @Test
    void aHangBlamesTheStuckRankAndRetriesWhenEveryRankWasInsideTheSameCollective() {
        org.troika.common.ProgressReport in = new org.troika.common.ProgressReport(0, 1, 0, 0, 7, 6, "allreduce", "");
        var stuck = new HangReport.RankState(3, PLAN.slots().get(3).host(), 9000, null);
        var waiting = new HangReport.RankState(0, PLAN.slots().get(0).host(), 9000, in);
        GenerationResult blamed = new GenerationResult(GenerationExits.of(PLAN, LaunchOutcome.exited(143).withHang(
                new HangReport(Duration.ofSeconds(9), true, List.of(stuck), List.of(waiting), List.of()))), true);
        assertEquals(List.of(new RankExit(3, PLAN.slots().get(3).host(), 124, false)), blamed.failures());
        assertEquals(PLAN.size(), blamed.exits().size());
        GenerationResult nobody = new GenerationResult(GenerationExits.of(PLAN, LaunchOutcome.exited(143).withHang(
                new HangReport(Duration.ofSeconds(9), true, List.of(), List.of(waiting), List.of()))), true);
        assertTrue(nobody.failures().isEmpty(), "no host to blacklist: the next generation retries");
        assertFalse(nobody.anySuccess() || nobody.allHostsUpdated());
    }

    @Test
    void aHangWhereEveryRankStoppedOutsideAnyCollectiveBlamesNobody() {
        org.troika.common.ProgressReport after = new org.troika.common.ProgressReport(0, 1, 0, 0, 7, 7, "comm_split",
                "");
        List<HangReport.RankState> all = new java.util.ArrayList<>();
        for (int r = 0; r < PLAN.size(); r++) {
            all.add(new HangReport.RankState(r, PLAN.slots().get(r).host(), 9000, after));
        }
        HangReport everyone = new HangReport(Duration.ofSeconds(9), true, all, List.of(), List.of());
        assertTrue(everyone.everyRankStopped());
        assertTrue(everyone.lines().stream().anyMatch(l -> l.contains("none waits for another, so none is blamed")),
                everyone.lines().toString());
        GenerationResult r = new GenerationResult(GenerationExits.of(PLAN, LaunchOutcome.exited(143)
                .withHang(everyone)), true);
        assertTrue(r.failures().isEmpty(), "no host to blacklist: " + r.failures());
        assertEquals(PLAN.size(), r.exits().size());
        // the same ranks stopped while one of them progressed: the stopped ones are blamed
        HangReport some = new HangReport(Duration.ofSeconds(9), false, all.subList(0, 3), List.of(), List.of());
        assertFalse(some.everyRankStopped());
        assertEquals(3, new GenerationResult(GenerationExits.of(PLAN, LaunchOutcome.exited(143).withHang(some)),
                true).failures().size());
        // a world of one rank that stopped: it is blamed, as before
        HangReport one = new HangReport(Duration.ofSeconds(9), true, all.subList(0, 1), List.of(), List.of());
        assertFalse(one.everyRankStopped());
    }

    @Test
    void aCleanRunIsASuccessOfEveryRank() {
        List<RankExit> exits = GenerationExits.of(PLAN, LaunchOutcome.exited(0));
        assertEquals(4, exits.size());
        assertTrue(new GenerationResult(exits, true).anySuccess());
        assertTrue(exits.stream().noneMatch(RankExit::collateral));
    }

    @Test
    void aCommonHostsUpdatedExitIsACleanLeaveForEveryRank() {
        GenerationResult named = new GenerationResult(GenerationExits.of(PLAN,
                LaunchOutcome.exited(75).withFirst(new FailedRank(2, "node", 75))), true);
        assertTrue(named.allHostsUpdated(), named.toString());
        GenerationResult unnamed = new GenerationResult(GenerationExits.of(PLAN, LaunchOutcome.exited(75)), true);
        assertTrue(unnamed.allHostsUpdated(), unnamed.toString());
    }

    @Test
    void onlyTheFirstFailedRankBlamesItsHostAndItsHostComesFromThePlan() {
        List<RankExit> exits = GenerationExits.of(PLAN,
                LaunchOutcome.exited(137).withFirst(new FailedRank(3, "kernel-name", 137)));
        GenerationResult r = new GenerationResult(exits, true);
        assertEquals(List.of(new RankExit(3, "b", 137, false)), r.failures());
        assertEquals(RankExit.Kind.FAILURE, exits.get(0).kind());
        assertTrue(exits.subList(1, 4).stream().allMatch(e -> e.kind() == RankExit.Kind.CASUALTY), exits.toString());
    }

    @Test
    void aFailureNoRankWasNamedForBlacklistsNothing() {
        GenerationResult r = new GenerationResult(GenerationExits.of(PLAN, LaunchOutcome.exited(1)), true);
        assertEquals(List.of(), r.failures());
        assertFalse(r.anySuccess());
        assertFalse(r.allHostsUpdated());
    }

    @Test
    void aLostHostsRanksAreTheFailuresWhateverMpirunSaid() {
        List<RankExit> exits = GenerationExits.of(PLAN,
                LaunchOutcome.exited(1).withFirst(new FailedRank(0, "a", 76)).withLost(Set.of("b")));
        GenerationResult r = new GenerationResult(exits, false);
        assertEquals(List.of(new RankExit(2, "b", 255, false), new RankExit(3, "b", 255, false)), r.failures());
        assertTrue(exits.stream().filter(e -> e.host().equals("a")).allMatch(RankExit::collateral));
    }


    /** Lost hosts explain everything after them; a hang comes before what the ranks reported, which beats mpirun. */
    @Test
    void aLostHostComesFirstThenAHangThenTheRanksReportThenMpirunsCode() {
        List<RankExit> world = List.of(new RankExit(1, "a", ShrinkTracker.DIED_EXIT, false), new RankExit(0, "a", 0,
                false), new RankExit(2, "b", 0, false), new RankExit(3, "b", 0, false));
        var stuck = new HangReport.RankState(2, "b", 9000, null);
        HangReport hang = new HangReport(Duration.ofSeconds(9), true, List.of(stuck), List.of(), List.of());
        LaunchOutcome all = LaunchOutcome.exited(137).withFirst(new FailedRank(0, "a", 137)).withWorld(world)
                .withHang(hang).withLost(Set.of("a"));
        assertEquals(List.of(new RankExit(0, "a", 255, false), new RankExit(1, "a", 255, false)),
                new GenerationResult(GenerationExits.of(PLAN, all), false).failures());
        assertEquals(List.of(new RankExit(2, "b", 124, false)),
                new GenerationResult(GenerationExits.of(PLAN, all.withLost(Set.of())), false).failures());
        assertEquals(world, GenerationExits.of(PLAN, all.withLost(Set.of()).withHang(null)));
        assertEquals(List.of(new RankExit(0, "a", 137, false)), new GenerationResult(GenerationExits.of(PLAN,
                all.withLost(Set.of()).withHang(null).withWorld(null)), false).failures());
    }
}
