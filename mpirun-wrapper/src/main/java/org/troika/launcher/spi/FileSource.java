package org.troika.launcher.spi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Reads text files for detectors, so tests can hand in recorded files. */
@FunctionalInterface
public interface FileSource {
    /** The file's lines. */
    List<String> readLines(Path path) throws IOException;

    /** The real file system. */
    static FileSource system() {
        return p -> Files.readAllLines(p, StandardCharsets.UTF_8);
    }
}
