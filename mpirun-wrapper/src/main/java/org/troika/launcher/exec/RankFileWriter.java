package org.troika.launcher.exec;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.regex.Pattern;
import org.troika.common.UsageException;
import org.troika.launcher.spi.RankOutput;
import org.troika.wire.Nonces;

/**
 * Writes the per-rank output files of a {@link RankOutput} ({@code --output-filename DIR}) from the rank bytes the
 * output pipeline ({@link LaunchOutput}) takes out of the launcher's output. {@link #open} makes the folder and both
 * files of every rank (emptied when they exist) before anything is launched; each rank's bytes then go to its file as
 * they arrive, buffered per file and written out after every read of the launcher's output ({@link #flush}), so the
 * files are as current as the console. At most {@value #OPEN_LIMIT} files are held open at once (the least recently
 * written is closed and reopened for appending when needed), so thousands of ranks stay within the file-descriptor
 * limit.
 *
 * <p>Safety: a rank file is never reached through a symbolic link (opened with {@code O_NOFOLLOW}), and anything
 * but a regular file where one is expected (a FIFO, a device, a folder, a link) is refused before anything is
 * opened, in one line ({@link #check}). The folder itself is the user's: a link to it is followed.
 *
 * <p>Thread-safe: the stdout and stderr readers feed it concurrently.
 */
final class RankFileWriter implements AutoCloseable {
    static final int OPEN_LIMIT = 64;
    /** Bytes buffered per open file between two reads of the launcher's output. */
    static final int BUFFER = 16 * 1024;

    private static final Pattern RANK_FILE = Pattern.compile("rank\\.\\d+\\.std(?:out|err)");

