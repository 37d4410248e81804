package org.troika.common;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.RandomAccess;

/**
 * The rank table: where each rank of a by-slot placement runs, and its local and cross ranks. The one Java
 * implementation of this rule (the launcher's host plan and the rank side's {@code RankEnv} both use it);
 * {@code bin/troika-rankenv} computes the same in POSIX sh, and all three are tested against one golden fixture
 * ({@code testkit/src/main/resources/org/troika/testkit/rank-table.golden}).
 *
 * <p>The rule: hosts in order, each with {@code slots} ranks; ranks fill the hosts in order (host 0 gets ranks
 * {@code 0..slots0-1}, and so on). A rank's local rank is its index on its host; its cross rank is the number of hosts
 * before its own that also have a rank with the same local rank, and its cross size the number of hosts that have one.
 *
 * <p>A table holds a few ints per host, not a row per rank: rows are made when asked for (a 10,000-host x 8-slot job
 * has 80,000 ranks; a 500,000-host hostfile four million). The slot counts alone, run-length encoded
 * ({@link Table#layout()}, {@code 8x9999,4}), are what a rank needs to find its row: that string grows with the number
 * of times the slot count changes along the host list, not with the number of hosts.
 */
public final class RankTable {
    private RankTable() {}

    /** One host and how many ranks it runs. */
    public record Host(String name, int slots) {
        public Host {
            if (name == null || name.isEmpty()) {
                throw new IllegalArgumentException("a host needs a name");
            }
            if (slots < 1) {
                throw new IllegalArgumentException("host " + name + " needs at least one slot, got " + slots);
            }
        }
    }

    /**
     * One rank's row.
     *
     * @param host host name ({@code null} in a table made from a layout, which has no names)
     * @param rank global rank
     * @param localRank rank among the ranks on the same host
     * @param crossRank position of this host among the hosts that have a rank with the same local rank
     * @param size world size
     * @param localSize ranks on this host
     * @param crossSize hosts that have a rank with this local rank
     */
    public record Row(String host, int rank, int localRank, int crossRank, int size, int localSize, int crossSize) {}

