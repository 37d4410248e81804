package org.troika.launcher.spi;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.RandomAccess;
import org.troika.common.RankTable;

/**
 * The hosts a launch uses, in rank order, each with the number of ranks it runs, and the rank table (computed by
 * {@link RankTable}, the one implementation of the rule; a few ints per host, rows made when asked for).
 *
 * @param source where the hosts came from, for humans ({@code "-H"}, {@code "hostfile /x"}, {@code "slurm job 42"}, ...)
 * @param hosts hosts in order with the slots actually used (every entry has at least one rank)
 * @param table the rank table of {@code hosts}
 * @param spares hosts that get the MPI's daemon and no rank (an elastic job's standby hosts on Open MPI 5, whose ranks
 *     grow onto them in place: {@code -H host:0}), none of them in {@code hosts}; empty for every other launch
 */
public record HostPlan(String source, List<HostSlots> hosts, RankTable.Table table, List<String> spares) {
    public HostPlan {
        hosts = List.copyOf(hosts);
        spares = List.copyOf(spares);
    }

    /** A plan without spare hosts. */
    public HostPlan(String source, List<HostSlots> hosts, RankTable.Table table) {
        this(source, hosts, table, List.of());
    }

    /** This plan with {@code spares} as its spare hosts (daemons, no ranks). */
    public HostPlan withSpares(List<String> spares) {
        return new HostPlan(source, hosts, table, spares);
    }

    /**
     * This plan with {@code perHost} more ranks on each of {@code standby} (hosts not in it), after its own ranks; they
     * are no spare hosts any more (the other spares stay): the launch of a generation with standby ranks ({@code
     * --standby-ranks N}), whose ranks from this plan's size up wait outside the world.
     */
    public HostPlan withStandbyRanks(List<String> standby, int perHost) {
        List<HostSlots> all = new ArrayList<>(hosts);
        List<RankTable.Host> table = new ArrayList<>(hosts.size() + standby.size());
        for (HostSlots h : hosts) {
            table.add(new RankTable.Host(h.name(), h.slots()));
        }
        for (String h : standby) {
            all.add(new HostSlots(h, perHost));
            table.add(new RankTable.Host(h, perHost));
        }
        java.util.Set<String> ranked = java.util.Set.copyOf(standby);
        return new HostPlan(source, all, RankTable.of(table), spares.stream().filter(h -> !ranked.contains(h)).toList());
    }

    /** World size. */
    public int size() {
        return table.size();
    }

    /** The rank table, ordered by rank (each row made when asked for). */
    public List<SlotInfo> slots() {
        return new Slots(table);
    }

    /** {@code host:slots,...} in order, the {@code -H} form (without the spares). */
    public String hostList() {
        StringBuilder b = new StringBuilder(hosts.size() * 12);
        for (HostSlots h : hosts) {
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(h.name()).append(':').append(h.slots());
        }
        return b.toString();
    }

    /** The hosts' slot counts in order, run-length encoded ({@link RankTable.Table#layout()}: {@code 8x9999,4}). */
    public String layout() {
        return table.layout();
    }

    /** Host names in order. */
    public List<String> hostNames() {
        return hosts.stream().map(HostSlots::name).toList();
    }

    /** The ranks host {@code index} runs: {@code firstRank(index)} up to {@code firstRank(index) + slots - 1}. */
    public int firstRank(int index) {
        return table.firstRank(index);
    }

    /**
     * Assigns ranks to the first {@code np} slots of {@code available}, walking hosts in order and each host's
     * slots in order. Hosts that get no rank are left out of the plan.
     *
     * @throws IllegalArgumentException if {@code np} exceeds the available slots or is below 1
     */
    public static HostPlan assign(String source, List<HostSlots> available, int np) {
        long total = available.stream().mapToLong(HostSlots::slots).sum();
        if (np < 1) {
            throw new IllegalArgumentException("the number of processes must be at least 1, got " + np);
        }
        if (np > total) {
            throw new IllegalArgumentException("-np " + np + " is more than the " + total + " slots of " + source);
        }
        List<HostSlots> used = new ArrayList<>();
        List<RankTable.Host> tableHosts = new ArrayList<>();
        int left = np;
        for (HostSlots h : available) {
            if (left == 0) {
                break;
            }
            int n = Math.min(left, h.slots());
            used.add(h.slots() == n ? h : h.withSlots(n));
            tableHosts.add(new RankTable.Host(h.name(), n));
            left -= n;
        }
        return new HostPlan(source, used, RankTable.of(tableHosts));
    }

    /** The rank table as {@link SlotInfo} rows. */
    private static final class Slots extends AbstractList<SlotInfo> implements RandomAccess {
        private final RankTable.Table table;

        Slots(RankTable.Table table) {
            this.table = table;
        }

        @Override
        public SlotInfo get(int rank) {
            RankTable.Row r = table.get(rank);
            return new SlotInfo(r.host(), r.rank(), r.localRank(), r.crossRank(), r.size(), r.localSize(),
                    r.crossSize());
        }

        @Override
        public int size() {
            return table.size();
        }
    }
}
