package org.troika.launcher.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.troika.launcher.elastic.RankExit;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.wire.ElasticMessage;
import org.troika.wire.ElasticMessage.WorldChanged.Joined;

class ShrinkTrackerTest {
    static final HostPlan PLAN = HostPlan.assign("test", List.of(new HostSlots("a", 2), new HostSlots("b", 2)), 4);

    /** Records what the tracker tells the launcher. */
    static final class Told implements ShrinkTracker.News {
        final List<String> died = new ArrayList<>();
        final List<String> joined = new ArrayList<>();
        int over;
        int leftTogether;

        @Override
        public void leftTogether() {
            leftTogether++;
        }

        @Override
        public void died(int rank, String host) {
            died.add(rank + "@" + host);
        }

        @Override
        public void joined(int rank, String host) {
            joined.add(rank + "@" + host);
        }

        @Override
        public void over() {
            over++;
        }
    }

    static ElasticMessage.WorldChanged shrunk(int epoch, Integer... members) {
        return new ElasticMessage.WorldChanged(1, epoch, List.of(members), List.of(), List.of());
    }

    static ElasticMessage.RankLeft left(int rank, int code) {
        return new ElasticMessage.RankLeft(1, rank, code);
    }

    @Test
    void deadRanksAreReportedOnceAndEveryLeaveEndsTheGeneration() {
        Told told = new Told();
        ShrinkTracker t = new ShrinkTracker(PLAN, told);
        assertFalse(t.changed());
        t.event(shrunk(1, 0, 1, 2));
        assertEquals(List.of("3@b"), told.died);
        t.event(shrunk(1, 0, 1, 2)); // the same report again: nothing new
        assertEquals(List.of("3@b"), told.died);
        assertTrue(t.changed());
        t.event(left(1, 0));
        t.event(shrunk(2, 0, 1));
        assertEquals(List.of("3@b", "2@b"), told.died);
        assertFalse(t.over());
        assertEquals(0, told.over);
        t.event(left(0, 0));
        assertTrue(t.over());
        assertEquals(1, told.over);
        t.event(left(0, 0));
        assertEquals(1, told.over, "told once");
        List<RankExit> exits = t.exits(0);
        assertEquals(List.of(new RankExit(2, "b", ShrinkTracker.DIED_EXIT, false),
                new RankExit(3, "b", ShrinkTracker.DIED_EXIT, false), new RankExit(0, "a", 0, false),
                new RankExit(1, "a", 0, false)), exits);
    }

    @Test
    void deathsReportedWhileTheLauncherEndsTheGenerationAreTheTeardownsNotFailures() {
        Told told = new Told();
        ShrinkTracker t = new ShrinkTracker(PLAN, told);
        t.event(shrunk(1, 1, 2, 3)); // rank 0 died: a failure
        t.endedByLauncher();
        t.event(shrunk(2, 1, 2)); // rank 3 killed first by the teardown, the others shrank before their turn
        t.event(left(1, 0));
        assertEquals(List.of("0@a"), told.died);
        List<RankExit> exits = t.exits(137); // mpirun's end after the teardown
        assertEquals(new RankExit(0, "a", ShrinkTracker.DIED_EXIT, false), exits.get(0));
        // rank 3 ended as mpirun did, a casualty (collateral): not blamed, its host not blacklisted
        assertTrue(exits.contains(new RankExit(3, "b", 137, true)), exits.toString());
        assertTrue(exits.contains(new RankExit(1, "a", 0, false)), exits.toString());
    }

    /**
     * Every rank left for a relaunch (a host change under fault tolerance) without any change of the world: not
     * "over" (nothing to end early), but accounted for, so the launch waits for no lost host (issue 25's ~8 s).
     */
    @Test
    void ranksThatAllLeftWithoutAChangeAreAccountedForButNotOver() {
        Told told = new Told();
        ShrinkTracker t = new ShrinkTracker(PLAN, told);
        assertFalse(t.accountedFor());
        t.event(left(0, 75));
        t.event(left(1, 75));
        t.event(left(2, 75));
        assertFalse(t.accountedFor(), "rank 3 has not left");
        assertEquals(0, told.leftTogether, "rank 3 has not left");
        t.event(left(3, 75));
        assertTrue(t.accountedFor());
        assertFalse(t.over());
        assertEquals(0, told.over);
        // the reports are the generation's end: the launcher may start the next one while mpirun still ends
        assertTrue(t.leftTogether());
        assertEquals(1, told.leftTogether);
        t.event(left(3, 75));
        assertEquals(1, told.leftTogether, "told once");
        assertTrue(t.exits(75).stream().allMatch(e -> e.kind() == RankExit.Kind.HOSTS_UPDATED), t.exits(75)::toString);
    }

