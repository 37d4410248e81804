package org.troika.common.exec;

/**
 * Receives a child's output exactly as the {@link ProcessSupervisor} reads it: the bytes, in order, one read at a
 * time, with nothing decoded, cut or added. Sinks that want text lines wrap a {@link LineSink} in a
 * {@link LineSplitter}.
 *
 * <p>Threading: each stream's sink is called from that stream's own reader thread, never concurrently for the same
 * stream; a sink shared by stdout and stderr must be thread-safe.
 */
@FunctionalInterface
public interface OutputSink {
    /** Takes {@code len > 0} bytes of {@code b} from {@code off}; the array is reused after the call returns. */
    void write(byte[] b, int off, int len);

    /** The stream ended (after its last {@link #write}). */
    default void end() {}
}
