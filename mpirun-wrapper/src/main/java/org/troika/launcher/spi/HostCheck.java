package org.troika.launcher.spi;

import java.util.List;
import org.troika.common.UsageException;

/**
 * The one validation of host input. Every source of hosts goes through it: {@code -H}, hostfiles, the batch
 * systems' variables and files (Slurm, LSF, CSM, PBS), discovery script output; {@link HostSlots} enforces the same
 * rules on construction, so no other path (a Spark layout, a plugin) can build a host that breaks them.
 *
 * <p><b>Host names</b> are what the MPI launcher receives as one word of {@code -H} or a hostfile line, so:
 * <ul>
 *   <li>1 to {@value #MAX_NAME_LENGTH} characters; dot-separated labels of 1 to {@value #MAX_LABEL_LENGTH}
 *       characters (RFC 1123);</li>
 *   <li>ASCII letters, digits, {@code -}, {@code .} and {@code _}. The underscore is not RFC 1123 but real cluster
 *       node names carry it (Slurm {@code NodeName}s, {@code /etc/hosts} aliases) and Open MPI and ssh accept it.
 *       IPv4 literals ({@code 10.0.0.2}) are names of this form and are allowed;</li>
 *   <li>no label starts or ends with {@code -}: above all the name does not, so {@code -np} or {@code --mca} can
 *       never reach the MPI launcher as an option;</li>
 *   <li>not allowed: IPv6 literals (every host form here uses {@code :} for the slot count, and so does Open MPI's
 *       {@code -H}; give such a host a name in {@code /etc/hosts}), non-ASCII names (use the {@code xn--} form),
 *       spaces, quotes and control characters.</li>
 * </ul>
 *
 * <p><b>Slots</b>: decimal digits only, at least 1, at most {@value #MAX_RANKS} per host and in all (the total is
 * summed without overflow). A million ranks is beyond any MPI job run today; the bound keeps a typo from
 * allocating a rank table of billions of entries.
 */
public final class HostCheck {
    /** Longest host name (RFC 1123, a full DNS name). */
    public static final int MAX_NAME_LENGTH = 253;
    /** Longest dot-separated label of a host name. */
    public static final int MAX_LABEL_LENGTH = 63;
    /** Most slots on one host, and most ranks (slots) of a whole host list. */
    public static final int MAX_RANKS = 1 << 20;

    /** The fix every bad-name message ends with. */
    public static final String NAME_RULE = "host names use letters, digits, '-', '.' and '_' (at most "
            + MAX_NAME_LENGTH + " characters, no label starting or ending with '-')";

    private HostCheck() {}

    /** Why {@code name} is not an acceptable host name, as a phrase ("starts with '-'"), or {@code null} if it is. */
    public static String nameProblem(String name) {
        if (name == null || name.isEmpty()) {
            return "is empty";
        }
        if (name.length() > MAX_NAME_LENGTH) {
            return "is " + name.length() + " characters long, more than " + MAX_NAME_LENGTH;
        }
        if (name.charAt(0) == '-') {
            return "starts with '-' (the MPI launcher would take it for an option)";
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.'
                    || c == '_';
            if (!ok) {
                if (c == ':' && name.indexOf(':', i + 1) >= 0) {
                    return "looks like an IPv6 address, which troika cannot pass on (':' separates the slot count);"
                            + " give the host a name in /etc/hosts";
                }
                return "contains " + (c == ' ' ? "a space" : "'" + UserText.escape(String.valueOf(c)) + "'");
            }
        }
        int start = 0;
        while (start <= name.length()) {
            int dot = name.indexOf('.', start);
            int end = dot < 0 ? name.length() : dot;
            int len = end - start;
            if (len == 0) {
                return "has an empty label (a leading, trailing or doubled '.')";
            }
            if (len > MAX_LABEL_LENGTH) {
                return "has a label of " + len + " characters, more than " + MAX_LABEL_LENGTH;
            }
            if (name.charAt(start) == '-' || name.charAt(end - 1) == '-') {
                return "has a label that starts or ends with '-'";
            }
            if (dot < 0) {
                break;
            }
            start = dot + 1;
        }
        return null;
    }

    /** Whether {@code name} is an acceptable host name. */
    public static boolean isValidName(String name) {
        return nameProblem(name) == null;
    }

    /**
     * {@code name} if it is an acceptable host name.
     *
     * @param where the source, for the message ({@code "-H"}, {@code "hostfile /x line 3"}, {@code "LSB_HOSTS"})
     * @throws UsageException {@code "<where>: host name '<name>' <problem>; <rule>"}
     */
    public static String name(String where, String name) {
        String problem = nameProblem(name);
        if (problem != null) {
            throw new UsageException(where + ": host name " + UserText.quote(name) + " " + problem + "; " + NAME_RULE);
        }
        return name;
    }

    /** A slot count given as decimal digits (leading zeros allowed) if it is 1 to {@value #MAX_RANKS}, else -1. */
    public static int count(String digits) {
        if (digits == null || digits.isEmpty() || digits.length() > 16) {
            return -1;
        }
        long n = 0;
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n >= 1 && n <= MAX_RANKS ? (int) n : -1;
    }

    /**
     * Parses a slot count: decimal digits (leading zeros allowed), 1 to {@value #MAX_RANKS}.
     *
     * @param where the source and entry, for the message
     * @throws UsageException naming {@code where} and the allowed range
     */
    public static int slots(String where, String digits) {
        int n = count(digits);
        if (n > 0) {
            return n;
        }
        if (digits == null || digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new UsageException(where + ": slot count " + UserText.quote(digits)
                    + " is not a whole number; give 1 to " + MAX_RANKS);
        }
        int zeros = 0;
        while (zeros < digits.length() - 1 && digits.charAt(zeros) == '0') {
            zeros++;
        }
        String significant = digits.substring(zeros);
        return slots(where, significant.length() > 8 ? Long.MAX_VALUE : Long.parseLong(significant));
    }

    /**
     * Checks a slot count that was computed (a sum of entries, a count times a repeat).
     *
     * @throws UsageException when {@code n} is below 1 or above {@value #MAX_RANKS}
     */
    public static int slots(String where, long n) {
        if (n < 1) {
            throw new UsageException(where + ": a host has " + n + " slots; give each host at least 1 slot");
        }
        if (n > MAX_RANKS) {
            throw new UsageException(where + ": slot count " + (n == Long.MAX_VALUE ? "" : n + " ")
                    + "is more than troika's limit of " + MAX_RANKS + " ranks; give 1 to " + MAX_RANKS);
        }
        return (int) n;
    }

    /**
     * {@code hosts} unchanged if their slots add up to at most {@value #MAX_RANKS}.
     *
     * @throws UsageException naming {@code source} and the total
     */
    public static List<HostSlots> total(String source, List<HostSlots> hosts) {
        long sum = 0;
        for (HostSlots h : hosts) {
            sum += h.slots();
        }
        if (sum > MAX_RANKS) {
            throw new UsageException(source + " has " + sum + " slots in all, more than troika's limit of " + MAX_RANKS
                    + " ranks; list fewer hosts or slots");
        }
        return hosts;
    }
}
