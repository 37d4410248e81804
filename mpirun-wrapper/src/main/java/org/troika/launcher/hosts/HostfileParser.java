package org.troika.launcher.hosts;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.troika.common.UsageException;
import org.troika.launcher.spi.HostCheck;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.UserText;

/**
 * Parses a hostfile: one host per line, {@code host [slots=N] [max_slots=M]}; {@code #} starts a comment (whole line or
 * trailing); blank lines are ignored; a host without {@code slots=} has 1 slot; a host listed twice, or a key given
 * twice on one line, is an error. Names and counts are checked by {@link HostCheck}. Pure.
 */
public final class HostfileParser {
    private static final Pattern KV = Pattern.compile("(slots|max_slots|max-slots)=(.*)");

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
            String host = HostCheck.name(where, words[0]);
            Integer slots = null;
            Integer maxSlots = null;
            for (int w = 1; w < words.length; w++) {
                Matcher m = KV.matcher(words[w]);
                if (!m.matches()) {
                    throw new UsageException(where + ": unexpected " + UserText.quote(words[w])
                            + "; write 'host slots=N [max_slots=M]'");
                }
                boolean isSlots = m.group(1).equals("slots");
                if (isSlots ? slots != null : maxSlots != null) {
                    throw new UsageException(where + ": " + (isSlots ? "slots" : "max_slots")
                            + " is given twice; give it once");
                }
                int v = HostCheck.slots(where, m.group(2));
                if (isSlots) {
                    slots = v;
                } else {
                    maxSlots = v;
                }
            }
            int s = slots == null ? 1 : slots;
            if (maxSlots != null && maxSlots < s) {
                throw new UsageException(where + ": max_slots=" + maxSlots + " is below slots=" + s
                        + "; raise max_slots or lower slots");
            }
            if (!seen.add(host)) {
                throw new UsageException(where + ": host '" + host + "' is listed twice; list each host once");
            }
            hosts.add(new HostSlots(host, s, maxSlots == null ? 0 : maxSlots));
        }
        if (hosts.isEmpty()) {
            throw new UsageException("hostfile " + name + " lists no hosts; add lines like 'node1 slots=4'");
        }
        return HostCheck.total("hostfile " + name, hosts);
    }
}
