package org.troika.launcher.relay;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.troika.rsh.driver.DriverService;
import org.troika.rsh.driver.NicSelector;
import org.troika.rsh.task.NicInventory;
import org.troika.wire.NicAddress;

/**
 * The networks a launch's hosts reach each other on ({@link NicSelector} over the services' interfaces and mutual
 * probes), detected again only when the hosts change; each host is told its own interface names for NCCL.
 *
 * <p>Not thread-safe: one launch at a time asks.
 */
public final class NetworkChoice {
    private final boolean verbose;
    private final PrintStream err;
    private Set<String> detectedFor = Set.of();
    private List<String> detected;

    public NetworkChoice(boolean verbose, PrintStream err) {
        this.verbose = verbose;
        this.err = err;
    }

    /**
     * The CIDRs for mpirun's interface options over {@code hosts} (registered at {@code driver}), or {@code null} to
     * leave the choice to Open MPI: with a single host, or when the launcher has none of the chosen subnets.
     */
    public List<String> choose(DriverService driver, List<String> hosts) throws IOException, InterruptedException {
        if (hosts.size() > 1 && !detectedFor.equals(Set.copyOf(hosts))) {
            detected = detect(driver, hosts);
            detectedFor = Set.copyOf(hosts);
        }
        return hosts.size() > 1 ? detected : null;
    }

    /**
     * The networks {@code hosts} (registered at {@code driver}) can use: their services' interfaces, each probing the
     * others (all-to-all up to 16 hosts, a ring above) within {@code overall}, and this machine's own subnets.
     */
    public static NicSelector.Choice select(DriverService driver, List<String> hosts, Duration overall)
            throws IOException, InterruptedException {
        Set<String> among = new java.util.LinkedHashSet<>(hosts); // looked up per registered host: no list scans
        Map<String, List<NicAddress>> nics = new LinkedHashMap<>();
        driver.hosts().stream().filter(h -> among.contains(h.host())).forEach(h -> nics.put(h.host(), h.nics()));
        return NicSelector.select(nics, driver.probe(among, Duration.ofSeconds(2), overall, 16), NicInventory.local());
    }

    private List<String> detect(DriverService driver, List<String> hosts) throws IOException, InterruptedException {
        NicSelector.Choice c = select(driver, hosts, Duration.ofSeconds(20));
        // each host's own interface names for NCCL: relayed daemons (and their ranks) get them from the task service
        driver.sendNcclInterfaces(c.ifnamesByHost());
        if (verbose) {
            c.reasons().forEach(r -> err.println("troika: network " + r));
            c.ifnamesByHost().forEach((h, n) -> err.println("troika: NCCL_SOCKET_IFNAME on " + h + ": "
                    + String.join(",", n)));
        }
        // CIDRs mean the same on every host; the mpirun planner sets btl and oob includes from them. Only subnets the
        // launcher itself has can go to oob, so use those; if it has none, leave detection's result out.
        if (c.launcherSubnets().isEmpty()) {
            if (!c.empty() && verbose) {
                err.println("troika: network: leaving interface selection to Open MPI (launcher not on " + c.subnets()
                        + ")");
            }
            return null;
        }
        return c.launcherSubnets();
    }
}
