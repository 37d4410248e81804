package org.troika.launcher.elastic;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.troika.common.UsageException;
import org.troika.launcher.spi.HostSlots;

/**
 * A fixed host list ({@code -H} or a hostfile) in elastic mode: no scaling, but failed hosts are blacklisted and
 * the job goes on with the others (and takes a host back when its cooldown ends).
 */
public final class FixedHostDiscovery implements HostDiscovery {
    private final List<HostSlots> hosts;

    /**
     * @throws UsageException if fewer than two hosts are given (one failed host would end the job anyway) or a
     *     host is listed twice
     */
    public FixedHostDiscovery(List<HostSlots> hosts) {
        this.hosts = List.copyOf(hosts);
        if (this.hosts.size() < 2) {
            throw new UsageException("elastic mode with a fixed host list needs at least 2 hosts, got "
                    + this.hosts.size() + "; list more hosts with -H or use --host-discovery-script");
        }
        Set<String> seen = new HashSet<>();
        for (HostSlots h : this.hosts) {
            if (!seen.add(h.name())) {
                throw new UsageException("host '" + h.name() + "' is listed twice; give each host once");
            }
        }
    }

    @Override
    public Found discoverAll() {
        return new Found(hosts, List.of());
    }
}
