package org.troika.testkit;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A machine-wide lock for a test fixture that uses fixed names or ports (network namespaces of one subnet, the Slurm
 * test cluster's ports): a file lock under /run/lock, taken blocking and held until {@link #close()} (or the JVM's
 * exit). Two test runs on one machine (two checkouts, say) then take turns instead of breaking each other.
 */
public final class MachineLock implements AutoCloseable {
    private final FileChannel channel;

    private MachineLock(FileChannel channel) {
        this.channel = channel;
    }

    /** Blocks until the lock called {@code name} (letters, digits, '-') is free, then holds it. */
    public static MachineLock take(String name) throws IOException {
        if (!name.matches("[A-Za-z0-9-]+")) {
            throw new IllegalArgumentException("lock name: letters, digits and '-' only: " + name);
        }
        Path dir = Path.of("/run/lock");
        Files.createDirectories(dir);
        FileChannel ch = FileChannel.open(dir.resolve("troika-" + name + ".lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        try {
            ch.lock();
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
        return new MachineLock(ch);
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // released with the process anyway
        }
    }
}
