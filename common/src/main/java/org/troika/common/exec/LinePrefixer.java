package org.troika.common.exec;

import java.time.Clock;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A {@link LineSink} that prefixes each segment of a non-MPI child's output with {@code [index]<stream>:}, optionally
 * preceded by a C {@code asctime}-style timestamp ({@code Sat Nov  7 09:05:01 2026}, day padded with a space, nothing
 * between it and the {@code [}), and passes it on.
 *
 * <p>Segments already tagged by the MPI launcher ({@code [1,3]<stdout>:} from Open MPI's {@code --tag-output}, or
 * {@code [3]<stdout>:}-style prefixes) pass through untouched, so output is never prefixed twice.
 */
public final class LinePrefixer implements LineSink {
    private static final Pattern ALREADY_TAGGED =
            Pattern.compile("^(?:[A-Z][a-z]{2} [A-Z][a-z]{2} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d \\d{4})?"
                    + "\\[\\d+(?:,\\d+)?\\]<(?:stdout|stderr|stddiag)>:");
    private static final DateTimeFormatter ASCTIME =
            DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.ROOT);

    private final LineSink next;
    private final String prefix;
    private final Clock clock;

    /**
     * @param next where prefixed segments go
     * @param index the rank or task index shown in brackets
     * @param stream {@code stdout} or {@code stderr}
     * @param clock a clock for timestamps, or {@code null} for no timestamp
     */
    public LinePrefixer(LineSink next, int index, String stream, Clock clock) {
        this.next = Objects.requireNonNull(next, "next");
        if (!stream.equals("stdout") && !stream.equals("stderr")) {
            throw new IllegalArgumentException("stream must be stdout or stderr, got " + stream);
        }
        this.prefix = "[" + index + "]<" + stream + ">:";
        this.clock = clock;
    }

    @Override
    public void accept(String segment) {
        if (ALREADY_TAGGED.matcher(segment).lookingAt()) {
            next.accept(segment);
        } else if (clock == null) {
            next.accept(prefix + segment);
        } else {
            next.accept(asctime(ZonedDateTime.now(clock)) + prefix + segment);
        }
    }

    /** C {@code asctime} format without the newline, e.g. {@code Sat Nov  7 09:05:01 2026}. */
    public static String asctime(ZonedDateTime t) {
        return ASCTIME.format(t);
    }
}
