package org.troika.launcher.hosts;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.troika.common.UsageException;
import org.troika.launcher.spi.HostCheck;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.UserText;

/** Parses {@code -H host:slots,host:slots,...}. Pure. Names and slots are checked by {@link HostCheck}. */
public final class HostListParser {
    private HostListParser() {}

    /**
     * Parses a comma-separated list of {@code host:slots} entries.
     *
     * @throws UsageException naming the bad entry and the expected shape
     */
    public static List<HostSlots> parse(String list) {
        if (list == null || list.isBlank()) {
            throw new UsageException("-H needs a list like node1:4,node2:4 (host:slots, comma-separated)");
        }
        List<HostSlots> hosts = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String raw : list.split(",", -1)) {
            String e = raw.strip();
            if (e.isEmpty()) {
                throw new UsageException("-H " + UserText.quote(list)
                        + " has an empty entry (stray comma); write host:slots,host:slots");
            }
            int colon = e.lastIndexOf(':');
            if (colon < 0) {
                throw new UsageException("-H entry " + UserText.quote(e) + " has no slot count; write host:slots, e.g. "
                        + (HostCheck.isValidName(e) ? e : "node1") + ":4");
            }
            String where = "-H entry " + UserText.quote(e);
            String name = HostCheck.name(where, e.substring(0, colon));
            int slots = HostCheck.slots(where, e.substring(colon + 1));
            if (!seen.add(name)) {
                throw new UsageException("-H lists host '" + name + "' twice; give each host once with its total slots");
            }
            hosts.add(new HostSlots(name, slots));
        }
        return HostCheck.total("-H", hosts);
    }
}
