package org.troika.wire;

/**
 * One address of one network interface on a host, as a task service reports it.
 *
 * @param ifname interface name on that host ({@code eth0}, {@code ens3}); names may differ between hosts
 * @param address IP literal
 * @param prefixLength network prefix length (24 for a /24)
 * @param loopback whether the interface is a loopback interface
 */
public record NicAddress(String ifname, String address, int prefixLength, boolean loopback) {}
