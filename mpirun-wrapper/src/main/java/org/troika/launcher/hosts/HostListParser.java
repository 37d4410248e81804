package org.troika.launcher.hosts;

import org.troika.launcher.spi.HostSlots;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.troika.common.UsageException;

/** Parses {@code -H host:slots,host:slots,...}. Pure. */
public final class HostListParser {
    private static final Pattern ENTRY = Pattern.compile("([A-Za-z0-9_.-]+):([0-9]+)");

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
        String[] entries = list.split(",", -1);
        for (String raw : entries) {
            String e = raw.trim();
            if (e.isEmpty()) {
                throw new UsageException("-H '" + list + "' has an empty entry (stray comma); write host:slots,host:slots");
            }
            Matcher m = ENTRY.matcher(e);
            if (!m.matches()) {
                throw new UsageException("-H entry '" + e + "' is not host:slots; write e.g. " + example(e));
            }
            int slots = parseSlots(m.group(2), e);
            if (!seen.add(m.group(1))) {
                throw new UsageException("-H lists host '" + m.group(1) + "' twice; give each host once with its total slots");
            }
            hosts.add(new HostSlots(m.group(1), slots));
        }
        return hosts;
    }

    static int parseSlots(String digits, String entry) {
        int slots;
        try {
            slots = Integer.parseInt(digits);
        } catch (NumberFormatException ex) {
            throw new UsageException("slot count in '" + entry + "' is too large; use a number from 1 to " + Integer.MAX_VALUE);
        }
        if (slots < 1) {
            throw new UsageException("host entry '" + entry + "' has 0 slots; give each host at least 1 slot");
        }
        return slots;
    }

    private static String example(String bad) {
        String name = bad.split(":", 2)[0].replaceAll("[^A-Za-z0-9_.-]", "");
        return (name.isEmpty() ? "node1" : name) + ":4";
    }
}
