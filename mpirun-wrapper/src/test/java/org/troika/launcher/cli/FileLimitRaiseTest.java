package org.troika.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;
import org.troika.common.exec.FileLimit;
import org.troika.testkit.Requires;

/**
 * What {@code troika run} does before a large launch, on this process's own limit for real: past the hard limit it is
 * raised where the process may (CAP_SYS_RESOURCE), else one line says so and changes nothing.
 */
class FileLimitRaiseTest {
    private static final int CAP_SYS_RESOURCE = 24;

    @Test
    void pastTheHardLimitItIsRaisedWithTheCapabilityAndRefusedInOneLineWithout() throws Exception {
        Requires.command("prlimit");
        long before = FileLimit.current();
        if (mayRaise()) {
            FileLimit.ensure(before + 1000, "this test");
            assertEquals(before + 1000, FileLimit.current());
        } else {
            UsageException e = assertThrows(UsageException.class, () -> FileLimit.ensure(before + 1000, "this test"));
            assertTrue(e.getMessage().startsWith("this test need about " + (before + 1000) + " file descriptors, but"
                    + " troika may open at most " + before + " (ulimit -Hn)"), e.getMessage());
            assertEquals(before, FileLimit.current());
        }
    }

    /** Whether this process holds CAP_SYS_RESOURCE (root in a container often does not). */
    private static boolean mayRaise() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("CapEff:")) {
                return (Long.parseLong(line.substring(7).trim(), 16) >> CAP_SYS_RESOURCE & 1) == 1;
            }
        }
        return false;
    }
}
