package org.troika.common;

import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Where an elastic job keeps its committed state on a node: {@code /dev/shm/troika-<job id>}. One definition for the
 * ranks that write it (troika-worker's node state store) and the host-side cleanup that removes it at the job's end
 * ({@code troika-rsh cleanup}).
 */
public final class NodeStorePaths {
    private NodeStorePaths() {}

    /** Where stores live by default (memory, gone at reboot). */
    public static final Path DEFAULT_BASE = Path.of("/dev/shm");

    /** Job ids: letters, digits, {@code _ . -}, at most 64, not starting with {@code .}. */
    public static final Pattern JOB_ID = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}");

    /**
     * The store directory of {@code jobId} under {@code base}.
     *
     * @throws IllegalArgumentException if the job id is not of the allowed form
     */
    public static Path directory(Path base, String jobId) {
        if (jobId == null || !JOB_ID.matcher(jobId).matches()) {
            throw new IllegalArgumentException("bad job id '" + jobId + "' for the state store; use letters, digits,"
                    + " '_', '.', '-' (at most 64, not starting with '.')");
        }
        return base.resolve("troika-" + jobId);
    }
}
