package org.troika.launcher.spi;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The real {@link FileSource}: bound first, read after.
 * <ol>
 *   <li>The path (links followed) must be a regular file: a FIFO would block the reader forever, {@code /dev/zero}
 *       would fill the heap, a directory is a mistake. Checked before the file is opened.</li>
 *   <li>Its size must be at most {@code maxBytes}; reading stops at {@code maxBytes + 1} bytes, so a file that grows
 *       meanwhile is refused too.</li>
 *   <li>Opening and reading happen on a daemon thread that the caller waits for at most {@code timeout} (a hung
 *       network file system, or a file swapped for a FIFO after the check); on timeout the thread is interrupted and
 *       abandoned, and the caller gets an error.</li>
 *   <li>The bytes must be UTF-8; lines end at {@code \n}, {@code \r\n} or {@code \r}.</li>
 * </ol>
 */
final class BoundedFileSource implements FileSource {
    private final long maxBytes;
    private final Duration timeout;
    private final boolean regularOnly;

    /** @param regularOnly refuse anything but regular files (false only in tests of the timeout) */
    BoundedFileSource(long maxBytes, Duration timeout, boolean regularOnly) {
        if (maxBytes < 1 || maxBytes >= Integer.MAX_VALUE) {
            throw new IllegalArgumentException("maxBytes must be within 1.." + (Integer.MAX_VALUE - 1) + ": " + maxBytes);
        }
        this.maxBytes = maxBytes;
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.regularOnly = regularOnly;
    }

    @Override
    public List<String> readLines(Path path) throws IOException {
        return new TextLines(readText(path, maxBytes, "host files"));
    }

    @Override
    public String readText(Path path, long limit, String what) throws IOException {
        long max = Math.min(limit, maxBytes);
        if (regularOnly) {
            BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
            if (!a.isRegularFile()) {
                throw new Unusable("is " + FileSource.kindOf(path) + ", not a regular file");
            }
            if (a.size() > max) {
                throw tooLarge(a.size(), max, what);
            }
        }
        byte[] bytes = readWithTimeout(path, max);
        if (bytes.length > max) {
            throw tooLarge(-1, max, what);
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new Unusable("is not UTF-8 text");
        }
    }

    /**
     * The lines of a text without a string per line: the text and two offsets per line (8 bytes), each line made
     * when it is asked for. A 1,000,000-line host file holds its text once, not twice plus a million objects.
     * Lines end at {@code \n}, {@code \r\n} or {@code \r}, as {@link String#lines()}.
     */
    static final class TextLines extends AbstractList<String> implements RandomAccess {
        private final String text;
        private int[] starts = new int[16];
        private int[] ends = new int[16];
        private int size;

        TextLines(String text) {
            this.text = text;
            int start = 0;
            int n = text.length();
            for (int i = 0; i < n; i++) {
                char c = text.charAt(i);
                if (c == '\n' || c == '\r') {
                    add(start, i);
                    if (c == '\r' && i + 1 < n && text.charAt(i + 1) == '\n') {
                        i++;
                    }
                    start = i + 1;
                }
            }
            if (start < n) {
                add(start, n);
            }
            starts = Arrays.copyOf(starts, size);
            ends = Arrays.copyOf(ends, size);
        }

        private void add(int start, int end) {
            if (size == starts.length) {
                starts = Arrays.copyOf(starts, size * 2);
                ends = Arrays.copyOf(ends, size * 2);
            }
            starts[size] = start;
            ends[size++] = end;
        }

        @Override
        public String get(int i) {
            Objects.checkIndex(i, size);
            return text.substring(starts[i], ends[i]);
        }

        @Override
        public int size() {
            return size;
        }
    }

    private byte[] readWithTimeout(Path path, long max) throws IOException {
        FutureTask<byte[]> read = new FutureTask<>(() -> {
            try (InputStream in = Files.newInputStream(path)) {
                return in.readNBytes((int) max + 1);
            }
        });
        Thread t = new Thread(read, "troika-read-" + path.getFileName());
        t.setDaemon(true);
        t.start();
        try {
            return read.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            t.interrupt(); // a read blocked in open() of a FIFO cannot be interrupted; the daemon thread is abandoned
            throw new Unusable("could not be read within " + timeout.toMillis() / 1000.0
                    + " s (a FIFO or a hung file system?)");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            if (e.getCause() instanceof Error err) {
                throw err; // out of memory is troika's failure (one line from Main), not the file's
            }
            throw new IOException(e.getCause());
        } catch (InterruptedException e) {
            t.interrupt();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading " + path, e);
        }
    }

    private static Unusable tooLarge(long size, long max, String what) {
        return new Unusable((size >= 0 ? "is " + size + " bytes, more" : "has more") + " than the " + max
                + "-byte limit for " + what);
    }
}
