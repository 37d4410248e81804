package org.troika.launcher.spi;

import org.troika.common.exec.NativeText;

/**
 * Makes text that came from the user (flags, files, environment variables, a discovery script's output) safe to
 * show in a one-line message. The one implementation: {@code troika: error:} lines (cli {@code Main}) and the values
 * quoted inside messages both go through it.
 *
 * <p>Escaped: C0 controls and DEL ({@code \n}, {@code \r}, {@code \t}, else {@code \xHH}), C1 controls, the Unicode
 * line and paragraph separators and the bidirectional overrides and isolates ({@code \\uHHHH}), bytes that are not
 * text in the locale ({@link NativeText} escapes, {@code \\xHH}), so a message can
 * neither break the line, move the cursor, recolour the terminal nor reorder what is shown. Backslashes are kept as
 * they are, so escaping is idempotent.
 */
public final class UserText {
    /** Longest value {@link #quote} shows in full. */
    public static final int MAX_QUOTED = 80;

    private UserText() {}

    /** {@code s} with every control character escaped (see the class comment); {@code null} stays {@code "null"}. */
    public static String escape(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            String rep = replacement(c);
            if (rep != null && b == null) {
                b = new StringBuilder(s.length() + 16).append(s, 0, i);
            }
            if (b != null) {
                if (rep != null) {
                    b.append(rep);
                } else {
                    b.append(c);
                }
            }
        }
        return b == null ? s : b.toString();
    }

    /**
     * {@code 's'} escaped, and abbreviated when longer than {@link #MAX_QUOTED} characters:
     * {@code 'first 60 characters...' (100000 characters)}.
     */
    public static String quote(String s) {
        if (s == null) {
            return "null";
        }
        if (s.length() <= MAX_QUOTED) {
            return "'" + escape(s) + "'";
        }
        int cut = 60;
        if (Character.isHighSurrogate(s.charAt(cut - 1))) {
            cut--;
        }
        return "'" + escape(s.substring(0, cut)) + "...' (" + s.length() + " characters)";
    }

    /** Longest message line troika prints (errors, warnings); the rest is summarised. */
    public static final int MAX_LINE = 1000;

    /**
     * {@code prefix + message} as one printable line: control characters escaped, at most {@link #MAX_LINE}
     * characters. Every {@code troika: error:} and {@code troika: warning:} line is made by it.
     */
    public static String line(String prefix, String message) {
        return truncate(prefix + escape(message), MAX_LINE);
    }

    /** Cuts an already escaped line to {@code max} characters, saying how much was left out. */
    public static String truncate(String line, int max) {
        if (line.length() <= max) {
            return line;
        }
        return line.substring(0, max) + "... (" + (line.length() - max) + " more characters)";
    }

    private static String replacement(char c) {
        switch (c) {
            case '\n':
                return "\\n";
            case '\r':
                return "\\r";
            case '\t':
                return "\\t";
            default:
                break;
        }
        if (c < 0x20 || c == 0x7f) {
            return String.format("\\x%02x", (int) c);
        }
        if (NativeText.isEscape(c)) { // a byte that is not text in this locale: shown as the byte
            return String.format("\\x%02x", NativeText.escapedByte(c));
        }
        if (c >= 0x80 && c < 0xa0 || c == '\u2028' || c == '\u2029' || c >= '\u202a' && c <= '\u202e'
                || c >= '\u2066' && c <= '\u2069' || c == '\u200e' || c == '\u200f' || c == '\u061c') {
            return String.format("\\u%04x", (int) c);
        }
        return null;
    }
}
