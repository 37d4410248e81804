package org.troika.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Private directories and the removal of those whose owner was killed before it could clean up. */
class PrivateFilesTest {
    @TempDir
    Path tmp;

    @Test
    void createsAnOwnerOnlyDirectoryNamedAfterThisProcessAndKernel() throws Exception {
        Path d = PrivateFiles.createOwnedTempDirectory(tmp);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(d)));
        assertTrue(d.getFileName().toString().startsWith("troika-" + ProcessHandle.current().pid() + "-"
                + PrivateFiles.boot() + "-"), d.toString());
        assertTrue(PrivateFiles.ownedName(d.getFileName().toString()));
        assertTrue(Files.exists(d.resolve(PrivateFiles.LOCK)));
        assertEquals(0, PrivateFiles.removeAbandoned(tmp), "a live owner's directory is not abandoned");
    }

    @Test
    void removesOnlyDirectoriesOfDeadOwnersOnThisKernel() throws Exception {
        // an owner killed with SIGKILL leaves its lock file unlocked (KeyDirectoryTest kills real owners, also from
        // another PID namespace)
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        long dead = p.pid();
        Path abandoned = Files.createDirectories(tmp.resolve("troika-" + dead + "-" + PrivateFiles.boot() + "-9f"));
        Files.writeString(abandoned.resolve(PrivateFiles.LOCK), "");
        Files.writeString(abandoned.resolve("secret"), "stale");
        // without a lock file (an older troika's, or being removed), or from another kernel: never removed
        Path unlocked = Files.createDirectories(tmp.resolve("troika-" + dead + "-" + PrivateFiles.boot() + "-1a2b"));
        Path otherKernel = Files.createDirectories(tmp.resolve("troika-" + dead + "-"
                + (PrivateFiles.boot().equals("00000000") ? "11111111" : "00000000") + "-1a2b"));
        Files.writeString(otherKernel.resolve(PrivateFiles.LOCK), "");
        Path live = PrivateFiles.createOwnedTempDirectory(tmp);
        Path foreign = Files.createDirectories(tmp.resolve("troika-scratch"));
        Path mine = PrivateFiles.createOwnedTempDirectory(tmp); // create() sweeps first
        assertFalse(Files.exists(abandoned), "a dead owner's key directory survived");
        assertTrue(Files.exists(otherKernel), "a directory from another machine or boot was removed");
        assertTrue(Files.exists(unlocked), "a directory without a lock file was removed");
        assertTrue(Files.exists(live) && Files.exists(mine) && Files.exists(foreign));
        assertEquals(0, PrivateFiles.removeAbandoned(tmp));
        PrivateFiles.deleteTree(live); // gives up its lock: nothing of it is left, and a new one can be made
        assertFalse(Files.exists(live));
        assertTrue(Files.exists(PrivateFiles.createOwnedTempDirectory(tmp)));
    }
}