    private final RankOutput spec;
    private final Map<Long, FileBuffer> open = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, FileBuffer> eldest) {
            if (size() <= OPEN_LIMIT) {
                return false;
            }
            closeRecording(eldest.getValue());
            return true;
        }
    };
    private IOException failure;

    private RankFileWriter(RankOutput spec) {
        this.spec = spec;
    }

    /**
     * Checks an {@code --output-filename} folder before anything is launched: it is made if missing, must be a folder
     * troika can write in, and every {@code rank.N.stdout}/{@code rank.N.stderr} in it must be a regular file (not a
     * FIFO, device, folder or symbolic link). Writes nothing but the folder (and a probe file it removes).
     *
     * @throws UsageException one line naming the problem and the fix
     */
    static void check(Path dir) {
        String opt = "--output-filename " + dir;
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new UsageException(opt + " is not a folder (" + kind(dir) + "); give a folder (troika makes it"
                    + " when missing)");
        }
        try {
            Files.createDirectories(dir);
            probeWrite(dir);
        } catch (IOException | UnsupportedOperationException e) {
            throw new UsageException(opt + ": troika cannot write there (" + reason(e) + "); give a folder you can"
                    + " write in");
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir,
                p -> RANK_FILE.matcher(p.getFileName().toString()).matches())) {
            for (Path p : entries) {
                checkFile(p);
            }
        } catch (IOException e) {
            throw new UsageException(opt + ": cannot list it (" + reason(e) + ")");
        }
    }

    /**
     * Creates and removes a probe file in {@code dir}: new (never through an existing name or link), with a random
     * name from the kernel's CSPRNG ({@code Nonces}, as the timeline's temporary files). Not
     * {@code Files.createTempFile}, whose SecureRandom costs every {@code troika run --output-filename} ~20 ms of
     * start-up.
     */
    private static void probeWrite(Path dir) throws IOException {
        Path probe = dir.resolve(".troika-write-check-" + Long.toUnsignedString(Nonces.randomLong(), 36));
        Files.newByteChannel(probe, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE).close();
        Files.delete(probe);
    }

    /** A rank file that exists must be a regular file (not followed if it is a link). */
    private static void checkFile(Path file) {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return;
        } catch (IOException e) {
            throw new UsageException(file + ": " + reason(e) + "; remove it or choose another --output-filename");
        }
        if (!a.isRegularFile()) {
            throw new UsageException(file + " is " + kind(file) + ", not a regular file; troika writes rank output only"
                    + " to regular files: remove it or choose another --output-filename");
        }
    }

    /** What is at {@code p}, for messages: "a FIFO", "a symbolic link", ... (links not followed). */
    private static String kind(Path p) {
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (a.isSymbolicLink()) {
                return "a symbolic link";
            }
            if (a.isDirectory()) {
                return "a folder";
            }
            if (a.isRegularFile()) {
                return "a file";
            }
            Object mode = Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            int type = ((Integer) mode) & 0170000;
            return switch (type) {
                case 0010000 -> "a FIFO";
                case 0020000 -> "a character device";
                case 0060000 -> "a block device";
                case 0140000 -> "a socket";
                default -> "not a regular file";
            };
        } catch (IOException | RuntimeException e) {
            return "unreadable";
        }
    }

    private static String reason(Exception e) {
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return String.valueOf(e.getMessage());
    }

    /**
     * Creates every rank's two files, emptied when {@code truncate} (else kept: the later generations of an elastic
     * job append to the files of the ranks with their numbers); a spec without a folder gives a writer that ignores
     * everything. The files are made on a helper thread, so that an interrupt (Ctrl-C) ends the wait whatever the
     * file system does with an open.
     *
     * @throws UsageException when the folder or a file is not what it should be (before anything is launched)
     * @throws InterruptedIOException when interrupted meanwhile
     */
    static RankFileWriter open(RankOutput spec, boolean truncate) throws InterruptedIOException {
        RankFileWriter w = new RankFileWriter(spec);
        if (spec == null || spec.dir() == null) {
            return w;
        }
        check(spec.dir());
        CompletableFuture<Void> made = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                for (int rank = 0; rank < spec.ranks(); rank++) {
                    for (boolean stderr : new boolean[] {false, true}) {
                        create(spec.file(rank, stderr), truncate).close();
                    }
                }
                made.complete(null);
            } catch (Throwable e) {
                made.completeExceptionally(e);
            }
        }, "troika-rank-files");
        t.setDaemon(true);
        t.start();
        try {
            made.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while making the per-rank files under " + spec.dir());
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof UsageException u) {
                throw u;
            }
            throw new UsageException("cannot create the output files under " + spec.dir() + ": "
                    + (c instanceof Exception x ? reason(x) : String.valueOf(c)), c);
        }
        return w;
    }

    /**
     * Opens a rank file for writing without following a link: created new when missing, else checked to be a regular
     * file and opened (emptied when {@code truncate}, else appended to).
     */
    private static OutputStream create(Path file, boolean truncate) throws IOException {
        try {
            return Channels.newOutputStream(Files.newByteChannel(file, Set.of(StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)));
        } catch (FileAlreadyExistsException e) {
            checkFile(file);
            Set<OpenOption> opts = Set.of(StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS,
                    truncate ? StandardOpenOption.TRUNCATE_EXISTING : StandardOpenOption.APPEND);
            return Channels.newOutputStream(Files.newByteChannel(file, opts));
        }
    }

    /** Takes {@code len} bytes of a rank's output for its stdout or stderr file. */
    synchronized void write(int rank, boolean stderr, byte[] b, int off, int len) {
        if (failure != null || spec == null || spec.dir() == null) {
            return;
        }
        long key = (long) rank << 1 | (stderr ? 1 : 0);
        try {
            FileBuffer f = open.get(key);
            if (f == null) {
                f = new FileBuffer(create(spec.file(rank, stderr), false));
                open.put(key, f);
            }
            f.write(b, off, len);
        } catch (IOException | UsageException e) {
            failure = e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
    }

    /** Writes out what is buffered (after each read of the launcher's output). */
    synchronized void flush() {
        if (failure != null) {
            return;
        }
        try {
            for (FileBuffer f : open.values()) {
                f.flush();
            }
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
        open.values().forEach(this::closeRecording);
        open.clear();
    }

    /** Closes one file; a failed last write is the writer's failure. */
    private void closeRecording(FileBuffer f) {
        try {
            f.close();
        } catch (IOException e) {
            if (failure == null) {
                failure = e;
            }
        }
    }

    /** One open rank file and the bytes not written yet. */
    private static final class FileBuffer {
        private final OutputStream out;
        private final byte[] buf = new byte[BUFFER];
        private int n;

        FileBuffer(OutputStream out) {
            this.out = out;
        }

        void write(byte[] b, int off, int len) throws IOException {
            if (len > buf.length - n) {
                flush();
                if (len >= buf.length) {
                    out.write(b, off, len);
                    return;
                }
            }
            System.arraycopy(b, off, buf, n, len);
            n += len;
        }

        void flush() throws IOException {
            if (n > 0) {
                int k = n;
                n = 0;
                out.write(buf, 0, k);
            }
        }

        void close() throws IOException {
            try {
                flush();
            } finally {
                out.close();
            }
        }
    }
}
