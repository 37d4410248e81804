package org.troika.common;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Owner-only files and directories, and their removal: the one place troika makes a private temporary directory
 * (mode 0700), writes a private file (mode 0600, a fresh inode) and deletes a tree.
 *
 * <p>Key directories ({@link #createOwnedTempDirectory}) are named {@code troika-PID-BOOT-RANDOM} (the owner's pid
 * and the first 8 hex digits of the kernel's boot id) and hold a lock file, {@value #LOCK}, that the owner keeps
 * locked (an exclusive {@code fcntl} lock) from before the directory has its name until it removes the directory or
 * exits; the kernel drops the lock when the owner dies, however it dies. One left behind by an owner killed with
 * SIGKILL is removed the next time troika or a task service makes one in the same place ({@link #removeAbandoned}):
 * only if it was made on this kernel (same boot id: a lock on another machine's file system says nothing) and its
 * lock can be taken. The pid is never asked: a troika in another PID namespace sharing {@code /tmp} cannot see the
 * owner's pid, but the lock is the kernel's and the same in every namespace. A directory without a lock file (being
 * removed, or made by an older troika) is never touched.
 */
public final class PrivateFiles {
    /** rwx------ */
    public static final Set<PosixFilePermission> DIR_MODE = PosixFilePermissions.fromString("rwx------");
    /** rw------- */
    public static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");

    private PrivateFiles() {}

    /**
     * troika's per-user cache folder: {@code $XDG_CACHE_HOME/troika}, else {@code $HOME/.cache/troika}; {@code null}
     * when neither is set.
     */
    public static Path userCacheDir(java.util.Map<String, String> env) {
        String xdg = env.get("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isBlank()) {
            return Path.of(xdg, "troika");
        }
        String home = env.get("HOME");
        return home == null || home.isBlank() ? null : Path.of(home, ".cache", "troika");
    }

    /** The attribute that creates a directory with {@link #DIR_MODE}. */
    public static FileAttribute<Set<PosixFilePermission>> dirMode() {
        return PosixFilePermissions.asFileAttribute(DIR_MODE);
    }

    /** A new directory (mode 0700) with a random name starting with {@code prefix} under {@code parent}. */
    public static Path createTempDirectory(Path parent, String prefix) throws IOException {
        Files.createDirectories(parent);
        return Files.createTempDirectory(parent, prefix, dirMode());
    }

    /**
     * Removes abandoned key directories under {@code parent} (see the class comment), then creates a new one, mode
     * 0700, named after this process and kernel, holding its locked {@value #LOCK} file. The directory is made under a
     * name the sweep ignores and renamed once locked, so no sweep ever sees it unlocked; the lock lasts until
     * {@link #deleteTree} removes the directory or the process ends.
     */
    public static Path createOwnedTempDirectory(Path parent) throws IOException {
        Files.createDirectories(parent);
        removeAbandoned(parent);
        String random = Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        Path making = Files.createDirectory(parent.resolve(".troika-new-" + random), dirMode());
        FileChannel lock = null;
        try {
            lock = FileChannel.open(making.resolve(LOCK), EnumSet.of(StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE, StandardOpenOption.READ), PosixFilePermissions.asFileAttribute(FILE_MODE));
            lock.lock();
            Path dir = parent.resolve("troika-" + ProcessHandle.current().pid() + "-" + BOOT + "-" + random);
            Files.move(making, dir, StandardCopyOption.ATOMIC_MOVE);
            HELD.put(dir.toAbsolutePath().normalize(), lock);
            return dir;
        } catch (IOException | RuntimeException e) {
            if (lock != null) {
                lock.close();
            }
            deleteTreeQuietly(making);
            throw e;
        }
    }

    /**
     * Deletes every key directory under {@code parent} whose owner is gone (its lock can be taken) on this kernel;
     * best effort.
     *
     * @return how many were removed
     */
    public static int removeAbandoned(Path parent) {
        int removed = 0;
        try (java.nio.file.DirectoryStream<Path> dirs = Files.newDirectoryStream(parent, "troika-*")) {
            for (Path d : dirs) {
                if (ownedName(d.getFileName().toString()) && Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)
                        && !HELD.containsKey(d.toAbsolutePath().normalize()) && ownerGone(d)) {
                    deleteTreeQuietly(d);
                    removed++;
                }
            }
        } catch (IOException | SecurityException e) {
            // nothing to list, or not ours to read
        }
        return removed;
    }

    /** The name of the lock file in a key directory. */
    static final String LOCK = ".lock";
    private static final java.util.regex.Pattern OWNED = java.util.regex.Pattern.compile(
            "troika-(\\d{1,10})-([0-9a-f]{8})-[0-9a-f]+");
    private static final String BOOT = bootId();
    /**
     * The locks of this process's key directories, by directory. Process-wide on purpose: a lock belongs to the
     * process (POSIX locks are per process, and closing any descriptor of the file drops them, which is why the sweep
     * never opens the lock file of a directory listed here).
     */
    private static final Map<Path, FileChannel> HELD = new ConcurrentHashMap<>();

    /** Whether {@code name} is a key directory's made on this kernel. */
    static boolean ownedName(String name) {
        java.util.regex.Matcher m = OWNED.matcher(name);
        return m.matches() && m.group(2).equals(BOOT);
    }

    /** Whether nobody holds the lock of key directory {@code dir} (so its owner is gone). */
    static boolean ownerGone(Path dir) {
        try (FileChannel ch = FileChannel.open(dir.resolve(LOCK), StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS)) {
            java.nio.channels.FileLock l = ch.tryLock();
            if (l == null) {
                return false;
            }
            l.release();
            return true;
        } catch (IOException | java.nio.channels.OverlappingFileLockException e) {
            return false; // no lock file (an older troika's, or being removed), or ours
        }
    }

    /** The first 8 hex digits of this kernel's boot id ({@code 00000000} where there is none). */
    static String bootId() {
        try {
            String id = Files.readString(Path.of("/proc/sys/kernel/random/boot_id"),
                    java.nio.charset.StandardCharsets.US_ASCII).trim().replace("-", "");
            if (id.length() >= 8 && id.substring(0, 8).matches("[0-9a-f]{8}")) {
                return id.substring(0, 8);
            }
        } catch (IOException | SecurityException e) {
            // not Linux
        }
        return "00000000";
    }

    static String boot() {
        return BOOT;
    }

    /** A new directory (mode 0700) with a random name starting with {@code prefix} under the JVM's temp directory. */
    public static Path createTempDirectory(String prefix) throws IOException {
        return Files.createTempDirectory(prefix, dirMode());
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

    /**
     * Deletes {@code dir} and everything below it (links are removed, never followed); a missing tree is fine. A key
     * directory of this process gives up its lock once it is gone.
     */
    public static void deleteTree(Path dir) throws IOException {
        FileChannel lock = HELD.remove(dir.toAbsolutePath().normalize());
        try {
            deleteFiles(dir);
        } finally {
            if (lock != null) {
                lock.close();
            }
        }
    }

    private static void deleteFiles(Path dir) throws IOException {
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
