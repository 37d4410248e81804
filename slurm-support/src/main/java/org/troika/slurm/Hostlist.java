package org.troika.slurm;

import java.util.ArrayList;
import java.util.List;
import org.troika.common.UsageException;

/**
 * Expands a Slurm hostlist expression ({@code SLURM_JOB_NODELIST}) into host names, in order, the way
 * {@code scontrol show hostnames} does.
 *
 * <p>Grammar: entries separated by commas or whitespace outside brackets; an entry is text with zero or more
 * bracket groups ({@code rack[1-2]-n[01-04]}, text after {@code ]} allowed); a group holds comma-separated
 * single numbers and {@code lo-hi} ranges. Zero padding follows the width of the range's text when it starts with
 * {@code 0} ({@code [001-426]}, {@code [08-11]}). Several groups in one entry expand as a product, the leftmost group
 * varying slowest. The 3-D torus form ({@code bgl[123x456]}) is rejected. Duplicates are kept.
 */
public final class Hostlist {
    /** Upper bound on the expansion, so a typo like {@code n[1-999999999]} fails fast instead of exhausting memory. */
    public static final int MAX_HOSTS = 1_000_000;

    private Hostlist() {}

    /**
     * Expands {@code expr}.
     *
     * @param source what the value is (an env var name), used in error messages
     * @throws UsageException on malformed input (one line, names {@code source} and the fault)
     */
    public static List<String> expand(String expr, String source) {
        if (expr == null || expr.isBlank()) {
            throw bad(source, expr, "it is empty");
        }
        List<String> out = new ArrayList<>();
        for (String entry : splitTopLevel(expr, source)) {
            expandEntry(entry, source, expr, out);
        }
        return List.copyOf(out);
    }

    private static List<String> splitTopLevel(String expr, String source) {
        List<String> entries = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        int depth = 0;
        boolean pieceHasEntry = false; // whether the current comma-separated piece produced an entry
        for (int i = 0; i < expr.length(); i++) {
            char c = expr.charAt(i);
            if (c == '[') {
                if (depth > 0) {
                    throw bad(source, expr, "brackets are nested at position " + (i + 1));
                }
                depth++;
            } else if (c == ']') {
                if (depth == 0) {
                    throw bad(source, expr, "']' at position " + (i + 1) + " has no matching '['");
                }
                depth--;
            }
            if (depth == 0 && (c == ',' || Character.isWhitespace(c))) {
                if (cur.length() > 0) {
                    entries.add(cur.toString());
                    cur.setLength(0);
                    pieceHasEntry = true;
                }
                if (c == ',') {
                    if (!pieceHasEntry) {
                        throw bad(source, expr, "it has an empty entry (stray comma)");
                    }
                    pieceHasEntry = false;
                }
                continue;
            }
            cur.append(c);
        }
        if (depth != 0) {
            throw bad(source, expr, "a '[' is never closed");
        }
        if (cur.length() > 0) {
            entries.add(cur.toString());
        } else if (!pieceHasEntry) {
            throw bad(source, expr, "it has an empty entry (stray comma)");
        }
        return entries;
    }

    private static void expandEntry(String entry, String source, String expr, List<String> out) {
        // Split into literal parts and bracket groups: lit0 [g0] lit1 [g1] ... litN
        List<String> literals = new ArrayList<>();
        List<List<String>> groups = new ArrayList<>();
        int pos = 0;
        while (true) {
            int open = entry.indexOf('[', pos);
            if (open < 0) {
                literals.add(entry.substring(pos));
                break;
            }
            int close = entry.indexOf(']', open);
            literals.add(entry.substring(pos, open));
            groups.add(expandGroup(entry.substring(open + 1, close), source, expr));
            pos = close + 1;
        }
        long total = 1;
        for (List<String> g : groups) {
            total *= g.size();
            if (total + out.size() > MAX_HOSTS) {
                throw bad(source, expr, "it expands to more than " + MAX_HOSTS + " hosts");
            }
        }
        product(literals, groups, 0, new StringBuilder(), out);
        for (String name : out.subList(out.size() - (int) total, out.size())) {
            if (!name.matches("[A-Za-z0-9_.-]+")) {
                throw bad(source, expr, "host name '" + name + "' has characters other than letters, digits, '_', '.', '-'");
            }
        }
    }

    private static void product(List<String> literals, List<List<String>> groups, int i, StringBuilder prefix,
            List<String> out) {
        int mark = prefix.length();
        prefix.append(literals.get(i));
        if (i == groups.size()) {
            out.add(prefix.toString());
        } else {
            for (String v : groups.get(i)) {
                int m2 = prefix.length();
                prefix.append(v);
                product(literals, groups, i + 1, prefix, out);
                prefix.setLength(m2);
            }
        }
        prefix.setLength(mark);
    }

    private static List<String> expandGroup(String body, String source, String expr) {
        if (body.isEmpty()) {
            throw bad(source, expr, "it has an empty bracket group '[]'");
        }
        if (body.indexOf('x') >= 0 || body.indexOf('X') >= 0) {
            throw bad(source, expr, "the 3-D torus form '[" + body + "]' is not supported; list the hosts instead");
        }
        List<String> values = new ArrayList<>();
        for (String part : body.split(",", -1)) {
            String p = part.strip();
            if (p.isEmpty()) {
                throw bad(source, expr, "bracket group '[" + body + "]' has an empty element");
            }
            int dash = p.indexOf('-');
            if (dash < 0) {
                requireDigits(p, body, source, expr);
                values.add(p);
                continue;
            }
            String lo = p.substring(0, dash);
            String hi = p.substring(dash + 1);
            requireDigits(lo, body, source, expr);
            requireDigits(hi, body, source, expr);
            if (lo.length() > 9 || hi.length() > 9) {
                throw bad(source, expr, "range '" + p + "' has numbers that are too large");
            }
            long a = Long.parseLong(lo);
            long b = Long.parseLong(hi);
            if (b < a) {
                throw bad(source, expr, "range '" + p + "' runs backwards");
            }
            if (b - a + 1 > MAX_HOSTS) {
                throw bad(source, expr, "it expands to more than " + MAX_HOSTS + " hosts");
            }
            int width = lo.length() > 1 && lo.charAt(0) == '0' ? lo.length() : 0;
            for (long v = a; v <= b; v++) {
                values.add(width == 0 ? Long.toString(v) : String.format("%0" + width + "d", v));
            }
        }
        return values;
    }

    private static void requireDigits(String s, String body, String source, String expr) {
        if (s.isEmpty() || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw bad(source, expr, "bracket group '[" + body + "]' has '" + s + "' where a number belongs");
        }
    }

    private static UsageException bad(String source, String expr, String why) {
        return new UsageException(source + "='" + expr + "' is not a valid Slurm hostlist: " + why
                + " (expected e.g. n[01-04,7],gpu1; check with: scontrol show hostnames)");
    }
}
