package org.troika.rsh.task;

import java.net.Inet4Address;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.troika.wire.NicAddress;

/** The IPv4 addresses of this host's interfaces that are up, as the task service reports them. */
public final class NicInventory {
    private NicInventory() {}

    public static List<NicAddress> local() {
        List<NicAddress> out = new ArrayList<>();
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nic.isUp()) {
                    continue;
                }
                for (InterfaceAddress a : nic.getInterfaceAddresses()) {
                    if (a.getAddress() instanceof Inet4Address) {
                        out.add(new NicAddress(nic.getName(), a.getAddress().getHostAddress(), a.getNetworkPrefixLength(),
                                nic.isLoopback()));
                    }
                }
            }
        } catch (SocketException e) {
            // no interfaces readable: report none; detection then falls back to the driver-facing address
        }
        return List.copyOf(out);
    }
}