    /**
     * Only a relaunch for a host change ends a generation before mpirun: not when one rank left with another code
     * (finished, failed), nor when a rank died first, nor with a rank still unaccounted for.
     */
    @Test
    void onlyRanksThatAllLeftForAHostChangeEndTheGenerationBeforeMpirun() {
        Told mixed = new Told();
        ShrinkTracker t = new ShrinkTracker(PLAN, mixed);
        t.event(left(0, 75));
        t.event(left(1, 0));
        t.event(left(2, 75));
        t.event(left(3, 75));
        assertTrue(t.accountedFor());
        assertFalse(t.leftTogether(), "rank 1 finished the body");
        assertEquals(0, mixed.leftTogether);

        Told failed = new Told();
        t = new ShrinkTracker(PLAN, failed);
        for (int r = 0; r < 4; r++) {
            t.event(left(r, 76));
        }
        assertFalse(t.leftTogether(), "76: casualties of a failure");
        assertEquals(0, failed.leftTogether);

        Told died = new Told();
        t = new ShrinkTracker(PLAN, died);
        t.event(shrunk(1, 0, 1, 2));
        for (int r = 0; r < 3; r++) {
            t.event(left(r, 75));
        }
        assertTrue(t.over());
        assertFalse(t.leftTogether(), "rank 3 died: its host is blacklisted by mpirun's end as well");
        assertEquals(0, died.leftTogether);
    }

    @Test
    void survivorsBelowMinNpLeaveAsCasualtiesAndTheDeadRankFails() {
        ShrinkTracker t = new ShrinkTracker(PLAN, ShrinkTracker.News.NONE);
        t.event(shrunk(1, 0, 2, 3));
        for (int r : new int[] {0, 2, 3}) {
            t.event(left(r, 76));
        }
        assertTrue(t.over());
        List<RankExit> exits = t.exits(137);
        assertEquals(RankExit.Kind.FAILURE, exits.get(0).kind());
        assertEquals("a", exits.get(0).host());
        assertEquals(1, exits.stream().filter(e -> e.kind() == RankExit.Kind.FAILURE).count());
    }

    @Test
    void aRankThatSaidNothingEndsAsMpirunDidAndRanksOutsideTheWorldAreIgnored() {
        ShrinkTracker t = new ShrinkTracker(PLAN, ShrinkTracker.News.NONE);
        t.event(shrunk(1, 0, 1, 2, 9));
        t.event(left(7, 0));
        t.event(new ElasticMessage.WorldChanged(1, 2, List.of(0, 1, 2), List.of(11), List.of()));
        assertFalse(t.over());
        List<RankExit> exits = t.exits(143);
        assertEquals(new RankExit(3, "b", ShrinkTracker.DIED_EXIT, false), exits.get(0));
        assertEquals(4, exits.size(), exits::toString);
        assertTrue(exits.subList(1, 4).stream().allMatch(RankExit::collateral), exits::toString);
    }

    @Test
    void aStaleReportArrivingAfterALaterOneChangesNothing() {
        Told told = new Told();
        ShrinkTracker t = new ShrinkTracker(PLAN, told);
        // the second shrink's rank 0 reported first (another connection): both dead ranks are known from it
        t.event(shrunk(2, 0, 1));
        t.event(shrunk(1, 0, 1, 2));
        assertEquals(List.of("2@b", "3@b"), told.died);
        assertEquals(2, t.exits(0).stream().filter(e -> e.exitCode() == ShrinkTracker.DIED_EXIT).count());
    }

