package org.troika.rsh.driver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.troika.wire.NicAddress;

/**
 * Picks the networks an MPI job should use, from what each task service reported and what the probes reached (pure).
 *
 * <p>Rules: networks are matched by <b>subnet</b> (interface names may differ between hosts: eth0 here, ens3 there);
 * a subnet is kept only if every host has an address in it and every probe between two hosts reached the peer's
 * address in it, answered by that peer (a decoy such as docker0 with the same address on every host answers as the
 * prober itself and is dropped); loopback is never chosen for a multi-host job. Open MPI gets CIDRs, which mean the
 * same thing on every host, NCCL gets each host's interface names.
 */
public final class NicSelector {
    private NicSelector() {}

    /**
     * The choice.
     *
     * @param subnets chosen subnets as CIDR ({@code 10.200.0.0/24}), in the first host's interface order
     * @param ifnamesByHost per host, its interface names in those subnets ({@code NCCL_SOCKET_IFNAME})
     * @param launcherSubnets the chosen subnets the launcher (mpirun's host) also has: usable for {@code oob_tcp_if_include}
     * @param reasons one line per decision, for {@code --verbose}
     */
    public record Choice(List<String> subnets, Map<String, List<String>> ifnamesByHost, List<String> launcherSubnets,
            List<String> reasons) {
        public Choice {
            subnets = List.copyOf(subnets);
            ifnamesByHost = Map.copyOf(ifnamesByHost);
            launcherSubnets = List.copyOf(launcherSubnets);
            reasons = List.copyOf(reasons);
        }

        public boolean empty() {
            return subnets.isEmpty();
        }
    }

    /**
     * @param nics per host (in host order), the addresses its task service reported
     * @param probes per prober, per peer, the peer addresses that answered as that peer (pairs not probed are not checked)
     * @param launcherNics the launcher's own addresses
     */
    public static Choice select(Map<String, List<NicAddress>> nics, Map<String, Map<String, List<String>>> probes,
            List<NicAddress> launcherNics) {
        List<String> reasons = new ArrayList<>();
        if (nics.size() < 2) {
            reasons.add("single host: no network selection needed");
            return new Choice(List.of(), Map.of(), List.of(), reasons);
        }
        Set<String> candidates = new LinkedHashSet<>();
        for (List<NicAddress> l : nics.values()) {
            for (NicAddress n : l) {
                if (!n.loopback() && cidr(n) != null) {
                    candidates.add(cidr(n));
                }
            }
        }
        List<String> chosen = new ArrayList<>();
        for (String subnet : candidates) {
            String why = rejection(subnet, nics, probes);
            if (why == null) {
                chosen.add(subnet);
                reasons.add(subnet + ": chosen (on every host, every probe answered by the right host)");
            } else {
                reasons.add(subnet + ": not used, " + why);
            }
        }
        Map<String, List<String>> ifnames = new LinkedHashMap<>();
        for (Map.Entry<String, List<NicAddress>> h : nics.entrySet()) {
            Set<String> names = new LinkedHashSet<>();
            for (NicAddress n : h.getValue()) {
                if (!n.loopback() && chosen.contains(cidr(n))) {
                    names.add(n.ifname());
                }
            }
            ifnames.put(h.getKey(), List.copyOf(names));
        }
        List<String> launcher = new ArrayList<>();
        for (String subnet : chosen) {
            if (launcherNics.stream().anyMatch(n -> subnet.equals(cidr(n)))) {
                launcher.add(subnet);
            }
        }
        if (chosen.isEmpty()) {
            reasons.add("no network is routable between all hosts");
        } else if (launcher.isEmpty()) {
            reasons.add("the launcher has no address in " + String.join(",", chosen)
                    + ": oob_tcp_if_include is left unset (daemons pick their own wire-up network)");
        }
        return new Choice(chosen, ifnames, launcher, reasons);
    }

    private static String rejection(String subnet, Map<String, List<NicAddress>> nics,
            Map<String, Map<String, List<String>>> probes) {
        for (Map.Entry<String, List<NicAddress>> h : nics.entrySet()) {
            if (addressIn(h.getValue(), subnet) == null) {
                return "host " + h.getKey() + " has no address in it";
            }
        }
        // host order, so the reason names the first failing pair deterministically
        for (String prober : nics.keySet()) {
            Map<String, List<String>> reached = probes.getOrDefault(prober, Map.of());
            for (String peer : nics.keySet()) {
                if (!reached.containsKey(peer)) {
                    continue;
                }
                String target = addressIn(nics.get(peer), subnet);
                if (!reached.get(peer).contains(target)) {
                    return prober + " could not reach " + peer + " at " + target;
                }
            }
        }
        return null;
    }

    private static String addressIn(List<NicAddress> nics, String subnet) {
        for (NicAddress n : nics) {
            if (!n.loopback() && subnet.equals(cidr(n))) {
                return n.address();
            }
        }
        return null;
    }

    /** {@code a.b.c.d/p} of an IPv4 address's network, or {@code null} for anything else. */
    static String cidr(NicAddress n) {
        String[] p = n.address().split("\\.");
        if (p.length != 4 || n.prefixLength() < 0 || n.prefixLength() > 32) {
            return null;
        }
        long ip = 0;
        for (String part : p) {
            int v;
            try {
                v = Integer.parseInt(part);
            } catch (NumberFormatException e) {
                return null;
            }
            if (v < 0 || v > 255) {
                return null;
            }
            ip = (ip << 8) | v;
        }
        long mask = n.prefixLength() == 0 ? 0 : (0xffffffffL << (32 - n.prefixLength())) & 0xffffffffL;
        long net = ip & mask;
        return (net >>> 24) + "." + ((net >>> 16) & 255) + "." + ((net >>> 8) & 255) + "." + (net & 255) + "/"
                + n.prefixLength();
    }
}
