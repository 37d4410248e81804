package org.troika.lsf;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads the few values troika needs from CSM's YAML output: a scalar ({@code key: value}) or a block / flow list
 * ({@code key:} followed by {@code - item} lines, or {@code key: [a, b]}), optionally inside one parent mapping
 * ({@code Record_1:}). Not a YAML parser: it understands exactly the shapes the CSM query tools print.
 */
final class SimpleYaml {
    private final List<String> lines;

    SimpleYaml(String text) {
        this.lines = List.of(text.split("\\R"));
    }

    /** The scalar under {@code parent} (or top level when {@code parent} is null), or null when absent. */
    String scalar(String parent, String key) {
        int i = find(parent, key);
        if (i < 0) {
            return null;
        }
        String v = valueOf(lines.get(i));
        return v.isEmpty() ? null : unquote(v);
    }

    /** The list under top-level {@code key}, or null when absent. */
    List<String> list(String key) {
        int i = find(null, key);
        if (i < 0) {
            return null;
        }
        String v = valueOf(lines.get(i));
        List<String> out = new ArrayList<>();
        if (v.startsWith("[")) {
            String body = v.endsWith("]") ? v.substring(1, v.length() - 1) : v.substring(1);
            for (String s : body.split(",")) {
                if (!s.isBlank()) {
                    out.add(unquote(s.strip()));
                }
            }
            return out;
        }
        if (!v.isEmpty()) {
            out.add(unquote(v));
            return out;
        }
        int keyIndent = indent(lines.get(i));
        for (int j = i + 1; j < lines.size(); j++) {
            String line = lines.get(j);
            if (line.isBlank()) {
                continue;
            }
            String t = line.strip();
            if (t.startsWith("- ") || t.equals("-")) {
                if (indent(line) < keyIndent) {
                    break;
                }
                out.add(unquote(t.substring(1).strip()));
            } else {
                break;
            }
        }
        return out;
    }

    private int find(String parent, String key) {
        int from = 0;
        int minIndent = 0;
        if (parent != null) {
            int p = find(null, parent);
            if (p < 0) {
                return -1;
            }
            from = p + 1;
            minIndent = indent(lines.get(p)) + 1;
        }
        for (int j = from; j < lines.size(); j++) {
            String line = lines.get(j);
            if (line.isBlank() || line.strip().startsWith("#")) {
                continue;
            }
            int ind = indent(line);
            if (parent != null && ind < minIndent) {
                return -1; // left the parent mapping
            }
            if (parent == null && ind != 0) {
                continue;
            }
            String t = line.strip();
            if (t.startsWith(key + ":")) {
                return j;
            }
        }
        return -1;
    }

    private static String valueOf(String line) {
        String t = line.strip();
        String v = t.substring(t.indexOf(':') + 1).strip();
        int hash = v.indexOf(" #");
        return hash >= 0 ? v.substring(0, hash).strip() : v;
    }

    private static int indent(String line) {
        int n = 0;
        while (n < line.length() && line.charAt(n) == ' ') {
            n++;
        }
        return n;
    }

    private static String unquote(String s) {
        if (s.length() >= 2 && (s.startsWith("\"") && s.endsWith("\"") || s.startsWith("'") && s.endsWith("'"))) {
            return s.substring(1, s.length() - 1);
        }
        return s;
    }
}
