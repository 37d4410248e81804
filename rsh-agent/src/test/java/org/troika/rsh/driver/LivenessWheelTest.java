package org.troika.rsh.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LivenessWheelTest {
    @Test
    void anItemIsHandedOverOnceItsSlotEndedAndNotBefore() {
        LivenessWheel<String> w = new LivenessWheel<>(100, 1_000, 0);
        w.add("a", 250); // slot [200, 300)
        List<String> got = new ArrayList<>();
        w.advance(299, got::add);
        assertEquals(List.of(), got, "handed over before its slot ended");
        w.advance(300, got::add);
        assertEquals(List.of("a"), got);
        w.advance(10_000, got::add);
        assertEquals(List.of("a"), got, "handed over twice");
    }

    @Test
    void aMomentAlreadyPassedGoesInTheNextSlotAndTheHandlerMayScheduleAgain() {
        LivenessWheel<String> w = new LivenessWheel<>(100, 1_000, 0);
        w.add("a", 50);
        List<String> got = new ArrayList<>();
        w.advance(100, item -> {
            got.add(item);
            w.add(item, 0); // in the past: the next slot, [100, 200)
        });
        assertEquals(List.of("a"), got, "the item scheduled again by its handler was handed over in the same advance");
        w.advance(199, got::add);
        assertEquals(List.of("a"), got);
        w.advance(200, got::add);
        assertEquals(List.of("a", "a"), got);
    }

    @Test
    void itemsFartherThanTheSpanAndALateAdvanceLoseNothing() {
        LivenessWheel<Integer> w = new LivenessWheel<>(10, 30, 0);
        for (int i = 0; i < 1_000; i++) {
            w.add(i, i * 7L); // up to 70 times the span ahead: the ring grows
        }
        assertEquals(1_000, w.size());
        List<Integer> got = new ArrayList<>();
        w.advance(7_000 + 10, got::add); // one advance, long after all of them
        assertEquals(1_000, got.size());
        for (int i = 1; i < got.size(); i++) {
            assertTrue(got.get(i - 1) < got.get(i), "out of slot order at " + i);
        }
    }

    @Test
    void matchesADirectScanOnRandomSchedules() {
        Random r = new Random(11);
        long width = 250;
        LivenessWheel<Integer> w = new LivenessWheel<>(width, 5_000, 0);
        Map<Integer, Long> slotOf = new HashMap<>(); // the slot each item must be handed over after
        long now = 0;
        long handedBelow = 0; // slots below this index were handed over by the last advance
        int nextItem = 0;
        for (int step = 0; step < 5_000; step++) {
            now += r.nextInt(400);
            for (int k = r.nextInt(4); k > 0; k--) {
                long at = now + r.nextInt(6_000) - 500;
                w.add(nextItem, at);
                slotOf.put(nextItem++, Math.max(Math.floorDiv(at, width), handedBelow));
            }
            List<Integer> handed = new ArrayList<>();
            w.advance(now, handed::add);
            handedBelow = Math.max(handedBelow, Math.floorDiv(now, width));
            for (Integer item : handed) {
                assertTrue(slotOf.remove(item) < handedBelow, "item " + item + " handed over before its slot ended");
            }
            for (Map.Entry<Integer, Long> e : slotOf.entrySet()) {
                assertTrue(e.getValue() >= handedBelow, "item " + e.getKey() + " not handed over after its slot");
            }
            assertEquals(slotOf.size(), w.size());
        }
    }
}
