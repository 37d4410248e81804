package org.troika.launcher.exec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.troika.common.PrivateFiles;

/**
 * A launch's files (hostfiles, rank files, agent configuration) written owner-only before the launch and removed
 * after it: each file mode 0600, each directory troika has to create mode 0700. {@link #close()} deletes the files
 * and, recursively, the directories this instance created; directories that already existed are kept.
 */
final class PlanFiles implements AutoCloseable {
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
        PrivateFiles.write(file, text.getBytes(StandardCharsets.UTF_8));
    }

    private void mkdirs(Path dir) throws IOException {
        if (dir == null || Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        mkdirs(dir.getParent());
        try {
            Files.createDirectory(dir, PrivateFiles.dirMode());
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
            PrivateFiles.deleteTreeQuietly(createdDirs.get(i));
        }
    }
}
