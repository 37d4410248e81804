package org.troika.common;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Owner-only files and directories, and their removal: the one place troika makes a private temporary directory
 * (mode 0700), writes a private file (mode 0600, a fresh inode) and deletes a tree.
 */
public final class PrivateFiles {
    /** rwx------ */
    public static final Set<PosixFilePermission> DIR_MODE = PosixFilePermissions.fromString("rwx------");
    /** rw------- */
    public static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");

    private PrivateFiles() {}

    /** The attribute that creates a directory with {@link #DIR_MODE}. */
    public static FileAttribute<Set<PosixFilePermission>> dirMode() {
        return PosixFilePermissions.asFileAttribute(DIR_MODE);
    }

    /** A new directory (mode 0700) with a random name starting with {@code prefix} under {@code parent}. */
    public static Path createTempDirectory(Path parent, String prefix) throws IOException {
        Files.createDirectories(parent);
        return Files.createTempDirectory(parent, prefix, dirMode());
    }

    /** A new directory (mode 0700) with a random name starting with {@code prefix} under the JVM's temp directory. */
    public static Path createTempDirectory(String prefix) throws IOException {
        return Files.createTempDirectory(prefix, dirMode());
    }

    /**
     * Creates {@code dir} with mode 0700, or accepts it if it already is a directory (not a link) owned by us: an
     * existing directory is narrowed to 0700.
     */
    public static void ensureDirectory(Path dir) throws IOException {
        try {
            Files.createDirectory(dir, dirMode());
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw e;
            }
            Files.setPosixFilePermissions(dir, DIR_MODE);
        }
    }

    /**
     * Writes {@code bytes} to {@code file} as a fresh inode with mode 0600: an existing file at that path is removed
     * first, so its mode and links cannot leak into ours; the mode is set again after the write (the umask may have
     * narrowed it more than asked, it is never widened).
     */
    public static void write(Path file, byte[] bytes) throws IOException {
        Files.deleteIfExists(file);
        Files.write(Files.createFile(file, PosixFilePermissions.asFileAttribute(FILE_MODE)), bytes);
        Files.setPosixFilePermissions(file, FILE_MODE);
    }

    /** Deletes {@code dir} and everything below it (links are removed, never followed); a missing tree is fine. */
    public static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        List<Path> all;
        try (Stream<Path> s = Files.walk(dir)) {
            all = s.sorted(Comparator.reverseOrder()).toList();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        for (Path p : all) {
            Files.deleteIfExists(p);
        }
    }

    /** {@link #deleteTree} that never throws (teardown paths: a leftover is owner-only). */
    public static void deleteTreeQuietly(Path dir) {
        try {
            deleteTree(dir);
        } catch (IOException | UncheckedIOException e) {
            // best effort
        }
    }
}
