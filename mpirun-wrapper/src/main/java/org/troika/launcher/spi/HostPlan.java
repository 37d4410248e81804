package org.troika.launcher.spi;

import java.util.ArrayList;
import java.util.List;
import org.troika.common.RankTable;

/**
 * The hosts a launch uses, in rank order, each with the number of ranks it runs, and the rank table (computed by
 * {@link RankTable}, the one implementation of the rule).
 *
 * @param source where the hosts came from, for humans ({@code "-H"}, {@code "hostfile /x"}, {@code "slurm job 42"}, ...)
 * @param hosts hosts in order with the slots actually used (every entry has at least one rank)
 * @param slots the rank table, ordered by rank
 */
public record HostPlan(String source, List<HostSlots> hosts, List<SlotInfo> slots) {
    public HostPlan {
        hosts = List.copyOf(hosts);
        slots = List.copyOf(slots);
    }

    /** World size. */
    public int size() {
        return slots.size();
    }

    /** {@code host:slots,...} in order, the {@code -H} form. */
    public String hostList() {
        List<String> parts = new ArrayList<>();
        for (HostSlots h : hosts) {
            parts.add(h.toString());
        }
        return String.join(",", parts);
    }

    /** Host names in order. */
    public List<String> hostNames() {
        return hosts.stream().map(HostSlots::name).toList();
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
        int left = np;
        for (HostSlots h : available) {
            if (left == 0) {
                break;
            }
            int n = Math.min(left, h.slots());
            used.add(h.slots() == n ? h : h.withSlots(n));
            left -= n;
        }
        List<RankTable.Host> tableHosts = new ArrayList<>(used.size());
        for (HostSlots h : used) {
            tableHosts.add(new RankTable.Host(h.name(), h.slots()));
        }
        List<SlotInfo> table = new ArrayList<>(np);
        for (RankTable.Row r : RankTable.of(tableHosts)) {
            table.add(new SlotInfo(r.host(), r.rank(), r.localRank(), r.crossRank(), r.size(), r.localSize(),
                    r.crossSize()));
        }
        return new HostPlan(source, used, table);
    }
}
