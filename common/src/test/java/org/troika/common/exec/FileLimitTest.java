package org.troika.common.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;

/** The descriptors a launch needs, and the limit raised to them or one line that names the limit and the fix. */
class FileLimitTest {
    private final AtomicLong limit = new AtomicLong(20_000);
    private final List<List<String>> ran = new ArrayList<>();

    @Test
    void theNeedGrowsByAConnectionAndPipesPerHostAndNothingPerRank() {
        assertEquals(FileLimit.BASE, FileLimit.need(0));
        assertEquals(FileLimit.BASE + 4L * 10_000, FileLimit.need(10_000));
    }

    @Test
    void enoughAlreadyRunsNothing() {
        FileLimit.ensure(20_000, "x", 42, limit::get, (argv, t) -> {
            ran.add(argv);
            return new CommandRunner.ProbeResult(0, "");
        });
        assertEquals(List.of(), ran);
    }

    @Test
    void belowTheNeedItIsRaisedWithPrlimit() {
        FileLimit.ensure(50_256, "x", 42, limit::get, (argv, t) -> {
            ran.add(argv);
            limit.set(50_256);
            return new CommandRunner.ProbeResult(0, "");
        });
        assertEquals(List.of(List.of("prlimit", "--pid", "42", "--nofile=50256:50256")), ran);
    }

    @Test
    void whenItCannotBeRaisedOneLineNamesTheNeedTheLimitAndTheFix() {
        UsageException e = assertThrows(UsageException.class, () -> FileLimit.ensure(50_256, "12500 hosts", 42, limit::get, (argv, t) -> new CommandRunner.ProbeResult(1, "prlimit: Operation not"
                + " permitted")));
        assertEquals("12500 hosts need about 50256 file descriptors, but troika may open at most 20000"
                + " (ulimit -Hn) and could not raise that (raising it needs root with CAP_SYS_RESOURCE); raise the hard limit to 50256 or"
                + " more (nofile in /etc/security/limits.conf, LimitNOFILE= for a service, or 'ulimit -Hn 50256' as"
                + " root before starting troika)", e.getMessage());
        assertTrue(!e.getMessage().contains("\n"));
        UsageException missing = assertThrows(UsageException.class, () -> FileLimit.ensure(50_256, "x", 42,
                limit::get, (argv, t) -> new CommandRunner.ProbeResult(CommandRunner.ProbeResult.NOT_FOUND, "")));
        assertTrue(missing.getMessage().contains("prlimit (util-linux) is not installed"), missing.getMessage());
    }

    @Test
    void theSoftLimitIsReadFromProcLimitsAsTheJvmReportsIt() {
        assertEquals(1024L, FileLimit.softOpenFiles("Max open files            1024                 524288               files     "));
        assertEquals(Long.MAX_VALUE, FileLimit.softOpenFiles("Max open files            unlimited            unlimited            files"));
        assertEquals(null, FileLimit.softOpenFiles("Max processes             95322                95322                processes"));
        assertEquals(null, FileLimit.softOpenFiles("Max open files"));
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean u) {
            assertEquals(u.getMaxFileDescriptorCount(), FileLimit.current(), "the file and the JVM agree");
        }
    }
}
