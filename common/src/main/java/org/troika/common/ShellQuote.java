package org.troika.common;

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
}
