package org.troika.common.exec;

/**
 * Receives a child's output as text, one segment at a time, as {@link LineSplitter} cuts it (decoded as UTF-8: for
 * output troika reads as text, never for what ranks print, which goes through as bytes: {@link OutputSink}).
 *
 * <p>A segment is a line with its terminator: it ends in {@code "\n"}, {@code "\r\n"} or a lone {@code "\r"} (a
 * progress-bar redraw), or, for the last piece before end of stream and for the pieces of a line longer than
 * {@link LineSplitter#MAX_SEGMENT}, in no terminator at all. Writing the segments
 * back to back reproduces the decoded stream exactly.
 *
 * <p>Threading: a {@link ProcessSupervisor} calls each stream's sink from that stream's own reader thread, never
 * concurrently for the same stream; a sink shared by stdout and stderr must be thread-safe.
 */
@FunctionalInterface
public interface LineSink {
    /** Takes one segment (never {@code null}, never empty). Implementations should write and flush it at once. */
    void accept(String segment);

    /** A sink that drops everything. */
    static LineSink discard() {
        return s -> { };
    }
}
