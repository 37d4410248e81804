package org.troika.rsh.task;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import org.troika.common.NodeStorePaths;
import org.troika.common.PrivateFiles;
import org.troika.common.UsageException;

/**
 * {@code troika-rsh cleanup --job ID}: removes what an elastic job left on this host, its committed-state store
 * {@code /dev/shm/troika-ID} (written by the ranks, kept between generations). Run by {@code troika run} through the
 * remote shell on every host the job ran on, at the job's end, on Ctrl-C and on failure: hosts share nothing, so each
 * one cleans its own files. A symlink in place of the store is removed, never followed. Exit 0 when nothing is left.
 */
public final class CleanupMain {
    private CleanupMain() {}

    public static int run(List<String> args, PrintStream err) {
        if (args.size() != 2 || !args.get(0).equals("--job")) {
            throw new UsageException("cleanup needs --job ID (the elastic job's TROIKA_JOB_ID)");
        }
        Path dir;
        try {
            dir = NodeStorePaths.directory(NodeStorePaths.DEFAULT_BASE, args.get(1));
        } catch (IllegalArgumentException e) {
            throw new UsageException("cleanup: " + e.getMessage());
        }
        try {
            PrivateFiles.deleteTree(dir);
            return 0;
        } catch (IOException | UncheckedIOException e) {
            err.println("troika-rsh cleanup: cannot remove " + dir + ": " + e);
            return 1;
        }
    }
}
