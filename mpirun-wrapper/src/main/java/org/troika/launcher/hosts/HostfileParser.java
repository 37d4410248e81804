package org.troika.launcher.hosts;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
            String line = lines.get(i);
            int hash = line.indexOf('#');
            if (hash >= 0) {
                line = line.substring(0, hash);
            }
            line = line.strip();
            if (line.isEmpty()) {
                continue;
            }
            // a 10,000-line hostfile is parsed before the JIT compiles much: words and keys without regexes, and
            // the line's name for messages only when there is one to give
            List<String> words = words(line);
            String host = words.get(0);
            if (HostCheck.nameProblem(host) != null) {
                HostCheck.name(where(name, i), host);
            }
            Integer slots = null;
            Integer maxSlots = null;
            for (int w = 1; w < words.size(); w++) {
                String word = words.get(w);
                int eq = word.indexOf('=');
                String key = eq < 0 ? "" : word.substring(0, eq);
                boolean isSlots = key.equals("slots");
                if (!isSlots && !key.equals("max_slots") && !key.equals("max-slots")) {
                    throw new UsageException(where(name, i) + ": unexpected " + UserText.quote(word)
                            + "; write 'host slots=N [max_slots=M]'");
                }
                if (isSlots ? slots != null : maxSlots != null) {
                    throw new UsageException(where(name, i) + ": " + (isSlots ? "slots" : "max_slots")
                            + " is given twice; give it once");
                }
                String digits = word.substring(eq + 1);
                int v = HostCheck.count(digits);
                if (v < 0) {
                    v = HostCheck.slots(where(name, i), digits); // throws, naming the problem
                }
                if (isSlots) {
                    slots = v;
                } else {
                    maxSlots = v;
                }
            }
            int s = slots == null ? 1 : slots;
            if (maxSlots != null && maxSlots < s) {
                throw new UsageException(where(name, i) + ": max_slots=" + maxSlots + " is below slots=" + s
                        + "; raise max_slots or lower slots");
            }
            if (!seen.add(host)) {
                throw new UsageException(where(name, i) + ": host '" + host + "' is listed twice; list each host once");
            }
            hosts.add(new HostSlots(host, s, maxSlots == null ? 0 : maxSlots));
        }
        if (hosts.isEmpty()) {
            throw new UsageException("hostfile " + name + " lists no hosts; add lines like 'node1 slots=4'");
        }
        return HostCheck.total("hostfile " + name, hosts);
    }

    private static String where(String name, int index) {
        return "hostfile " + name + " line " + (index + 1);
    }

    /** The words of {@code line}, split where regex {@code \\s} would (space, tab, newline, VT, form feed, CR). */
    private static List<String> words(String line) {
        List<String> words = new ArrayList<>(3);
        int start = -1;
        for (int i = 0; i <= line.length(); i++) {
            boolean space = i == line.length() || " \t\n\u000B\f\r".indexOf(line.charAt(i)) >= 0;
            if (space && start >= 0) {
                words.add(line.substring(start, i));
                start = -1;
            } else if (!space && start < 0) {
                start = i;
            }
        }
        return words;
    }
}
