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
     */
    public static java.util.Map<String, List<ProcessHandle>> withEnvValues(String key, java.util.Set<String> values) {
        java.util.Map<String, List<ProcessHandle>> found = new java.util.HashMap<>();
        if (values.isEmpty()) {
            return found;
        }
        byte[] prefix = (key + "=").getBytes(StandardCharsets.UTF_8);
        long self = ProcessHandle.current().pid();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(PROC, "[0-9]*")) {
            for (Path dir : dirs) {
                long pid = Long.parseLong(dir.getFileName().toString());
                String value = pid == self ? null : valueOf(dir.resolve("environ"), prefix);
                if (value != null && values.contains(value) && !isZombie(dir)) {
                    ProcessHandle.of(pid).ifPresent(h -> found.computeIfAbsent(value, v -> new ArrayList<>()).add(h));
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot list " + PROC, e);
        }
        return found;
    }

    /** The value of the first environment entry starting with {@code prefix} ({@code KEY=}), or {@code null}. */
    private static String valueOf(Path environ, byte[] prefix) {
        byte[] env;
        try {
            env = Files.readAllBytes(environ);
        } catch (IOException | SecurityException e) {
            return null; // gone, or not ours to read
        }
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

    private static boolean isZombie(Path dir) {
        try {
            String stat = Files.readString(dir.resolve("stat"), StandardCharsets.UTF_8);
            int close = stat.lastIndexOf(')'); // the command name may contain spaces and parentheses
            return close < 0 || close + 2 >= stat.length() || stat.charAt(close + 2) == 'Z' || stat.charAt(close + 2) == 'X';
        } catch (IOException e) {
            return true; // gone
        }
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
        String stat = Files.readString(PROC.resolve(process).resolve("stat"), StandardCharsets.UTF_8);
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    }
}
