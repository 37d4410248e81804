package org.troika.spark;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The host hash of a Spark task: equal for tasks that share one kernel and one container (so one shared-memory unit
 * for MPI), different otherwise. It is the host word mpirun gets, so it is a valid host name: {@code spark-} and 12
 * hex digits.
 */
public final class HostHash {
    private HostHash() {}

    /** The hash of a host name, kernel boot id and cgroup membership (pure). */
    public static String of(String hostname, String bootId, String cgroup) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update((hostname + "\n" + bootId.trim() + "\n" + cgroup.trim()).getBytes(StandardCharsets.UTF_8));
            return "spark-" + HexFormat.of().formatHex(d.digest(), 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }

    /** The hash of this process's host and container. */
    public static String local() {
        return local("");
    }

    /** The hash of this process's host and container, made distinct per {@code extra} (e.g. an executor id). */
    public static String local(String extra) {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "unknown";
        }
        String cgroup = read("/proc/self/cgroup");
        return of(host, read("/proc/sys/kernel/random/boot_id"), extra.isEmpty() ? cgroup : cgroup + "\n" + extra);
    }

    private static String read(String file) {
        try {
            return Files.readString(Path.of(file));
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