    /**
     * PRRTE 3.0.8 ends a job with exit 0 when it loses a daemon (one failed in a spawn's connect step while ranks
     * grew): ranks of a changed world that never left Elastic.run did not finish, so they are casualties and the driver
     * relaunches, instead of "done" for a training that stopped at its last commit.
     */
    @Test
    void ranksThatNeverLeftWhileMpirunExitedZeroAreUnfinishedCasualtiesNotSuccesses() {
        ShrinkTracker t = new ShrinkTracker(PLAN, new Told());
        t.event(shrunk(1, 0, 1, 2)); // rank 3 died, the others went on, then the runtime ended the job
        assertEquals(List.of(0, 1, 2), t.notLeft());
        List<RankExit> exits = t.exits(0);
        assertEquals(List.of(new RankExit(3, "b", ShrinkTracker.DIED_EXIT, false),
                new RankExit(0, "a", ShrinkTracker.UNFINISHED_EXIT, true),
                new RankExit(1, "a", ShrinkTracker.UNFINISHED_EXIT, true),
                new RankExit(2, "b", ShrinkTracker.UNFINISHED_EXIT, true)), exits);
        assertTrue(exits.stream().noneMatch(e -> e.kind() == RankExit.Kind.SUCCESS));
        // one rank that finished means the training ended: a rank whose leave report was lost is not held against it
        t.event(left(0, 0));
        assertEquals(List.of(), t.notLeft());
        assertEquals(new RankExit(2, "b", 0, false), t.exits(0).get(3));
        // a grown world leaving together for a relaunch (a host removal), whose spawned rank (4, on c) cannot report,
        // while PRRTE lost that rank's daemon at the end and exited 0: rank 4 left with the others (seen in two CI
        // rehearsals: once relaunched for a "failure" instead of the host change, once "done" with training unfinished)
        ShrinkTracker grown = new ShrinkTracker(PLAN, new Told());
        grown.event(new ElasticMessage.WorldChanged(1, 1, List.of(0, 1, 2, 3, 4), List.of(),
                List.of(new Joined(4, "c"))));
        for (int r = 0; r < 4; r++) {
            grown.event(left(r, 75));
        }
        assertEquals(List.of(), grown.notLeft());
        assertEquals(new RankExit(4, "c", 75, true), grown.exits(0).get(4));
        assertTrue(grown.exits(0).subList(0, 4).stream().allMatch(e -> e.exitCode() == 75), grown.exits(0)::toString);
        assertTrue(grown.exits(0).stream().noneMatch(e -> e.kind() == RankExit.Kind.SUCCESS), grown.exits(0)::toString);
        // ranks that left with different codes: the unreported one did not finish
        ShrinkTracker mixed = new ShrinkTracker(PLAN, new Told());
        mixed.event(shrunk(1, 0, 1, 2, 3));
        mixed.event(left(0, 75));
        mixed.event(left(1, 1));
        assertEquals(List.of(2, 3), mixed.notLeft());
        assertEquals(new RankExit(2, "b", ShrinkTracker.UNFINISHED_EXIT, true), mixed.exits(0).get(2));
        // a world told to grow that never reported anything: every rank unfinished, nobody blamed
        ShrinkTracker told = new ShrinkTracker(PLAN, new Told());
        assertEquals(List.of(0, 1, 2, 3), told.notLeft());
        assertTrue(told.exits(0).stream().allMatch(e -> e.kind() == RankExit.Kind.CASUALTY));
        // mpirun's own failure code stays what a rank without a leave reports
        assertEquals(new RankExit(0, "a", 143, true), told.exits(143).get(0));
    }

    @Test
    void aRankThatLeftBeforeTheOthersShrankItAwayFailsWithItsOwnCodeNotAsDead() {
        Told told = new Told();
        ShrinkTracker t = new ShrinkTracker(PLAN, told);
        t.event(left(1, 1)); // its body threw: it left with 1, and ULFM then saw its process end
        t.event(shrunk(1, 0, 2, 3));
        assertEquals(List.of(), told.died);
        assertEquals(new RankExit(1, "a", 1, false), t.exits(0).get(1));
    }

    @Test
    void ranksThatDepartOrJoinInPlaceAreNeitherDeadNorForgotten() {
        // the contract issue 25's grow-by-spawn and leave-by-split report on: departed ranks are not failures, joined
        // ones are ranks of the generation on the host the report names
        Told told = new Told();
        ShrinkTracker t = new ShrinkTracker(PLAN, told);
        t.event(new ElasticMessage.WorldChanged(1, 1, List.of(0, 1, 2, 3, 4), List.of(), List.of(new Joined(4, "c"),
                new Joined(1, "z"))));
        assertEquals(List.of("4@c"), told.joined, "the hang watchdog hears of the joined rank, not of the launch's");
        t.event(new ElasticMessage.WorldChanged(1, 2, List.of(0, 1, 4), List.of(2, 3), List.of(new Joined(4, "c"))));
        assertEquals(List.of("4@c"), told.joined, "told once");
        assertEquals(2, t.changesMade(), "a growth and a leave were made");
        t.event(left(2, 75));
        t.event(left(3, 75));
        assertEquals(List.of(), told.died);
        assertTrue(t.changed());
        t.event(new ElasticMessage.WorldChanged(1, 3, List.of(0, 1), List.of(), List.of()));
        assertEquals(List.of("4@c"), told.died);
        assertEquals(2, t.changesMade(), "a shrink is no change made");
        t.event(left(0, 0));
        t.event(left(1, 0));
        assertEquals(1, told.over);
        assertEquals(List.of(new RankExit(4, "c", ShrinkTracker.DIED_EXIT, false), new RankExit(0, "a", 0, false),
                new RankExit(1, "a", 0, false), new RankExit(2, "b", 75, false), new RankExit(3, "b", 75, false)),
                t.exits(0));
    }

