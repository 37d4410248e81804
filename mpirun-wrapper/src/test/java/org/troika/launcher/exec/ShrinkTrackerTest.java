package org.troika.launcher.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.troika.launcher.elastic.RankExit;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;

class ShrinkTrackerTest {
    static final HostPlan PLAN = HostPlan.assign("test", List.of(new HostSlots("a", 2), new HostSlots("b", 2)), 4);

    @Test
    void deadRanksAreReportedOnceAndEveryLeaveEndsTheGeneration() {
        ShrinkTracker t = new ShrinkTracker(PLAN);
        assertEquals(List.of(), t.accept("[1,0]<stdout>: committed step=5 size=4"));
        assertFalse(t.shrunk());
        // PRRTE's tag, as troika's launcher sees the survivors' lines
        assertEquals(List.of(3), t.accept("[1,0]<stderr>: troika elastic: ranks 3 failed; 3 of 4 go on"));
        assertEquals(List.of(), t.accept("[1,0]<stderr>: troika elastic: ranks 3 failed; 3 of 4 go on"));
        assertTrue(t.shrunk());
        t.accept("[1,1]<stderr>: troika elastic: rank 1 leaves with code 0");
        assertEquals(List.of(2), t.accept("[1,1]<stderr>: troika elastic: ranks 3,2 failed; 2 of 3 go on"));
        assertFalse(t.over());
        t.accept("[1,0]<stderr>: troika elastic: rank 0 leaves with code 0");
        assertTrue(t.over());
        List<RankExit> exits = t.exits(0);
        assertEquals(List.of(new RankExit(2, "b", ShrinkTracker.DIED_EXIT, false),
                new RankExit(3, "b", ShrinkTracker.DIED_EXIT, false), new RankExit(0, "a", 0, false),
                new RankExit(1, "a", 0, false)), exits);
    }

    @Test
    void survivorsBelowMinNpLeaveAsCasualtiesAndTheDeadRankFails() {
        ShrinkTracker t = new ShrinkTracker(PLAN);
        t.accept("troika elastic: ranks 1 failed; 3 of 4 go on");
        for (int r : new int[] {0, 2, 3}) {
            t.accept("[1," + r + "]<stderr>: troika elastic: rank " + r + " leaves with code 76");
        }
        assertTrue(t.over());
        List<RankExit> exits = t.exits(137);
        assertEquals(RankExit.Kind.FAILURE, exits.get(0).kind());
        assertEquals("a", exits.get(0).host());
        assertEquals(1, exits.stream().filter(e -> e.kind() == RankExit.Kind.FAILURE).count());
    }

    @Test
    void aRankThatSaidNothingEndsAsMpirunDidAndRanksOutsideTheWorldAreIgnored() {
        ShrinkTracker t = new ShrinkTracker(PLAN);
        t.accept("troika elastic: ranks 9,3 failed; 3 of 4 go on");
        t.accept("troika elastic: rank 7 leaves with code 0");
        assertFalse(t.over());
        List<RankExit> exits = t.exits(143);
        assertEquals(new RankExit(3, "b", ShrinkTracker.DIED_EXIT, false), exits.get(0));
        assertTrue(exits.subList(1, 4).stream().allMatch(RankExit::collateral), exits::toString);
    }
}
