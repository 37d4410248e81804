package org.troika.launcher.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlanFilesTest {
    @TempDir
    Path tmp;

    @Test
    void writesOwnerOnlyFilesInOwnerOnlyDirectoriesAndRemovesThem() throws Exception {
        Path scratch = tmp.resolve("scratch");
        Path hostfile = scratch.resolve("sub/hostfile");
        Path top = tmp.resolve("rankfile");
        try (PlanFiles pf = PlanFiles.write(Map.of(hostfile, "node1 slots=2\n", top, "rank 0=node1\n"))) {
            assertEquals("node1 slots=2\n", Files.readString(hostfile));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(hostfile)));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(top)));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(scratch)));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(scratch.resolve("sub"))));
            Files.writeString(scratch.resolve("left-by-the-job"), "x");
        }
        assertFalse(Files.exists(scratch), "created directories are removed with their contents");
        assertFalse(Files.exists(top));
        assertTrue(Files.isDirectory(tmp), "directories that existed before are kept");
    }

    @Test
    void replacesAnExistingWorldReadableFile() throws Exception {
        Path f = Files.writeString(tmp.resolve("f"), "old");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-rw-rw-"));
        try (PlanFiles pf = PlanFiles.write(Map.of(f, "new"))) {
            assertEquals("new", Files.readString(f));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        }
        assertFalse(Files.exists(f));
    }
}