    /** The table of {@code hosts}: its rows, ordered by rank. */
    public static Table of(List<Host> hosts) {
        int[] slots = new int[hosts.size()];
        String[] names = new String[hosts.size()];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = hosts.get(i).slots();
            names[i] = hosts.get(i).name();
        }
        return new Table(slots, names);
    }

    /**
     * The table of a {@link Table#layout() layout} ({@code S} or {@code SxK} runs, comma-separated: K hosts with S
     * slots each); its rows have no host names.
     *
     * @throws IllegalArgumentException if {@code layout} is not of that form
     */
    public static Table ofLayout(String layout) {
        String[] runs = layout.split(",", -1);
        long hosts = 0;
        long ranks = 0;
        int[][] parsed = new int[runs.length][];
        for (int r = 0; r < runs.length; r++) {
            String run = runs[r].strip();
            int x = run.indexOf('x');
            int s = positive(layout, x < 0 ? run : run.substring(0, x));
            int k = x < 0 ? 1 : positive(layout, run.substring(x + 1));
            parsed[r] = new int[] {s, k};
            hosts += k;
            ranks += (long) s * k;
            if (ranks > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("layout '" + layout + "' has more slots than a job can have");
            }
        }
        int[] slots = new int[(int) hosts];
        int i = 0;
        for (int[] run : parsed) {
            Arrays.fill(slots, i, i + run[1], run[0]);
            i += run[1];
        }
        return new Table(slots, null);
    }

    private static int positive(String layout, String number) {
        try {
            int n = Integer.parseInt(number.strip());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("layout '" + layout + "' is not slots[xhosts],... with whole numbers >= 1");
    }

    /**
     * Row {@code rank} of the table of {@code hosts}.
     *
     * @throws IllegalArgumentException if the hosts have no slot for {@code rank}
     */
    public static Row row(List<Host> hosts, int rank) {
        return of(hosts).row(rank);
    }

    /**
     * The rows of a placement, made on demand from per-host counts. Memory: a few ints per host, plus one int per
     * slot beyond the smallest host's slot count (none when every host has the same count).
     */
    public static final class Table extends AbstractList<Row> implements RandomAccess {
        private final int[] slots;
        private final String[] names;
        /** first[i]: the first rank on host i; first[hosts] = size. */
        private final int[] first;
        /** crossSize[l]: the hosts that have local rank l. */
        private final int[] crossSize;
        private final int minSlots;
        /**
         * For local rank l >= minSlots of host i: the hosts before i that lack local rank l, at extra[extraAt[i] + l -
         * minSlots] (below minSlots every host has the local rank, so the cross rank is the host's index).
         */
        private final int[] extraAt;
        private final int[] extra;

        private Table(int[] slots, String[] names) {
            this.slots = slots;
            this.names = names;
            int h = slots.length;
            first = new int[h + 1];
            long total = 0;
            int max = 0;
            int min = Integer.MAX_VALUE;
            for (int i = 0; i < h; i++) {
                if (slots[i] < 1) {
                    throw new IllegalArgumentException("host " + i + " needs at least one slot, got " + slots[i]);
                }
                first[i] = (int) Math.min(total, Integer.MAX_VALUE);
                total += slots[i];
                max = Math.max(max, slots[i]);
                min = Math.min(min, slots[i]);
            }
            if (total > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("the hosts have " + total + " slots in all, more than a job can have");
            }
            first[h] = (int) total;
            minSlots = h == 0 ? 0 : min;
            // hosts with s slots have local ranks 0..s-1: count hosts per slot count, then sum from the top
            int[] withSlots = new int[max + 1];
            for (int s : slots) {
                withSlots[s]++;
            }
            crossSize = new int[max];
            int have = 0;
            for (int l = max - 1; l >= 0; l--) {
                have += withSlots[l + 1];
                crossSize[l] = have;
            }
            extraAt = new int[h];
            long extras = 0;
            for (int i = 0; i < h; i++) {
                extraAt[i] = (int) extras;
                extras += slots[i] - minSlots;
            }
            extra = new int[(int) extras];
            // lacking[l - minSlots]: the hosts seen so far without local rank l (their slots <= l)
            int[] lacking = new int[Math.max(0, max - minSlots)];
            for (int i = 0; i < h; i++) {
                for (int l = minSlots; l < slots[i]; l++) {
                    extra[extraAt[i] + l - minSlots] = lacking[l - minSlots];
                }
                for (int l = slots[i]; l < max; l++) {
                    lacking[l - minSlots]++;
                }
            }
        }

        /** World size. */
        @Override
        public int size() {
            return first[slots.length];
        }

        @Override
        public Row get(int rank) {
            if (rank < 0 || rank >= size()) {
                throw new IndexOutOfBoundsException("rank " + rank + " of " + size());
            }
            int i = hostIndex(rank);
            int l = rank - first[i];
            int cross = l < minSlots ? i : i - extra[extraAt[i] + l - minSlots];
            return new Row(names == null ? null : names[i], rank, l, cross, size(), slots[i], crossSize[l]);
        }

        /**
         * Row {@code rank}.
         *
         * @throws IllegalArgumentException if the table has no slot for {@code rank}
         */
        public Row row(int rank) {
            if (rank < 0 || rank >= size()) {
                throw new IllegalArgumentException("the hosts have " + size() + " slots but this is rank " + rank);
            }
            return get(rank);
        }

        /** The index of the host that runs {@code rank} (a binary search over the hosts' first ranks). */
        public int hostIndex(int rank) {
            int at = Arrays.binarySearch(first, 0, slots.length, rank); // first ranks are distinct: slots >= 1
            return at >= 0 ? at : -at - 2;
        }

        /** The first rank on host {@code index}. */
        public int firstRank(int index) {
            return first[index];
        }

        /** The number of hosts. */
        public int hosts() {
            return slots.length;
        }

        /**
         * The slot counts in host order, run-length encoded: {@code S} for one host, {@code SxK} for K hosts in a row
         * with S slots, comma-separated ({@code 8x9999,4}).
         */
        public String layout() {
            StringBuilder b = new StringBuilder();
            int i = 0;
            while (i < slots.length) {
                int j = i;
                while (j < slots.length && slots[j] == slots[i]) {
                    j++;
                }
                if (b.length() > 0) {
                    b.append(',');
                }
                b.append(slots[i]);
                if (j - i > 1) {
                    b.append('x').append(j - i);
                }
                i = j;
            }
            return b.toString();
        }
    }
}
