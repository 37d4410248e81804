package org.troika.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.troika.common.exec.FileLimit;
import org.troika.testkit.Requires;

/** What {@code troika run} does before a large launch: this process's own limit, raised for real (root). */
class FileLimitRaiseTest {
    @Test
    void asRootTheLimitIsRaisedPastTheHardLimitWithPrlimit() {
        Requires.root();
        Requires.command("prlimit");
        long before = FileLimit.current();
        FileLimit.ensure(before + 1000, "this test");
        assertEquals(before + 1000, FileLimit.current());
    }
}
