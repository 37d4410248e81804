package org.troika.launcher.exec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A launch's files (hostfiles, rank files, agent configuration) written owner-only before the launch and removed
 * after it: each file mode 0600, each directory troika has to create mode 0700. {@link #close()} deletes the files
 * and, recursively, the directories this instance created; directories that already existed are kept.
 */
final class PlanFiles implements AutoCloseable {
    private static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");
    private static final FileAttribute<Set<PosixFilePermission>> DIR_MODE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

    private final List<Path> files = new ArrayList<>();
    private final List<Path> createdDirs = new ArrayList<>();

    private PlanFiles() {}

    /** Writes every file of {@code contents} (UTF-8); on failure removes what it wrote and rethrows. */
    static PlanFiles write(Map<Path, String> contents) throws IOException {
        PlanFiles pf = new PlanFiles();
        try {
            for (Map.Entry<Path, String> e : contents.entrySet()) {
                pf.writeOne(e.getKey().toAbsolutePath().normalize(), e.getValue());
            }
        } catch (IOException | RuntimeException e) {
            pf.close();
            throw e;
        }
        return pf;
    }

    private void writeOne(Path file, String text) throws IOException {
        mkdirs(file.getParent());
        files.add(file);
        Files.deleteIfExists(file); // a fresh inode: an existing file's mode and links must not leak into ours
        try (var ch = Files.newByteChannel(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(FILE_MODE))) {
            ch.write(java.nio.ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
        }
        Files.setPosixFilePermissions(file, FILE_MODE); // the umask may have narrowed more than asked; never widened
    }

    private void mkdirs(Path dir) throws IOException {
        if (dir == null || Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        mkdirs(dir.getParent());
        try {
            Files.createDirectory(dir, DIR_MODE);
            createdDirs.add(dir);
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(dir)) {
                throw e;
            }
        }
    }

    /** Deletes the files, then the directories created for them (outermost last). Never throws. */
    @Override
    public void close() {
        for (Path f : files) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException e) {
                // best effort: a leftover file is owner-only
            }
        }
        for (int i = createdDirs.size() - 1; i >= 0; i--) {
            deleteTree(createdDirs.get(i));
        }
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            // best effort
        }
    }
}
