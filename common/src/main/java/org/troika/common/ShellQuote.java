package org.troika.common;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** POSIX shell quoting, used only at display boundaries ({@code --dry-run}, logs) and for {@code sh -c}. */
public final class ShellQuote {
    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9@%+=:,./_-]+");

    private ShellQuote() {}

    /** Quotes one word: safe words stay bare, the empty word becomes {@code ''}, others are single-quoted. */
    public static String quote(String word) {
        if (word.isEmpty()) {
            return "''";
        }
        if (SAFE.matcher(word).matches()) {
            return word;
        }
        return "'" + word.replace("'", "'\"'\"'") + "'";
    }

    /** Quotes each word and joins them with single spaces. */
    public static String join(List<String> words) {
        StringBuilder sb = new StringBuilder();
        for (String w : words) {
            if (sb.length() > 0) {
                sb.append(' ');
            }
            sb.append(quote(w));
        }
        return sb.toString();
    }

    /**
     * Splits a string into words the way a POSIX shell would for a simple command: whitespace separates words,
     * single quotes keep everything literally, double quotes keep whitespace and honour {@code \\ \" \$ \`},
     * a backslash outside quotes escapes the next character. No expansion of any kind.
     *
     * @throws IllegalArgumentException on an unterminated quote or a trailing backslash
     */
    public static List<String> split(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean inWord = false;
        int i = 0;
        int n = line.length();
        while (i < n) {
            char c = line.charAt(i);
            if (c == '\'') {
                int end = line.indexOf('\'', i + 1);
                if (end < 0) {
                    throw new IllegalArgumentException("unterminated single quote in: " + line);
                }
                cur.append(line, i + 1, end);
                inWord = true;
                i = end + 1;
            } else if (c == '"') {
                i++;
                boolean closed = false;
                while (i < n) {
                    char d = line.charAt(i);
                    if (d == '"') {
                        closed = true;
                        i++;
                        break;
                    }
                    if (d == '\\' && i + 1 < n && "\\\"$`".indexOf(line.charAt(i + 1)) >= 0) {
                        cur.append(line.charAt(i + 1));
                        i += 2;
                    } else {
                        cur.append(d);
                        i++;
                    }
                }
                if (!closed) {
                    throw new IllegalArgumentException("unterminated double quote in: " + line);
                }
                inWord = true;
            } else if (c == '\\') {
                if (i + 1 >= n) {
                    throw new IllegalArgumentException("trailing backslash in: " + line);
                }
                cur.append(line.charAt(i + 1));
                inWord = true;
                i += 2;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(cur.toString());
                    cur.setLength(0);
                    inWord = false;
                }
                i++;
            } else {
                cur.append(c);
                inWord = true;
                i++;
            }
        }
        if (inWord) {
            words.add(cur.toString());
        }
        return words;
    }
}
