package org.troika.worker.elastic;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.Map;
import java.util.Optional;
import java.util.zip.CRC32;
import org.troika.common.NodeStorePaths;
import org.troika.common.PrivateFiles;
import org.troika.common.TroikaEnv;

/**
 * The committed state of an elastic job on one node, so it outlives the generation that wrote it: the next
 * generation's rank 0 (on the oldest surviving host) reads it and broadcasts it.
 *
 * <p>Layout: {@code <base>/troika-<job>/state.bin}, base {@code /dev/shm} by default (memory, gone at reboot).
 * The directory is created {@code 0700} and refused if it is a symlink, not ours or readable by others. A write
 * goes to a private temporary file in that directory and is renamed over {@code state.bin} atomically, so a
 * reader sees the old commit or the new one, never a torn file; several writers on one node (fake hosts sharing
 * {@code /dev/shm}) are safe. The file has a magic, a version, the length and a CRC32, so a damaged file is
 * reported, not decoded.
 *
 * <p>Every node has its own store (real nodes share no {@code /dev/shm}); at the job's end, Ctrl-C or failure the
 * launcher removes it on every host the job ran on ({@code troika-rsh cleanup --job ID} through the remote shell).
 */
public final class NodeStateStore {
    /** Where stores live by default. */
    public static final Path DEFAULT_BASE = NodeStorePaths.DEFAULT_BASE;
    private static final int MAGIC = 0x54524b53; // "TRKS"
    private static final byte VERSION = 1;
    private static final int HEADER = 4 + 1 + 4 + 8;

    private final Path dir;
    private final Path file;

    /**
     * @param base directory holding the job directories ({@link #DEFAULT_BASE} on nodes)
     * @param jobId the job's id: letters, digits, {@code _ . -}, at most 64, not starting with {@code .}
     */
    public NodeStateStore(Path base, String jobId) {
        this.dir = NodeStorePaths.directory(base, jobId);
        this.file = dir.resolve("state.bin");
    }

    /**
     * The store of the job named by {@link TroikaEnv#JOB_ID} in {@code env}, under {@link #DEFAULT_BASE}.
     *
     * @throws IllegalStateException if the variable is missing (the rank was not started by an elastic launch)
     */
    public static NodeStateStore fromEnvironment(Map<String, String> env) {
        String job = env.get(TroikaEnv.JOB_ID);
        if (job == null) {
            throw new IllegalStateException(TroikaEnv.JOB_ID + " is not set; start elastic ranks with troika run");
        }
        return new NodeStateStore(DEFAULT_BASE, job);
    }

    public Path directory() {
        return dir;
    }

    /** Replaces the stored commit with {@code state}, atomically. */
    public void write(byte[] state) {
        try {
            ensurePrivateDirectory();
            Path tmp = Files.createTempFile(dir, "state-", ".tmp");
            try {
                Files.write(tmp, frame(state));
                try {
                    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    throw new IOException("cannot rename atomically in " + dir, e);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the committed state to " + file, e);
        }
    }

    /**
     * The stored commit, or empty if none was written on this node.
     *
     * @throws IllegalStateException if the file is damaged
     */
    public Optional<byte[]> read() {
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                return Optional.empty();
            }
            checkPrivate();
            return Optional.of(unframe(Files.readAllBytes(file)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the committed state from " + file, e);
        }
    }

    /** Removes the job directory and everything in it (at the end of the job). */
    public void delete() {
        try {
            PrivateFiles.deleteTree(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    private void ensurePrivateDirectory() throws IOException {
        Files.createDirectories(dir.getParent());
        try {
            Files.createDirectory(dir, PrivateFiles.dirMode());
        } catch (FileAlreadyExistsException e) {
            // made earlier (or by another rank on this node): checked below
        }
        checkPrivate();
    }

    private void checkPrivate() throws IOException {
        PosixFileAttributes a = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        String me = System.getProperty("user.name");
        if (!a.isDirectory() || !a.permissions().equals(PrivateFiles.DIR_MODE) || !a.owner().getName().equals(me)) {
            throw new IOException(dir + " is not a private directory of " + me + " (want a directory with mode 0700,"
                    + " not a link); remove it");
        }
    }

    private static byte[] frame(byte[] payload) {
        CRC32 crc = new CRC32();
        crc.update(payload);
        return ByteBuffer.allocate(HEADER + payload.length).putInt(MAGIC).put(VERSION).putInt(payload.length)
                .putLong(crc.getValue()).put(payload).array();
    }

    private byte[] unframe(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        if (bytes.length < HEADER || b.getInt() != MAGIC || b.get() != VERSION) {
            throw new IllegalStateException(file + " is not a troika state file (version " + VERSION + ")");
        }
        int length = b.getInt();
        long crc = b.getLong();
        if (length != b.remaining()) {
            throw new IllegalStateException(file + " is truncated or padded: " + b.remaining() + " of " + length
                    + " bytes");
        }
        byte[] payload = new byte[length];
        b.get(payload);
        CRC32 check = new CRC32();
        check.update(payload);
        if (check.getValue() != crc) {
            throw new IllegalStateException(file + " is damaged (checksum mismatch)");
        }
        return payload;
    }
}
