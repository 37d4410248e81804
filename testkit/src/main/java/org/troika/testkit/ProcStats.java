package org.troika.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Resident memory, threads and open file descriptors of one process, from {@code /proc} (Linux).
 *
 * @param rssKb {@code VmRSS} in KiB
 * @param threads {@code Threads}
 * @param fds entries of {@code /proc/PID/fd}
 */
public record ProcStats(long rssKb, int threads, int fds) {
    public static ProcStats of(long pid) throws IOException {
        long rss = -1;
        int threads = -1;
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.replaceAll("\\D", ""));
            } else if (line.startsWith("Threads:")) {
                threads = Integer.parseInt(line.replaceAll("\\D", ""));
            }
        }
        int fds;
        try (Stream<Path> s = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            fds = (int) s.count();
        }
        return new ProcStats(rss, threads, fds);
    }

    /** The larger of each field. */
    public ProcStats max(ProcStats o) {
        return new ProcStats(Math.max(rssKb, o.rssKb), Math.max(threads, o.threads), Math.max(fds, o.fds));
    }

    public long rssMb() {
        return rssKb / 1024;
    }

    @Override
    public String toString() {
        return "rss=" + rssMb() + "MB threads=" + threads + " fds=" + fds;
    }
}
