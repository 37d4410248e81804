package org.troika.launcher.elastic;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Starts generations: the seam between the elastic driver's decisions and processes. The real implementation
 * plans one static launch (mpirun over the generation's hosts, through the relay agent) and supervises it;
 * tests use a fake.
 */
public interface GenerationLauncher {
    /** Starts all ranks of {@code generation} and returns at once. */
    RunningGeneration launch(Generation generation);

    /**
     * The hosts to keep ready changed (the usable ones: discovered with slots, not blacklisted; then the standby ones:
     * discovered with 0 slots, not blacklisted), or a generation is about to be planned: a launcher may ready them now
     * (start their services while the current generation runs) and release hosts that left. Called on the driver's
     * thread; the default does nothing.
     */
    default void hostsChanged(List<String> served) {
    }

    /**
     * The standby hosts discovery lists ({@code host:0}, blacklisted ones included) changed: a launcher that starts
     * standby ranks ({@code --standby-ranks}) starts them on these hosts only, not on usable hosts a generation leaves
     * without ranks. Called on the driver's thread before {@link #hostsChanged}; the default does nothing.
     */
    default void standbyChanged(List<String> standby) {
    }

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

        /** What this generation can change in place (issue 25); the default: nothing. */
        default World.InPlace inPlace() {
            return World.InPlace.NONE;
        }

        /**
         * The standby ranks of this generation not activated yet (a launch with {@code --standby-ranks}): the ids of
         * each standby host's waiting ranks, in order; empty for every other launch, and before the launch started.
         */
        default java.util.Map<String, List<Integer>> standbyRanks() {
            return java.util.Map.of();
        }

        /**
         * Changes the world in place (ranks leave, ranks are spawned onto new hosts) instead of ending the generation.
         * Returns at once. False when it cannot take the change (the driver then announces the update); once taken,
         * the generation makes it, or, when that fails (a new host's service does not come up, the spawn fails), ends
         * as after an announcement, so the driver relaunches. Changes are made in the order given.
         */
        default boolean changeInPlace(WorldChange change) {
            return false;
        }
    }
}
