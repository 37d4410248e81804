package org.troika.common;

import java.util.ArrayList;
import java.util.List;

/**
 * The rank table: where each rank of a by-slot placement runs, and its local and cross ranks. The one Java
 * implementation of this rule (the launcher's host plan and the rank side's {@code RankEnv} both use it);
 * {@code bin/troika-rankenv} computes the same in POSIX sh, and all three are tested against one golden fixture
 * ({@code testkit/src/main/resources/org/troika/testkit/rank-table.golden}).
 *
 * <p>The rule: hosts in order, each with {@code slots} ranks; ranks fill the hosts in order (host 0 gets ranks
 * {@code 0..slots0-1}, and so on). A rank's local rank is its index on its host; its cross rank is the number of hosts
 * before its own that also have a rank with the same local rank, and its cross size the number of hosts that have one.
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
     * @param host host name
     * @param rank global rank
     * @param localRank rank among the ranks on the same host
     * @param crossRank position of this host among the hosts that have a rank with the same local rank
     * @param size world size
     * @param localSize ranks on this host
     * @param crossSize hosts that have a rank with this local rank
     */
    public record Row(String host, int rank, int localRank, int crossRank, int size, int localSize, int crossSize) {}

    /** The rows of every rank, ordered by rank. */
    public static List<Row> of(List<Host> hosts) {
        long total = 0;
        int maxSlots = 0;
        for (Host h : hosts) {
            total += h.slots();
            maxSlots = Math.max(maxSlots, h.slots());
        }
        if (total > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("the hosts have " + total + " slots in all, more than a job can have");
        }
        int size = (int) total;
        int[] crossSize = new int[maxSlots];
        for (Host h : hosts) {
            for (int l = 0; l < h.slots(); l++) {
                crossSize[l]++;
            }
        }
        int[] nextCross = new int[maxSlots];
        List<Row> rows = new ArrayList<>(size);
        int rank = 0;
        for (Host h : hosts) {
            for (int l = 0; l < h.slots(); l++) {
                rows.add(new Row(h.name(), rank++, l, nextCross[l]++, size, h.slots(), crossSize[l]));
            }
        }
        return rows;
    }

    /**
     * Row {@code rank} of the table of {@code hosts}.
     *
     * @throws IllegalArgumentException if the hosts have no slot for {@code rank}
     */
    public static Row row(List<Host> hosts, int rank) {
        List<Row> rows = of(hosts);
        if (rank < 0 || rank >= rows.size()) {
            throw new IllegalArgumentException("the hosts have " + rows.size() + " slots but this is rank " + rank);
        }
        return rows.get(rank);
    }
}
