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
import java.util.List;
import java.util.Objects;
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
        if (regularOnly) {
            BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
            if (!a.isRegularFile()) {
                throw new Unusable("is " + FileSource.kindOf(path) + ", not a regular file");
            }
            if (a.size() > maxBytes) {
                throw tooLarge(a.size());
            }
        }
        byte[] bytes = readWithTimeout(path);
        if (bytes.length > maxBytes) {
            throw tooLarge(-1);
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new Unusable("is not UTF-8 text");
        }
        return text.lines().toList();
    }

    private byte[] readWithTimeout(Path path) throws IOException {
        FutureTask<byte[]> read = new FutureTask<>(() -> {
            try (InputStream in = Files.newInputStream(path)) {
                return in.readNBytes((int) maxBytes + 1);
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
            throw new IOException(e.getCause());
        } catch (InterruptedException e) {
            t.interrupt();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading " + path, e);
        }
    }

    private Unusable tooLarge(long size) {
        return new Unusable((size >= 0 ? "is " + size + " bytes, more" : "has more") + " than the " + maxBytes
                + "-byte limit for host files");
    }
}
