package org.troika.launcher.spi;

import java.util.Map;
import org.troika.common.exec.CommandRunner;

/**
 * A batch system troika can read an allocation from. Implementations live in their own modules
 * ({@code lsf-support}, {@code slurm-support}) and are found with {@link java.util.ServiceLoader}.
 *
 * <p>Both methods are pure functions of the environment map, the files read through {@code files} and the probes
 * run through {@code probes}: no static caches, no {@code System.getenv()}.
 */
public interface JobEnvironment {
    /** Short name, e.g. {@code slurm}. */
    String name();

    /** Detection order: lower first. Lets a more specific system win when several markers are set. */
    default int priority() {
        return 100;
    }

    /** Whether the environment shows a job of this batch system. */
    boolean detect(Map<String, String> env);

    /**
     * Reads the allocation.
     *
     * @throws org.troika.common.UsageException with a one-line message when a value is malformed
     */
    Allocation allocation(Map<String, String> env, FileSource files, CommandRunner probes);
}
