package org.troika.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** JNA's library search path: JNA's order, from ldconfig's output or from ld.so.conf without a process. */
class JnaSearchPathTest {
    @Test
    void standardFoldersFirstThenTheOthersEachOnceIfTheyExist() {
        Set<String> present = Set.of("/usr/lib/x86_64-linux-gnu", "/lib", "/opt/mpi/lib");
        assertEquals("/usr/lib/x86_64-linux-gnu:/lib:/opt/mpi/lib", JnaSearchPath.join("x86_64",
                List.of("/opt/mpi/lib", "/lib", "/opt/gone"), present::contains));
        assertNull(JnaSearchPath.join("ppc64le", List.of(), d -> true));
        assertNull(JnaSearchPath.join("aarch64", List.of(), d -> false));
    }

    @Test
    void ldconfigLinesGiveTheirFolders() {
        String out = "2 libs found in cache `/etc/ld.so.cache'\n"
                + "\tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1\n"
                + "\tlibcuda.so.1 (libc6,x86-64) => /usr/local/cuda/lib64/libcuda.so.1\n"
                + "\tlibm.so.6 (libc6,x86-64) => /lib/x86_64-linux-gnu/libm.so.6\n";
        assertEquals(List.of("/lib/x86_64-linux-gnu", "/usr/local/cuda/lib64"), JnaSearchPath.ldconfigFolders(out));
    }

    @Test
    void ldSoConfFollowsIncludesInNameOrderAndSkipsComments(@TempDir Path tmp) throws Exception {
        Path d = Files.createDirectory(tmp.resolve("ld.so.conf.d"));
        Files.writeString(d.resolve("b.conf"), "# b\n/opt/b/lib   # trailing\n\n");
        Files.writeString(d.resolve("a.conf"), "/opt/a/lib\ninclude " + tmp.resolve("ld.so.conf") + "\n");
        Files.writeString(d.resolve("ignored.txt"), "/opt/nope\n");
        Files.writeString(tmp.resolve("ld.so.conf"), "/first\ninclude ld.so.conf.d/*.conf\ninclude missing/*.conf\n"
                + "/first\n/old/style=libc6\n");
        assertEquals(List.of("/first", "/opt/a/lib", "/opt/b/lib", "/old/style"),
                JnaSearchPath.ldSoConfFolders(tmp.resolve("ld.so.conf")));
        assertEquals(List.of(), JnaSearchPath.ldSoConfFolders(tmp.resolve("absent.conf")));
    }

    @Test
    void globsMatchStarsAndQuestionMarks() {
        assertTrue(JnaSearchPath.matches("*.conf", 0, "x86_64-linux-gnu.conf", 0));
        assertTrue(JnaSearchPath.matches("a?c*", 0, "abc", 0));
        assertFalse(JnaSearchPath.matches("*.conf", 0, "a.conf.bak", 0));
        assertFalse(JnaSearchPath.matches("a?c", 0, "ac", 0));
    }
}
