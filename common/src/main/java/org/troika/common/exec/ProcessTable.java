package org.troika.common.exec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds processes by a marker in their environment (Linux {@code /proc}), e.g. every process of one job after a
 * crash, or leftovers in tests. A process's environment is the one it was started with; children inherit it.
 */
public final class ProcessTable {
    private static final Path PROC = Path.of("/proc");

    private ProcessTable() {}

    /**
     * Live processes other than this JVM whose environment sets {@code key} to {@code value} (its first entry for
     * {@code key}, as getenv reads it). Zombies (exited, not yet reaped) are left out; so are processes whose environment
     * this user may not read.
     */
    public static List<ProcessHandle> withEnv(String key, String value) {
        return withEnvValues(key, java.util.Set.of(value)).getOrDefault(value, List.of());
    }

    /**
     * One walk for many markers: the live processes other than this JVM whose environment sets {@code key} to one of
     * {@code values}, by that value (values nobody carries are absent). What {@link #withEnv} finds for each value, for
     * the cost of one call instead of one per value.
     *
     * <p>A process inside {@code execve()} shows an empty environment and command line for a moment (the kernel has
     * given it the new program's memory but not yet copied the strings into it). Such a process, neither a kernel
     * thread nor a zombie, is read again every millisecond for up to {@link #EXEC_WAIT_MILLIS} ms, so that a walk
     * does not miss a tagged process that was exec'ing (a detached daemon a supervisor then failed to end, seen in CI
     * under load). An interrupt ends that wait early (the interrupt stays set). An empty environment next to a command
     * line is read once more: it may have been opened on the program an exec replaced just before the read.
     */
    public static java.util.Map<String, List<ProcessHandle>> withEnvValues(String key, java.util.Set<String> values) {
        return withEnvValues(PROC, key, values, EXEC_WAIT_MILLIS);
    }

    /** How long a walk reads again a process caught inside {@code execve()} (see {@link #withEnvValues}). */
    static final long EXEC_WAIT_MILLIS = 500;

    static java.util.Map<String, List<ProcessHandle>> withEnvValues(Path proc, String key, java.util.Set<String> values,
            long execWaitMillis) {
        java.util.Map<String, List<ProcessHandle>> found = new java.util.HashMap<>();
        if (values.isEmpty()) {
            return found;
        }
        byte[] prefix = (key + "=").getBytes(StandardCharsets.UTF_8);
        long self = ProcessHandle.current().pid();
        List<Path> exec = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(proc, "[0-9]*")) {
            for (Path dir : dirs) {
                if (Long.parseLong(dir.getFileName().toString()) != self && !look(dir, prefix, values, found)) {
                    exec.add(dir);
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot list " + proc, e);
        }
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(execWaitMillis);
        while (!exec.isEmpty() && System.nanoTime() < deadline && !Thread.currentThread().isInterrupted()) {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            exec.removeIf(dir -> look(dir, prefix, values, found));
        }
        return found;
    }

    /**
     * Reads one process's environment into {@code found} if it carries one of {@code values}.
     *
     * @return false only for a process caught inside {@code execve()}, to be read again
     */
    private static boolean look(Path dir, byte[] prefix, java.util.Set<String> values,
            java.util.Map<String, List<ProcessHandle>> found) {
        byte[] env = read(dir.resolve("environ"));
        if (env == null) {
            return true; // gone, or not ours to read
        }
        if (env.length == 0) {
            byte[] cmdline = read(dir.resolve("cmdline"));
            if (cmdline == null) {
                return true;
            }
            if (cmdline.length == 0) {
                return !inExec(dir);
            }
            // the environment may have been opened on the program that an exec then replaced: a read after the exec
            // finds the old memory gone and returns nothing, while the command line, read next, is the new one's (a
            // detached daemon missed that way in CI: `setsid sleep` right after its shell forked it). Read it anew;
            // empty again, the process was started with an empty environment.
            env = read(dir.resolve("environ"));
            if (env == null || env.length == 0) {
                return true;
            }
        }
        String value = valueOf(env, prefix);
        if (value != null && values.contains(value) && !ended(dir)) {
            long pid = Long.parseLong(dir.getFileName().toString());
            ProcessHandle.of(pid).ifPresent(h -> found.computeIfAbsent(value, v -> new ArrayList<>()).add(h));
        }
        return true;
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException | SecurityException e) {
            return null;
        }
    }