    @Test
    void aProcessThatEndedWithoutALeaveIsUnconfirmedUntilTheSurvivorsReportItOrItIsDeclaredDead() {
        Told told = new Told();
        ShrinkTracker t = new ShrinkTracker(PLAN, told);
        t.event(left(1, 0));
        assertFalse(t.processEnded(1), "it left: its process ending is no death");
        assertFalse(t.processEnded(9), "not a rank of the generation");
        assertTrue(t.processEnded(3));
        assertFalse(t.processEnded(3), "told once");
        assertTrue(t.unconfirmed(3));
        assertFalse(t.changed(), "nothing is concluded from the process alone");
        t.event(shrunk(1, 0, 1, 2));
        assertFalse(t.unconfirmed(3), "the survivors reported it dead");
        assertEquals(List.of("3@b"), told.died);

        // a rank split off with its host may end before the report naming it departed arrives
        ShrinkTracker split = new ShrinkTracker(PLAN, new Told());
        assertTrue(split.processEnded(3));
        split.event(new ElasticMessage.WorldChanged(1, 1, List.of(0, 1, 2), List.of(3), List.of()));
        assertFalse(split.unconfirmed(3), "it departed: nothing is stuck");

        Told stuck = new Told();
        ShrinkTracker u = new ShrinkTracker(PLAN, stuck);
        assertTrue(u.processEnded(2));
        u.declareDead(2); // the survivors never reported: the generation ends with rank 2 failed
        assertTrue(u.changed());
        assertEquals(List.of(), stuck.died, "the world did not go on: nobody is told it did");
        List<RankExit> exits = u.exits(143);
        assertEquals(new RankExit(2, "b", ShrinkTracker.DIED_EXIT, false), exits.get(0));
        assertTrue(exits.subList(1, 4).stream().allMatch(RankExit::collateral), exits::toString);
    }

    /**
     * A changed world of 10,000 ranks (issue 23's size), every one leaving: the generation is over exactly at the last
     * leave, whatever the order of deaths, departures, joins and leaves. The tracker keeps a count of ranks not yet
     * accounted for, so an event costs the same at any size (before, each leave walked every rank: 10^8 steps here).
     */
    @Test
    void aChangedWorldOfTenThousandRanksIsOverAtItsLastLeaveAndNotBefore() {
        int n = 10_000;
        HostPlan plan = HostPlan.assign("test", List.of(new HostSlots("a", n / 2), new HostSlots("b", n / 2)), n);
        Told told = new Told();
        ShrinkTracker t = new ShrinkTracker(plan, told);
        List<Integer> members = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            if (r != 7) {
                members.add(r);
            }
        }
        members.add(n); // a rank joins on host c while rank 7 is found dead and rank 9 departs
        members.remove(Integer.valueOf(9));
        t.event(new ElasticMessage.WorldChanged(1, 1, members, List.of(9), List.of(new Joined(n, "c"))));
        assertEquals(List.of("7@a"), told.died);
        t.event(left(9, 75)); // a departed rank's leave changes nothing
        t.event(left(7, 3)); // nor does a dead one's
        for (int r = n; r >= 0; r--) {
            if (r == 7 || r == 9) {
                continue;
            }
            assertFalse(t.over(), "over before rank " + r + " left");
            t.event(left(r, r == 5 ? 0 : 1));
            t.event(left(r, 0)); // a second leave of the same rank counts once
        }
        assertTrue(t.over());
        assertTrue(t.anyFinished(), "rank 5 left with 0");
        assertEquals(1, told.over);
        assertEquals(List.of(), t.notLeft());
    }
}
