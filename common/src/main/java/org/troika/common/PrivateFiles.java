package org.troika.common;

import java.io.IOException;
import java.io.UncheckedIOException;
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
 *
 * <p>Key directories ({@link #createOwnedTempDirectory}) are named {@code troika-PID-BOOT-RANDOM}: the owner's pid
 * and the first 8 hex digits of the kernel's boot id. One left behind by an owner killed with SIGKILL is removed the
 * next time troika or a task service makes one in the same place ({@link #removeAbandoned}): only if it was made on
 * this kernel (same boot id, so the pid means the same process; fake hosts sharing one kernel share its pids too) and
 * no process with that pid is alive. A directory made on another machine (a {@code TMPDIR} shared over NFS) or
 * before a reboot is never touched.
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
     * 0700, named after this process and kernel.
     */
    public static Path createOwnedTempDirectory(Path parent) throws IOException {
        Files.createDirectories(parent);
        removeAbandoned(parent);
        String name = "troika-" + ProcessHandle.current().pid() + "-" + BOOT + "-"
                + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        return Files.createDirectory(parent.resolve(name), dirMode());
    }

    /**
     * Deletes every key directory under {@code parent} whose owner died on this kernel; best effort.
     *
     * @return how many were removed
     */
    public static int removeAbandoned(Path parent) {
        int removed = 0;
        try (java.nio.file.DirectoryStream<Path> dirs = Files.newDirectoryStream(parent, "troika-*")) {
            for (Path d : dirs) {
                if (abandoned(d.getFileName().toString()) && Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
                    deleteTreeQuietly(d);
                    removed++;
                }
            }
        } catch (IOException | SecurityException e) {
            // nothing to list, or not ours to read
        }
        return removed;
    }

    private static final java.util.regex.Pattern OWNED = java.util.regex.Pattern.compile(
            "troika-(\\d{1,10})-([0-9a-f]{8})-[0-9a-f]+");
    private static final String BOOT = bootId();

    /** Whether a key directory of this name was made on this kernel by a process that is gone. */
    static boolean abandoned(String name) {
        java.util.regex.Matcher m = OWNED.matcher(name);
        if (!m.matches() || !m.group(2).equals(BOOT)) {
            return false;
        }
        return ProcessHandle.of(Long.parseLong(m.group(1))).map(h -> !h.isAlive()).orElse(true);
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