    /** Linux's PF_KTHREAD in {@code /proc/PID/stat}'s flags (field 9). */
    private static final long KERNEL_THREAD = 0x00200000L;

    /**
     * Whether a process whose environment and command line read empty is inside {@code execve()}: it is not a kernel
     * thread (those have neither, always) and it has not ended. A process started with an empty environment still has
     * a command line.
     */
    private static boolean inExec(Path dir) {
        try {
            String[] f = statFields(dir);
            return !ended(f) && (Long.parseLong(f[6]) & KERNEL_THREAD) == 0;
        } catch (IOException | RuntimeException e) {
            return false; // gone, or not a stat line
        }
    }

    /** The value of the first environment entry starting with {@code prefix} ({@code KEY=}), or {@code null}. */
    private static String valueOf(byte[] env, byte[] prefix) {
        int start = 0;
        for (int i = 0; i <= env.length; i++) {
            if (i == env.length || env[i] == 0) {
                if (i - start >= prefix.length
                        && java.util.Arrays.equals(env, start, start + prefix.length, prefix, 0, prefix.length)) {
                    return new String(env, start + prefix.length, i - start - prefix.length, StandardCharsets.UTF_8);
                }
                start = i + 1;
            }
        }
        return null;
    }

    /**
     * Whether process {@code pid} still runs: it exists and has not ended. A zombie (exited, not yet reaped) has ended,
     * though {@link ProcessHandle#isAlive()} is true for it until its parent (or init) reaps it.
     */
    public static boolean running(long pid) {
        return !ended(PROC.resolve(Long.toString(pid)));
    }

    /** Whether the process of {@code dir} has ended: gone, a zombie, or dead. */
    private static boolean ended(Path dir) {
        try {
            return ended(statFields(dir));
        } catch (IOException | RuntimeException e) {
            return true; // gone, or not a stat line
        }
    }

    /**
     * Whether {@code stat} ({@link #statFields}: the state first) is that of an ended process: a zombie (Z) or dead
     * (X).
     */
    public static boolean ended(String[] stat) {
        return stat[0].startsWith("Z") || stat[0].startsWith("X");
    }

    /**
     * Process group and session of {@code pid} from {@code /proc/PID/stat}: {@code {pgrp, session}}.
     *
     * @throws IOException if the process is gone
     */
    public static long[] groupAndSession(long pid) throws IOException {
        String[] f = statFields(Long.toString(pid));
        // after the name: state ppid pgrp session ...
        return new long[] {Long.parseLong(f[2]), Long.parseLong(f[3])};
    }

    /**
     * The CPU time (user and system, ms) of this process's children that have ended and been waited for, their own
     * waited-for children included: {@code /proc/self/stat}'s cutime and cstime (clock ticks of 10 ms, USER_HZ 100 on
     * Linux).
     *
     * @throws IOException if {@code /proc} cannot be read (not Linux, not mounted)
     */
    public static long childCpuMillis() throws IOException {
        String[] f = statFields("self");
        // after the name, fields 16 and 17 of stat: cutime, cstime
        return (Long.parseLong(f[13]) + Long.parseLong(f[14])) * 10;
    }

    /**
     * The fields of {@code /proc/PROCESS/stat} after the command name (which may contain spaces and parentheses), the
     * state (field 3) first; {@code process} is a pid or {@code self}.
     *
     * @throws IOException if the process is gone
     */
    public static String[] statFields(String process) throws IOException {
        return statFields(PROC.resolve(process));
    }

    private static String[] statFields(Path dir) throws IOException {
        String stat = Files.readString(dir.resolve("stat"), StandardCharsets.UTF_8);
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    }
}
