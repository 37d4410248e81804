package org.troika.common.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The walk through {@code /proc} on a made-up process table (the process entries are files a test writes; the pids
 * are real children of this test, so that they have handles): a process caught inside {@code execve()} shows an empty
 * environment and command line for a moment, which a real process cannot be held in for a test.
 */
class ProcessTableTest {
    private static final String KEY = "TROIKA_TEST_TAG";
    @TempDir
    Path proc;
    private final List<Process> children = new java.util.ArrayList<>();
    private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void end() throws InterruptedException {
        later.shutdownNow();
        for (Process p : children) {
            p.destroyForcibly().waitFor();
        }
    }

    private long child() throws IOException {
        Process p = new ProcessBuilder("sleep", "30").start();
        children.add(p);
        return p.pid();
    }

    /** A made-up /proc/PID with the given state, flags, command line and environment (NUL-separated entries). */
    private Path entry(long pid, char state, long flags, String cmdline, String environ) throws IOException {
        Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(dir.resolve("stat"), pid + " (a (b) c) " + state + " 1 " + pid + " " + pid + " 0 -1 " + flags
                + " 0 0 0 0 0 0 0 0 20 0 1 0 12345 0 0\n");
        Files.write(dir.resolve("cmdline"), cmdline.getBytes(StandardCharsets.UTF_8));
        Files.write(dir.resolve("environ"), environ.getBytes(StandardCharsets.UTF_8));
        return dir;
    }

    private static void replace(Path file, String content) throws java.io.IOException {
        Path next = file.resolveSibling(file.getFileName() + ".next");
        Files.write(next, content.getBytes(StandardCharsets.UTF_8));
        Files.move(next, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    @Test
    void aProcessCaughtInsideExecIsReadAgainUntilItsEnvironmentAppears() throws Exception {
        long execing = child();
        long plain = child();
        Path dir = entry(execing, 'R', 0x400000, "", "");
        entry(plain, 'S', 0x400000, "sleep\0", "A=1\0" + KEY + "=t2\0");
        AtomicInteger reads = new AtomicInteger();
        later.schedule(() -> {
            reads.incrementAndGet();
            // each file appears whole (a rename), the environment first: both come with the new program (an empty
            // environment read beside a command line is the other case, anEnvironmentOpenedJustBeforeAnExec...)
            replace(dir.resolve("environ"), "PATH=/bin\0" + KEY + "=t1\0");
            replace(dir.resolve("cmdline"), "sleep\u000030\u0000");
            return null;
        }, 40, TimeUnit.MILLISECONDS);
        // a wait far above the 40 ms: the walk ends as soon as the environment appears, and a loaded machine may
        // run the write late (the default wait, 500 ms, is for real execs)
        Map<String, List<ProcessHandle>> found = ProcessTable.withEnvValues(proc, KEY, Set.of("t1", "t2"), 10_000);
        assertEquals(1, reads.get(), "the walk returned before the exec'ing process got its environment");
        assertEquals(List.of(execing), pids(found.get("t1")), "the process that was inside execve() is found");
        assertEquals(List.of(plain), pids(found.get("t2")));
    }

    @Test
    @Timeout(60)
    void anEnvironmentOpenedJustBeforeAnExecIsReadAgain() throws Exception {
        // a real exec can show this: the environment file opened on the old program, whose memory is gone when it is
        // read (nothing), then the command line read from the new one. A named pipe gives the walk exactly that: its
        // first reading of the environment is empty, the second has the tag.
        long execed = child();
        Path dir = entry(execed, 'S', 0x400000, "sleep\u000030\u0000", "");
        Path environ = dir.resolve("environ");
        Files.delete(environ);
        assertEquals(0, new ProcessBuilder("mkfifo", environ.toString()).start().waitFor());
        AtomicInteger opened = new AtomicInteger();
        Thread writer = new Thread(() -> {
            try {
                for (String reading : List.of("", "PATH=/bin\0" + KEY + "=t\0")) {
                    try (var out = Files.newOutputStream(environ)) { // blocks until the walk opens it
                        opened.incrementAndGet();
                        out.write(reading.getBytes(StandardCharsets.UTF_8));
                    }
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        writer.setDaemon(true); // a walk that read only once leaves it blocked in its second open
        writer.start();
        Map<String, List<ProcessHandle>> found = ProcessTable.withEnvValues(proc, KEY, Set.of("t"), 0);
        assertEquals(List.of(execed), pids(found.get("t")), "an environment read empty once was not read again");
        writer.join(10_000);
        assertEquals(2, opened.get());
    }

    @Test
    @Timeout(60) // a walk that waited for any of these would take 10 minutes
    void kernelThreadsZombiesAndEmptyEnvironmentsWithACommandLineAreNotWaitedFor() throws Exception {
        entry(child(), 'S', 0x00208040, "", ""); // a kernel thread: PF_KTHREAD, no command line, no environment
        entry(child(), 'Z', 0x400000, "", ""); // ended, not yet reaped
        entry(child(), 'S', 0x400000, "sleep\0", ""); // started with env -i
        long tagged = child();
        entry(tagged, 'S', 0x400000, "x\0", KEY + "=t\0");
        long ended = child();
        entry(ended, 'Z', 0x400000, "x\0", KEY + "=t\0"); // a zombie keeps no environment in fact; left out anyway
        Map<String, List<ProcessHandle>> found = ProcessTable.withEnvValues(proc, KEY, Set.of("t"), 600_000);
        assertEquals(List.of(tagged), pids(found.get("t")));
    }

    @Test
    void aProcessThatStaysEmptyIsGivenUpAfterTheWait() throws Exception {
        long stuck = child();
        entry(stuck, 'D', 0, "", "");
        long tagged = child();
        entry(tagged, 'S', 0, "x\0", KEY + "=t\0");
        long start = System.nanoTime();
        Map<String, List<ProcessHandle>> found = ProcessTable.withEnvValues(proc, KEY, Set.of("t"), 100);
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(List.of(tagged), pids(found.get("t")));
        assertTrue(took >= 100, "gave up after " + took + " ms, before the wait for the process inside execve() ended");
    }

    private static List<Long> pids(List<ProcessHandle> handles) {
        return handles == null ? List.of() : handles.stream().map(ProcessHandle::pid).sorted().toList();
    }
}
