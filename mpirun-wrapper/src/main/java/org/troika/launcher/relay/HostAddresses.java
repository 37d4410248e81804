package org.troika.launcher.relay;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.troika.common.UsageException;
import org.troika.launcher.spi.HostPlan;

/** Which hosts are remote, their addresses, and the local address that routes to each (no packet is sent). */
public final class HostAddresses {
    private HostAddresses() {}

    /** The hosts of {@code plan} that are not this machine (pure apart from reading the local hostname). */
    public static List<String> remoteHosts(HostPlan plan) {
        return remoteHosts(plan.hostNames());
    }

    /** The host words of {@code hosts} that are not this machine, in order, each once. */
    public static List<String> remoteHosts(Collection<String> hosts) {
        Set<String> local = localNames();
        return hosts.stream().filter(h -> !local.contains(h)).distinct().toList();
    }

    /** The names this machine goes by: the loopback ones and its host name, in full and short (one name lookup). */
    private static Set<String> localNames() {
        Set<String> local = new LinkedHashSet<>(List.of("localhost", "127.0.0.1", "::1"));
        try {
            InetAddress me = InetAddress.getLocalHost();
            local.add(me.getHostName());
            local.add(me.getHostName().split("\\.")[0]);
        } catch (IOException ignored) {
            // no local name
        }
        return local;
    }

    /** {@code host}'s address, or a one-line usage error naming it and the fix. */
    public static InetAddress resolve(String host) {
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new UsageException("host '" + host + "' does not resolve to an address on this machine (DNS or "
                    + "/etc/hosts); name the hosts as this machine knows them, or by IP address");
        }
    }

    /**
     * The local address a launcher service that ranks on every one of {@code hosts} must reach binds to (the worker
     * notifier, the progress service): the one that routes to the first host that is not this machine, loopback when
     * every host is this machine or resolves to a loopback address (no packet is sent). This machine is often the
     * first host (the batch host of an allocation), and its name often resolves to a loopback address (Debian's
     * {@code 127.0.1.1 HOSTNAME}): a service bound by the route to it would be out of reach of every other host.
     *
     * Every host is resolved (an unknown name is an error before anything starts); this machine's own name is looked
     * up only when some host has an address that is not loopback (4 ms here, seconds where DNS is slow).
     *
     * @throws UsageException naming the first host whose name does not resolve, and the fix
     */
    public static InetAddress routeTo(List<String> hosts) throws IOException {
        Set<String> local = null; // looked up at the first host with an outward address: a plain local run never does
        InetAddress first = null;
        for (String h : hosts) {
            InetAddress a = resolve(h);
            if (first == null && !a.isLoopbackAddress()) {
                if (local == null) {
                    local = localNames();
                }
                if (!local.contains(h)) {
                    first = a;
                }
            }
        }
        return first == null ? InetAddress.getLoopbackAddress() : routeTo(first);
    }

    /** The local address that routes to {@code host} (loopback for a loopback host). */
    public static InetAddress routeTo(String host) throws IOException {
        return routeTo(resolve(host));
    }

    private static InetAddress routeTo(InetAddress target) throws IOException {
        if (target.isLoopbackAddress()) {
            return InetAddress.getLoopbackAddress();
        }
        try (DatagramSocket probe = new DatagramSocket()) {
            probe.connect(target, 9);
            return probe.getLocalAddress();
        }
    }
}
