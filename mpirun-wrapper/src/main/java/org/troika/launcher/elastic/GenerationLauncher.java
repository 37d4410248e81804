package org.troika.launcher.elastic;

import java.time.Duration;
import java.util.Optional;

/**
 * Starts generations: the seam between the elastic driver's decisions and processes. The real implementation
 * plans one static launch (mpirun over the generation's hosts, through the relay agent) and supervises it;
 * tests use a fake.
 */
public interface GenerationLauncher {
    /** Starts all ranks of {@code generation} and returns at once. */
    RunningGeneration launch(Generation generation);

    /** A started generation, driven by the driver's single loop thread. */
    interface RunningGeneration {
        /**
         * Waits up to {@code timeout} for the generation to end.
         *
         * @return the result, or empty if it is still running
         */
        Optional<GenerationResult> awaitEnd(Duration timeout) throws InterruptedException;

        /**
         * Tells the ranks (through rank 0, over an authenticated channel) that the hosts changed, so they leave
         * together at their next commit. Best effort: a failed delivery is logged, not thrown, because a rank
         * that cannot be reached will end the generation by failing anyway.
         */
        void announce(HostUpdate update);
    }
}
