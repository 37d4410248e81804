package org.troika.launcher.spi;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Per-rank output files that troika writes itself from the launcher's tagged output ({@code --output-filename DIR}):
 * {@code DIR/rank.N.stdout} and {@code DIR/rank.N.stderr} for every rank N of the job, both created at the start
 * (empty when the rank writes nothing to that stream) and holding the rank's lines as it wrote them, without the
 * launcher's tag and timestamp. One layout for every mpirun flavour, because the MPIs' own options differ and one
 * of them loses a stream (Open MPI 5.0.7's {@code --output-filename} / {@code --output dir=} keep at most one stream
 * per rank; see docs/mpirun-flags.md).
 *
 * @param dir the folder ({@code --output-filename})
 * @param ranks the number of ranks (files are made for ranks {@code 0..ranks-1}; tags naming other ranks are ignored)
 * @param format how the launcher tags a rank's line
 */
public record RankOutput(Path dir, int ranks, TagFormat format) {
    public RankOutput {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(format, "format");
        if (ranks < 1) {
            throw new IllegalArgumentException("ranks must be at least 1, got " + ranks);
        }
    }

    /** The tag a launcher puts before each line of a rank's output, as troika plans it. */
    public enum TagFormat {
        /** Open MPI 4 / Spectrum {@code --tag-output}: {@code [1,R]<stdout>:text}, after the date with {@code --timestamp-output}. */
        ORTE(Pattern.compile("^(?:" + TagFormat.DATE + ")?\\[\\d+,(\\d+)\\]<(stdout|stderr|stddiag)>:")),
        /** Open MPI 5 {@code --output tag}: {@code [1,R]<stdout>: text}, after {@code [date]} with timestamps. */
        PRRTE(Pattern.compile("^(?:\\[" + TagFormat.DATE + "\\])?\\[\\d+,(\\d+)\\]<(stdout|stderr|stddiag)>: ?")),
        /** MPICH / Intel MPI (Hydra) {@code -l}: {@code [R] text}; the stream is the launcher's own. */
        HYDRA(Pattern.compile("^\\[(\\d+)\\] ?")),
        /**
         * Slurm's {@code srun --label}: {@code R: text}, the rank right-aligned to the width of the largest one; the
         * stream is srun's own.
         */
        SRUN(Pattern.compile("^ *(\\d+): "));

        /** ctime-style date as both Open MPIs print it: {@code Mon Nov 23 06:27:45 2026}. */
        private static final String DATE = "[A-Z][a-z]{2} [A-Z][a-z]{2} +\\d{1,2} \\d{2}:\\d{2}:\\d{2} \\d{4}";

        private final Pattern tag;

        TagFormat(Pattern tag) {
            this.tag = tag;
        }
    }

    /** One line of a rank's output: the rank, whether it belongs to its stderr, and the text with its terminator. */
    public record Line(int rank, boolean stderr, String text) {}

    /**
     * The rank line in one segment of the launcher's output, or empty for the launcher's own lines (untagged, or
     * tagged with a rank outside the job).
     *
     * @param segment one line as read, terminator included
     * @param fromStderr whether the launcher wrote it to its stderr (the stream for Hydra; Open MPI names it in the tag)
     */
    public Optional<Line> parse(String segment, boolean fromStderr) {
        Matcher m = format.tag.matcher(segment);
        if (!m.lookingAt()) {
            return Optional.empty();
        }
        int rank;
        try {
            rank = Integer.parseInt(m.group(1));
        } catch (NumberFormatException tooLong) {
            return Optional.empty();
        }
        if (rank >= ranks) {
            return Optional.empty();
        }
        boolean stderr = m.groupCount() >= 2 ? !"stdout".equals(m.group(2)) : fromStderr;
        return Optional.of(new Line(rank, stderr, segment.substring(m.end())));
    }

    /** {@code DIR/rank.N.stdout} or {@code DIR/rank.N.stderr}. */
    public Path file(int rank, boolean stderr) {
        return dir.resolve("rank." + rank + (stderr ? ".stderr" : ".stdout"));
    }
}
