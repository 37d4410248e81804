package org.troika.common;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One progress report of a rank to troika's hang watchdog: counters that only grow, and where the rank was last seen.
 * Carried as the text of a report of troika-wire's progress protocol (see docs/operability.md for the byte layout, so
 * ranks in any language can send it):
 *
 * <pre>
 *   progress 1 rank=R gen=G beats=B commits=C in=E out=L at=COLLECTIVE where=LABEL...
 * </pre>
 * {@code in}/{@code out}: collectives entered and left (a rank with {@code in > out} is blocked inside
 * {@code at}); {@code beats}: explicit {@code Progress.beat()} calls; {@code commits}: elastic {@code State.commit()}s;
 * {@code where}: the last beat's label (to the end of the text, at most {@value #MAX_LABEL} characters).
 *
 * @param rank global rank
 * @param generation elastic generation, 0 for a static job
 * @param beats explicit beats so far
 * @param commits commits so far
 * @param entered collectives entered so far
 * @param left collectives left so far
 * @param collective the collective entered last, or empty
 * @param where the last beat's label, or empty
 */
public record ProgressReport(int rank, int generation, long beats, long commits, long entered, long left,
        String collective, String where) {
    /** The first word of the text. */
    public static final String PREFIX = "progress 1 ";
    /** Longest label kept. */
    public static final int MAX_LABEL = 120;
    /** Longest text accepted. */
    public static final int MAX_TEXT = 400;

    public ProgressReport {
        if (rank < 0 || generation < 0 || beats < 0 || commits < 0 || entered < 0 || left < 0) {
            throw new IllegalArgumentException("progress counters are never negative");
        }
        collective = clean(Objects.requireNonNullElse(collective, ""), 40).replace(' ', '_');
        where = clean(Objects.requireNonNullElse(where, ""), MAX_LABEL);
    }

    /** Whether the rank is inside a collective it has not left. */
    public boolean inCollective() {
        return entered > left;
    }

    /** Whether anything moved between {@code before} and this report. */
    public boolean progressedSince(ProgressReport before) {
        return before == null || beats != before.beats || commits != before.commits || entered != before.entered
                || left != before.left;
    }

    public String encode() {
        return PREFIX + "rank=" + rank + " gen=" + generation + " beats=" + beats + " commits=" + commits + " in="
                + entered + " out=" + left + " at=" + collective + " where=" + where;
    }

    /**
     * Parses {@link #encode()}'s form.
     *
     * @throws IllegalArgumentException for anything else
     */
    public static ProgressReport decode(String text) {
        if (text.length() > MAX_TEXT || !text.startsWith(PREFIX)) {
            throw new IllegalArgumentException("not a progress report");
        }
        String rest = text.substring(PREFIX.length());
        int w = rest.indexOf(" where=");
        if (w < 0) {
            throw new IllegalArgumentException("progress report without where=");
        }
        String where = rest.substring(w + 7);
        Map<String, String> kv = new LinkedHashMap<>();
        for (String word : rest.substring(0, w).split(" ")) {
            int eq = word.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("bad word in progress report");
            }
            kv.put(word.substring(0, eq), word.substring(eq + 1));
        }
        return new ProgressReport((int) num(kv, "rank", Integer.MAX_VALUE), (int) num(kv, "gen", Integer.MAX_VALUE),
                num(kv, "beats", Long.MAX_VALUE), num(kv, "commits", Long.MAX_VALUE), num(kv, "in", Long.MAX_VALUE),
                num(kv, "out", Long.MAX_VALUE), kv.getOrDefault("at", ""), where);
    }

    /**
     * {@code key}'s value: 1 to 18 ASCII digits, at most {@code max}. Read by hand: the launcher decodes every rank's
     * report (5,000 a second from 10,000 ranks), and a regular expression compiled per number was a fifth of the hang
     * watchdog's CPU there (bench/scale.sh).
     */
    private static long num(Map<String, String> kv, String key, long max) {
        String v = kv.get(key);
        if (v == null || v.isEmpty() || v.length() > 18) {
            throw new IllegalArgumentException("progress report: bad " + key);
        }
        long n = 0;
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < '0' || c > '9') {
                throw new IllegalArgumentException("progress report: bad " + key);
            }
            n = n * 10 + (c - '0');
        }
        if (n > max) {
            throw new IllegalArgumentException("progress report: bad " + key);
        }
        return n;
    }

    private static String clean(String s, int max) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length() && sb.length() < max; i++) {
            char c = s.charAt(i);
            sb.append(c < 0x20 || c == 0x7f ? ' ' : c);
        }
        return sb.toString();
    }
}
