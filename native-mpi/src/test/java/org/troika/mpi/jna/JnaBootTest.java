package org.troika.mpi.jna;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.sun.jna.Platform;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** JNA's native part, copied once per JNA build into a private cache folder for JNA to load from. */
class JnaBootTest {
    private static byte[] jnaLibrary() throws Exception {
        try (InputStream in = Platform.class.getResourceAsStream("/com/sun/jna/" + Platform.RESOURCE_PREFIX + "/"
                + System.mapLibraryName("jnidispatch"))) {
            return in.readAllBytes();
        }
    }

    @Test
    void copiesTheLibraryOfTheJnaOnTheClassPathOnceIntoAPrivateFolder(@TempDir Path tmp) throws Exception {
        Path dir = JnaBoot.dispatchLibrary(tmp.resolve("jna"));
        assertNotNull(dir);
        Path lib = dir.resolve(System.mapLibraryName("jnidispatch"));
        assertArrayEquals(jnaLibrary(), Files.readAllBytes(lib));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(lib)));
        long inode = (long) Files.getAttribute(lib, "unix:ino");
        assertEquals(dir, JnaBoot.dispatchLibrary(tmp.resolve("jna")), "the same folder the next time");
        assertEquals(inode, (long) Files.getAttribute(lib, "unix:ino"), "not written again");
        Files.write(lib, new byte[] {1, 2, 3}); // damaged: replaced by the right bytes
        assertEquals(dir, JnaBoot.dispatchLibrary(tmp.resolve("jna")));
        assertArrayEquals(jnaLibrary(), Files.readAllBytes(lib));
        try (var s = Files.list(dir)) {
            assertEquals(1, s.count(), "no temporary file left");
        }
    }

    @Test
    void aFolderOthersMayWriteIsNotUsed(@TempDir Path tmp) throws Exception {
        Path dir = JnaBoot.dispatchLibrary(tmp.resolve("jna"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertNull(JnaBoot.dispatchLibrary(tmp.resolve("jna")));
    }
}
