package org.troika.launcher.spi;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * How a launcher hands on its ranks' output, as troika plans it: the tag it puts before each rank's output, the number
 * of ranks, and the folder of the per-rank files troika writes from that output ({@code --output-filename DIR}, or
 * {@code null} for none): {@code DIR/rank.N.stdout} and {@code DIR/rank.N.stderr} for every rank N, holding the
 * rank's bytes as it wrote them, without the launcher's tag and timestamp. One layout for every launcher, because the
 * MPIs' own options differ and some lose or mix streams (docs/mpirun-flags.md).
 *
 * <p>This is the one parser of rank tags ({@link TagFormat#match}): the output pipeline, the per-rank files, the hang
 * watchdog and the failure report all read the tags through it.
 *
 * @param dir the folder of the per-rank files ({@code --output-filename}), or {@code null}
 * @param ranks the number of ranks (files are made for ranks {@code 0..ranks-1}; tags naming other ranks are not
 *     filed)
 * @param format how the launcher tags a rank's output
 * @param launcherFiles a private folder where the launcher writes each rank's output itself, as
 *     {@link #launcherFile}s (Hydra's {@code -outfile-pattern}: exact, where its tagged stream is not), which troika
 *     follows into the per-rank files and onto the console; {@code null}: the ranks' output comes tagged in the
 *     launcher's stream
 */
public record RankOutput(Path dir, int ranks, TagFormat format, Path launcherFiles) {
    public RankOutput {
        Objects.requireNonNull(format, "format");
        if (ranks < 1) {
            throw new IllegalArgumentException("ranks must be at least 1, got " + ranks);
        }
    }

    /** Where a tag says its bytes came from. */
    public enum Stream {
        /** the launcher does not say: the stream it wrote the line to (Hydra, srun) */
        LAUNCHER,
        STDOUT,
        /** stderr, and Open MPI's {@code stddiag} */
        STDERR
    }

    /** A tag as {@link TagFormat#match} read it (reused by the caller; one per stream). */
    public static final class Tag {
        /** Open MPI's job number (1 for the job's own ranks; spawned jobs count on), 1 for other launchers. */
        public int job;
        public int rank;
        public Stream stream;
    }

    /** {@link TagFormat#match}: the bytes are a proper prefix of a tag; more input decides. */
    public static final int MORE = -1;

    /** The tag a launcher puts before a rank's output, as troika plans it. */
    public enum TagFormat {
        /**
         * Open MPI 4 / Spectrum {@code --tag-output}: {@code [1,R]<stdout>:text}, directly after a ctime-style date with
         * {@code --timestamp-output}. ORTE tags each read of a rank's output (4 KiB at most), so a long or unfinished
         * line is cut into fragments, each with its tag.
         */
        ORTE(true),
        /**
         * Open MPI 5 {@code --output tag}: {@code [1,R]<stdout>: text} (the space is left out before an empty line),
         * after {@code [date]} with timestamps; fragments as ORTE.
         */
        PRRTE(true),
        /**
         * MPICH / Intel MPI (Hydra) {@code -l}: {@code [R] text}; the stream is the launcher's own. Hydra tags each
         * read too, but {@code [R] } is common text ({@code a[3] = 5}), so only tags at line starts are read.
         */
        HYDRA(false),
        /**
         * Slurm's {@code srun --label}: {@code R: text}, the rank right-aligned to the width of the largest one; the
         * stream is srun's own; at line starts only.
         */
        SRUN(false);

        /** Longest tag with its date: {@code [Www Mmm dd hh:mm:ss yyyy][999999999,999999999]<stddiag>: }. */
        public static final int MAX_LENGTH = 26 + 21 + 11 + 1;
        private static final int DATE = 24;
        private static final int MAX_DIGITS = 9;

        private final boolean midLine;

        TagFormat(boolean midLine) {
            this.midLine = midLine;
        }

        /**
         * Whether the launcher also tags inside a line where its read of a rank's output ended, so that a tag in the
         * middle of a line starts a fragment of another (or the same) rank's output.
         */
        public boolean tagsFragments() {
            return midLine;
        }

        /**
         * Reads the tag at {@code b[from]}, looking at no byte at or after {@code to}.
         *
         * @return the tag's length (and {@code tag} filled in), 0 if no tag starts at {@code from}, or {@link #MORE}
         *     if {@code b[from..to)} is a proper prefix of a tag (the next bytes decide)
         */
        public int match(byte[] b, int from, int to, Tag tag) {
            if (this == ORTE || this == PRRTE) {
                int end = bracketed(b, from, to, tag);
                if (end >= 0) {
                    if (this == ORTE) {
                        return end - from;
                    }
                    if (end < to) {
                        return (b[end] == ' ' ? end + 1 : end) - from;
                    }
                }
            }
            Cursor c = new Cursor(b, from, to);
            switch (this) {
                case ORTE -> {
                    if (c.peek() != '[' && !c.date()) {
                        return c.result(false);
                    }
                    if (!c.bracketed(tag)) {
                        return c.result(false);
                    }
                }
                case PRRTE -> {
                    if (!c.lit('[')) {
                        return c.result(false);
                    }
                    int next = c.peek();
                    if (next >= 'A' && next <= 'Z') {
                        if (!c.date() || !c.lit(']') || !c.lit('[')) {
                            return c.result(false);
                        }
                    }
                    c.back();
                    if (!c.bracketed(tag)) {
                        return c.result(false);
                    }
                    if (c.atEnd()) {
                        return MORE; // a space may follow (or a line end: the space is left out before an empty line)
                    }
                    c.optional(' ');
                }
                case HYDRA -> {
                    tag.job = 1;
                    tag.stream = Stream.LAUNCHER;
                    if (!c.lit('[') || (tag.rank = c.number()) < 0 || !c.lit(']') || !c.lit(' ')) {
                        return c.result(false);
                    }
                }
                case SRUN -> {
                    tag.job = 1;
                    tag.stream = Stream.LAUNCHER;
                    for (int i = 0; i < MAX_DIGITS && c.peek() == ' '; i++) {
                        c.lit(' ');
                    }
                    if ((tag.rank = c.number()) < 0 || !c.lit(':') || !c.lit(' ')) {
                        return c.result(false);
                    }
                }
                default -> throw new IllegalStateException(name());
            }
            return c.result(true);
        }
    }

    /**
     * The common case of {@link TagFormat#match} for Open MPI, without a {@link Cursor}: a whole
     * {@code [J,R]<stdout>:} ({@code <stderr>}, {@code <stddiag>}) at {@code b[from]}, read into {@code tag}.
     *
     * @return the index after the tag's colon, or -1 for anything else (no tag, a date, too few bytes to tell: the
     *     cursor decides those)
     */
    private static int bracketed(byte[] b, int from, int to, Tag tag) {
        int p = from;
        if (to - p < 14 || b[p] != '[') { // 14: "[1,0]<stdout>:"
            return -1;
        }
        int job = 0;
        int digits = 0;
        for (p++; p < to && b[p] >= '0' && b[p] <= '9' && digits <= TagFormat.MAX_DIGITS; p++, digits++) {
            job = job * 10 + (b[p] - '0');
        }
        if (digits == 0 || digits > TagFormat.MAX_DIGITS || p >= to || b[p] != ',') {
            return -1;
        }
        int rank = 0;
        digits = 0;
        for (p++; p < to && b[p] >= '0' && b[p] <= '9' && digits <= TagFormat.MAX_DIGITS; p++, digits++) {
            rank = rank * 10 + (b[p] - '0');
        }
        if (digits == 0 || digits > TagFormat.MAX_DIGITS || to - p < 11 // "]<stddiag>:"
                || b[p] != ']' || b[p + 1] != '<' || b[p + 2] != 's' || b[p + 3] != 't' || b[p + 4] != 'd') {
            return -1;
        }
        p += 5;
        Stream stream;
        if (b[p] == 'o' && b[p + 1] == 'u' && b[p + 2] == 't' && b[p + 3] == '>' && b[p + 4] == ':') {
            stream = Stream.STDOUT;
            p += 5;
        } else if (b[p] == 'e' && b[p + 1] == 'r' && b[p + 2] == 'r' && b[p + 3] == '>' && b[p + 4] == ':') {
            stream = Stream.STDERR;
            p += 5;
        } else if (b[p] == 'd' && b[p + 1] == 'i' && b[p + 2] == 'a' && b[p + 3] == 'g' && b[p + 4] == '>'
                && b[p + 5] == ':') {
            stream = Stream.STDERR;
            p += 6;
        } else {
            return -1;
        }
        tag.job = job;
        tag.rank = rank;
        tag.stream = stream;
        return p;
    }

    /** A byte cursor that remembers whether it ran out of input ("more") while matching. */
    private static final class Cursor {
        private final byte[] b;
        private final int from;
        private final int to;
        private int p;
        private boolean more;

        Cursor(byte[] b, int from, int to) {
            this.b = b;
            this.from = from;
            this.to = to;
            this.p = from;
        }

        boolean atEnd() {
            return p >= to;
        }

        /** The next byte, or -1 at the end (which marks "more"). */
        int peek() {
            if (p >= to) {
                more = true;
                return -1;
            }
            return b[p] & 0xff;
        }

        boolean lit(char ch) {
            if (peek() != ch) {
                return false;
            }
            p++;
            return true;
        }

        void optional(char ch) {
            if (p < to && b[p] == ch) {
                p++;
            }
        }

        /** Steps back over the {@code [} just read (the bracketed tag starts with it). */
        void back() {
            p--;
        }

        /** 1 to {@value TagFormat#MAX_DIGITS} digits as a number, or -1. */
        int number() {
            int n = 0;
            int digits = 0;
            while (true) {
                int ch = peek();
                if (ch < '0' || ch > '9') {
                    return digits == 0 || digits > TagFormat.MAX_DIGITS ? -1 : n;
                }
                if (++digits > TagFormat.MAX_DIGITS) {
                    more = false;
                    return -1;
                }
                n = n * 10 + (ch - '0');
                p++;
            }
        }

        /** {@code [J,R]<stdout|stderr|stddiag>:} */
        boolean bracketed(Tag tag) {
            if (!lit('[') || (tag.job = number()) < 0 || !lit(',') || (tag.rank = number()) < 0 || !lit(']')
                    || !lit('<') || !lit('s') || !lit('t') || !lit('d')) {
                return false;
            }
            int ch = peek();
            if (ch == 'o') {
                tag.stream = Stream.STDOUT;
                return lit('o') && lit('u') && lit('t') && lit('>') && lit(':');
            }
            if (ch == 'e') {
                tag.stream = Stream.STDERR;
                return lit('e') && lit('r') && lit('r') && lit('>') && lit(':');
            }
            if (ch == 'd') {
                tag.stream = Stream.STDERR;
                return lit('d') && lit('i') && lit('a') && lit('g') && lit('>') && lit(':');
            }
            return false;
        }

        /** A ctime-style date as both Open MPIs print it: {@code Mon Nov 23 06:27:45 2026}, {@code Mon Nov  3 ...}. */
        boolean date() {
            for (int i = 0; i < TagFormat.DATE; i++) {
                int ch = peek();
                boolean ok = switch (i) {
                    case 0, 4 -> ch >= 'A' && ch <= 'Z';
                    case 1, 2, 5, 6 -> ch >= 'a' && ch <= 'z';
                    case 3, 7, 10, 19 -> ch == ' ';
                    case 8 -> ch == ' ' || ch >= '0' && ch <= '9';
                    case 13, 16 -> ch == ':';
                    default -> ch >= '0' && ch <= '9';
                };
                if (!ok) {
                    return false;
                }
                p++;
            }
            return true;
        }

        /** The match's result: its length, {@link RankOutput#MORE} if it failed for want of input, else 0. */
        int result(boolean matched) {
            if (matched) {
                return p - from;
            }
            return more ? MORE : 0;
        }
    }

    /** One line of a rank's output: the rank, whether it belongs to its stderr, and the text with its terminator. */
    public record Line(int rank, boolean stderr, String text) {}

    /**
     * The rank line in one whole line of the launcher's output, or empty for the launcher's own lines (untagged, or
     * tagged with a rank outside the job). For tests and single lines; the output pipeline matches bytes.
     *
     * @param segment one line as read, terminator included
     * @param fromStderr whether the launcher wrote it to its stderr (the stream for Hydra; Open MPI names it in the tag)
     */
    public Optional<Line> parse(String segment, boolean fromStderr) {
        byte[] b = segment.getBytes(StandardCharsets.UTF_8);
        Tag t = new Tag();
        int n = format.match(b, 0, b.length, t);
        if (n <= 0 || !inJob(t)) {
            return Optional.empty();
        }
        return Optional.of(new Line(t.rank, stderr(t, fromStderr), new String(b, n, b.length - n,
                StandardCharsets.UTF_8)));
    }

    /** Whether a tag names a rank of this job (whose output is filed). */
    public boolean inJob(Tag t) {
        return t.job == 1 && t.rank < ranks;
    }

    /** Whether a tagged fragment belongs to the rank's stderr ({@code fromStderr}: the launcher's stream). */
    public static boolean stderr(Tag t, boolean fromStderr) {
        return t.stream == Stream.LAUNCHER ? fromStderr : t.stream == Stream.STDERR;
    }

    /** {@code DIR/rank.N.stdout} or {@code DIR/rank.N.stderr}. */
    public Path file(int rank, boolean stderr) {
        return Objects.requireNonNull(dir, "no per-rank files").resolve(fileName(rank, stderr));
    }

    /** The launcher's own file of a rank's stream in {@link #launcherFiles}. */
    public Path launcherFile(int rank, boolean stderr) {
        return Objects.requireNonNull(launcherFiles, "the launcher writes no files").resolve(fileName(rank, stderr));
    }

    /** {@code rank.N.stdout} / {@code rank.N.stderr}. */
    public static String fileName(int rank, boolean stderr) {
        return "rank." + rank + (stderr ? ".stderr" : ".stdout");
    }
}
