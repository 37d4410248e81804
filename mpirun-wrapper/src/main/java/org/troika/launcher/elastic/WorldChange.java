package org.troika.launcher.elastic;

import java.util.List;
import java.util.Objects;

/**
 * A change of a running generation's world in place (issue 25; {@link World#toward}): the ranks with ids in
 * {@code leave} leave, then the standby ranks of {@code activate} join (a launch with {@code --standby-ranks}), then
 * {@code join}'s ranks are spawned onto their hosts with ids from {@code firstJoinId} up.
 *
 * @param target the world once the change is made
 */
public record WorldChange(List<Integer> leave, List<Join> join, int firstJoinId, World target,
        List<Activate> activate) {
    /** The standby rank with id {@code id} (its launch rank), waiting on {@code host}, joins. */
    public record Activate(String host, int id) {
        public Activate {
            Objects.requireNonNull(host, "host");
        }
    }

    /** A change that activates no standby rank. */
    public WorldChange(List<Integer> leave, List<Join> join, int firstJoinId, World target) {
        this(leave, join, firstJoinId, target, List.of());
    }

    /** {@code count} ranks spawned onto {@code host} (a host new to the world, or next to its ranks there). */
    public record Join(String host, int count) {
        public Join {
            Objects.requireNonNull(host, "host");
            if (count < 1) {
                throw new IllegalArgumentException("a host joins with at least one rank, not " + count);
            }
        }
    }

    public WorldChange {
        leave = List.copyOf(leave);
        join = List.copyOf(join);
        activate = List.copyOf(activate);
        Objects.requireNonNull(target, "target");
    }

    /**
     * {@code waiting} (each standby host's waiting rank ids, {@link World#toward(List, World.InPlace, java.util.Map)})
     * without the ranks this change activates; hosts left with none are dropped.
     */
    public java.util.Map<String, List<Integer>> waitingAfter(java.util.Map<String, List<Integer>> waiting) {
        java.util.Set<Integer> taken = new java.util.HashSet<>();
        activate.forEach(a -> taken.add(a.id()));
        java.util.Map<String, List<Integer>> rest = new java.util.LinkedHashMap<>();
        waiting.forEach((host, ids) -> {
            List<Integer> left = ids.stream().filter(id -> !taken.contains(id)).toList();
            if (!left.isEmpty()) {
                rest.put(host, left);
            }
        });
        return java.util.Map.copyOf(rest);
    }

    /** Whether nobody leaves or joins (the world already is the target). */
    public boolean isEmpty() {
        return leave.isEmpty() && join.isEmpty() && activate.isEmpty();
    }

    /** The hosts that join: the standby ranks' first, then the spawned ranks'. */
    public List<String> joiningHosts() {
        List<String> hosts = new java.util.ArrayList<>(activate.stream().map(Activate::host).toList());
        join.forEach(j -> hosts.add(j.host()));
        return hosts;
    }

    /** For messages: {@code 2 ranks leave (hosts b), 2 join on c:2}. */
    public String describe(World before) {
        StringBuilder b = new StringBuilder();
        if (!leave.isEmpty()) {
            List<String> hosts = before.members().stream().filter(m -> leave.contains(m.id())).map(World.Member::host)
                    .distinct().toList();
            b.append(leave.size()).append(leave.size() == 1 ? " rank leaves" : " ranks leave").append(" (")
                    .append(String.join(",", hosts)).append(")");
        }
        if (!activate.isEmpty()) {
            if (b.length() > 0) {
                b.append(", ");
            }
            b.append(activate.size()).append(activate.size() == 1 ? " standby rank joins on " : " standby ranks join on ")
                    .append(String.join(",", activate.stream().map(Activate::host).toList()));
        }
        if (!join.isEmpty()) {
            if (b.length() > 0) {
                b.append(", ");
            }
            int n = join.stream().mapToInt(Join::count).sum();
            b.append(n).append(n == 1 ? " rank joins on " : " ranks join on ").append(String.join(",",
                    join.stream().map(j -> j.host() + ":" + j.count()).toList()));
        }
        return b.toString();
    }
}
