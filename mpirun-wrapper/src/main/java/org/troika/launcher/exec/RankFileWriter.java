package org.troika.launcher.exec;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import org.troika.common.exec.LineSink;
import org.troika.launcher.spi.RankOutput;

/**
 * Writes the per-rank output files of a {@link RankOutput} from the launcher's output segments. {@link #open} makes
 * the folder and both files of every rank (emptied when they exist); each rank line then goes to its file as it
 * arrives, written through (a crash loses nothing that was read). At most {@value #OPEN_LIMIT} files are held open at
 * once (the least recently written is closed and reopened for appending when needed), so thousands of ranks stay
 * within the file-descriptor limit. Thread-safe: the stdout and stderr readers feed it concurrently.
 */
final class RankFileWriter implements AutoCloseable {
    static final int OPEN_LIMIT = 64;

    private final RankOutput spec;
    private final Map<String, OutputStream> open = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, OutputStream> eldest) {
            if (size() <= OPEN_LIMIT) {
                return false;
            }
            closeQuietly(eldest.getValue());
            return true;
        }
    };
    private IOException failure;

    private RankFileWriter(RankOutput spec) {
        this.spec = spec;
    }

    /**
     * Creates the folder and every rank's two files, emptied; {@code null} spec gives a writer that ignores everything.
     *
     * @throws UncheckedIOException when the folder or a file cannot be made (before anything is launched)
     */
    static RankFileWriter open(RankOutput spec) {
        return open(spec, true);
    }

    /**
     * {@link #open(RankOutput)}, keeping what the files hold when {@code truncate} is false (the later generations of
     * an elastic job append to the files of the ranks with their numbers).
     */
    static RankFileWriter open(RankOutput spec, boolean truncate) {
        RankFileWriter w = new RankFileWriter(spec);
        if (spec == null) {
            return w;
        }
        try {
            Files.createDirectories(spec.dir());
            for (int rank = 0; rank < spec.ranks(); rank++) {
                for (boolean stderr : new boolean[] {false, true}) {
                    Files.newOutputStream(spec.file(rank, stderr), StandardOpenOption.CREATE,
                            truncate ? StandardOpenOption.TRUNCATE_EXISTING : StandardOpenOption.APPEND,
                            StandardOpenOption.WRITE).close();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the output files under " + spec.dir() + ": " + e.getMessage(), e);
        }
        return w;
    }

    /** Takes one segment of the launcher's stdout ({@code fromStderr} false) or stderr; untagged lines are skipped. */
    void accept(String segment, boolean fromStderr) {
        if (spec == null) {
            return;
        }
        spec.parse(segment, fromStderr).ifPresent(this::write);
    }

    /** A sink that takes each segment (from the launcher's stderr when {@code fromStderr}), then hands it on. */
    LineSink then(boolean fromStderr, LineSink next) {
        return segment -> {
            accept(segment, fromStderr);
            next.accept(segment);
        };
    }

    private synchronized void write(RankOutput.Line line) {
        if (failure != null) {
            return;
        }
        String key = line.rank() + (line.stderr() ? "e" : "o");
        try {
            OutputStream out = open.get(key);
            if (out == null) {
                out = Files.newOutputStream(spec.file(line.rank(), line.stderr()), StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND, StandardOpenOption.WRITE);
                open.put(key, out);
            }
            out.write(line.text().getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            failure = e; // e.g. disk full: the console keeps the output, the error is reported at the end
        }
    }

    /** The first write error, or {@code null}. */
    synchronized IOException failure() {
        return failure;
    }

    @Override
    public synchronized void close() {
        open.values().forEach(RankFileWriter::closeQuietly);
        open.clear();
    }

    private static void closeQuietly(OutputStream out) {
        try {
            out.close();
        } catch (IOException ignored) {
            // written through already: nothing buffered is lost
        }
    }
}
