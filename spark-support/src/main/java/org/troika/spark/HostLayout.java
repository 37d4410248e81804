package org.troika.spark;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.troika.launcher.spi.HostSlots;

/**
 * Which hosts mpirun gets and which task runs each host's task service (pure).
 *
 * <p>Hosts are the distinct host hashes ordered by their lowest task index, each with as many slots as tasks share
 * that hash; the task service of a host runs in its lowest-index task. Ranks fill the hosts in this order.
 *
 * @param hosts host hashes with slots, in rank order
 * @param serviceTask per host hash, the task index that runs its task service
 */
public record HostLayout(List<HostSlots> hosts, Map<String, Integer> serviceTask) {
    public HostLayout {
        hosts = List.copyOf(hosts);
        serviceTask = Map.copyOf(serviceTask);
    }

    /** The layout of tasks {@code 0..n-1} given each task's host hash. */
    public static HostLayout of(Map<Integer, String> hostHashByTask) {
        Map<String, Integer> first = new LinkedHashMap<>();
        Map<String, Integer> count = new LinkedHashMap<>();
        for (Map.Entry<Integer, String> e : new TreeMap<>(hostHashByTask).entrySet()) {
            first.putIfAbsent(e.getValue(), e.getKey());
            count.merge(e.getValue(), 1, Integer::sum);
        }
        List<HostSlots> hosts = new ArrayList<>();
        first.keySet().forEach(h -> hosts.add(new HostSlots(h, count.get(h))));
        return new HostLayout(hosts, first);
    }

    public List<String> hostNames() {
        return hosts.stream().map(HostSlots::name).toList();
    }

    /** The host a task runs the service of, or {@code ""} when it runs none. */
    public String serviceHostOf(int task) {
        for (Map.Entry<String, Integer> e : serviceTask.entrySet()) {
            if (e.getValue() == task) {
                return e.getKey();
            }
        }
        return "";
    }
}
