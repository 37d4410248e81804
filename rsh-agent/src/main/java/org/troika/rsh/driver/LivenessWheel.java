package org.troika.rsh.driver;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Items due at moments on one clock (nanoseconds), kept in slots of a fixed width on a ring: scheduling is O(1), and
 * {@link #advance} hands over only the items whose slot has passed, so a caller that checks thousands of items once
 * per timeout pays per item due, not per item per tick. The driver's liveness thread keeps every host's silence check
 * on one. Not thread-safe: one thread schedules and advances (the handler may schedule again).
 *
 * @param <T> the items
 */
final class LivenessWheel<T> {
    private final long width;
    private List<List<T>> slots;
    /** Index ({@code moment / width}) of the first slot not yet handed over. */
    private long next;
    private List<T> spare = new ArrayList<>();

    /**
     * @param width each slot's width in nanoseconds
     * @param span how far ahead of the present items are usually scheduled (the ring grows if one goes further)
     * @param now the present
     */
    LivenessWheel(long width, long span, long now) {
        if (width <= 0 || span < 0) {
            throw new IllegalArgumentException("slot width " + width + " and span " + span);
        }
        this.width = width;
        this.slots = ring((int) Math.min(1 << 20, span / width + 3));
        this.next = Math.floorDiv(now, width);
    }

    private static <T> List<List<T>> ring(int n) {
        List<List<T>> r = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            r.add(new ArrayList<>());
        }
        return r;
    }

    /** Schedules {@code item} for moment {@code at}; a moment whose slot was handed over already goes in the next one. */
    void add(T item, long at) {
        long index = Math.max(Math.floorDiv(at, width), next);
        while (index - next >= slots.size()) {
            grow();
        }
        slots.get(Math.floorMod(index, slots.size())).add(item);
    }

    /** Hands {@code due} every item of the slots that ended by {@code now}, in slot order. */
    void advance(long now, Consumer<? super T> due) {
        long end = Math.floorDiv(now, width); // slots below this one have ended
        while (next < end) {
            int at = Math.floorMod(next, slots.size());
            List<T> slot = slots.get(at);
            slots.set(at, spare); // what the handler schedules lands in later slots, never in the one being handed over
            next++;
            for (T item : slot) {
                due.accept(item);
            }
            slot.clear();
            spare = slot;
        }
    }

    /** How many items are scheduled. */
    int size() {
        int n = 0;
        for (List<T> s : slots) {
            n += s.size();
        }
        return n;
    }

    private void grow() {
        List<List<T>> bigger = ring(slots.size() * 2);
        for (long i = next; i < next + slots.size(); i++) {
            bigger.set(Math.floorMod(i, bigger.size()), slots.get(Math.floorMod(i, slots.size())));
        }
        slots = bigger;
    }
}
