package org.troika.common.exec;

import java.time.Duration;
import java.util.List;

/**
 * Runs short probe commands ({@code mpirun --version}, {@code csm_allocation_query}) and returns their output as a
 * plain value, so detectors stay testable with recorded outputs.
 */
@FunctionalInterface
public interface CommandRunner {
    /**
     * Runs {@code argv} with stdin closed, capturing stdout and stderr together.
     *
     * @return the result; exit code {@link ProbeResult#NOT_FOUND} when the executable could not be started
     */
    ProbeResult run(List<String> argv, Duration timeout);

    /** A probe's exit code and combined output. */
    record ProbeResult(int exitCode, String output) {
        /** Exit code reported when the program could not be started. */
        public static final int NOT_FOUND = 127;
        /** Exit code reported when the probe timed out and was killed. */
        public static final int TIMED_OUT = 124;

        public boolean ok() {
            return exitCode == 0;
        }
    }
}
