package org.troika.launcher.hosts;

import org.troika.launcher.spi.HostSlots;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.troika.common.UsageException;

/**
 * Parses a hostfile: one host per line, {@code host [slots=N] [max_slots=M]}; {@code #} starts a comment (whole line or
 * trailing); blank lines are ignored; a host without {@code slots=} has 1 slot; a host listed twice is an error. Pure.
 */
public final class HostfileParser {
    private static final Pattern KV = Pattern.compile("(slots|max_slots|max-slots)=([0-9]+)");

    private HostfileParser() {}

    /**
     * Parses the lines of a hostfile.
     *
     * @param name the file name, for messages
     * @throws UsageException naming the file, line and problem
     */
    public static List<HostSlots> parse(String name, List<String> lines) {
        List<HostSlots> hosts = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < lines.size(); i++) {
            String where = "hostfile " + name + " line " + (i + 1);
            String line = lines.get(i);
            int hash = line.indexOf('#');
            if (hash >= 0) {
                line = line.substring(0, hash);
            }
            line = line.strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] words = line.split("\\s+");
            String host = words[0];
            if (!HostSlots.isValidName(host)) {
                throw new UsageException(where + ": '" + host + "' is not a host name; write 'host slots=N'");
            }
            int slots = 1;
            int maxSlots = 0;
            for (int w = 1; w < words.length; w++) {
                Matcher m = KV.matcher(words[w]);
                if (!m.matches()) {
                    throw new UsageException(where + ": unexpected '" + words[w] + "'; write 'host slots=N [max_slots=M]'");
                }
                int v = HostListParser.parseSlots(m.group(2), words[w]);
                if (m.group(1).equals("slots")) {
                    slots = v;
                } else {
                    maxSlots = v;
                }
            }
            if (maxSlots != 0 && maxSlots < slots) {
                throw new UsageException(where + ": max_slots=" + maxSlots + " is below slots=" + slots
                        + "; raise max_slots or lower slots");
            }
            if (!seen.add(host)) {
                throw new UsageException(where + ": host '" + host + "' is listed twice; list each host once");
            }
            hosts.add(new HostSlots(host, slots, maxSlots));
        }
        if (hosts.isEmpty()) {
            throw new UsageException("hostfile " + name + " lists no hosts; add lines like 'node1 slots=4'");
        }
        return hosts;
    }
}
