package org.troika.worker.elastic;

import java.util.Map;
import java.util.Objects;
import org.troika.common.TroikaEnv;

/**
 * What a rank of one generation needs for elastic state.
 *
 * @param rank global rank in this generation
 * @param localRank rank among this host's ranks (local rank 0 keeps the node's copy of the committed state)
 * @param size world size of this generation
 * @param generation the generation id from the driver, 1 for the first launch
 * @param broadcaster broadcast from rank 0 over this generation's ranks
 * @param updates host change announcements (only rank 0's source is read)
 * @param store this node's committed-state store
 */
public record ElasticContext(int rank, int localRank, int size, int generation, StateBroadcaster broadcaster,
        HostUpdateSource updates, NodeStateStore store) {
    public ElasticContext {
        // no bound between localRank and rank: a rank spawned next to running ones starts as rank 0 of its spawn
        // with the host's local rank (TROIKA_LOCAL_RANK, above the ranks already there) until its world regroups
        if (size < 1 || rank < 0 || rank >= size || localRank < 0) {
            throw new IllegalArgumentException("bad rank " + rank + " (local " + localRank + ") of size " + size);
        }
        if (generation < 1) {
            throw new IllegalArgumentException("generations count from 1, got " + generation);
        }
        Objects.requireNonNull(broadcaster, "broadcaster");
        Objects.requireNonNull(updates, "updates");
        Objects.requireNonNull(store, "store");
    }

    /**
     * The generation id from {@link TroikaEnv#ELASTIC_GENERATION} in {@code env}; 1 when unset (a first launch).
     *
     * @throws IllegalArgumentException if it is set but not a positive number
     */
    public static int generationFrom(Map<String, String> env) {
        String v = env.get(TroikaEnv.ELASTIC_GENERATION);
        if (v == null) {
            return 1;
        }
        try {
            int g = Integer.parseInt(v.trim());
            if (g >= 1) {
                return g;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(TroikaEnv.ELASTIC_GENERATION + "='" + v + "' is not a generation id (1, 2, ...)");
    }

    /** Whether this generation follows another one (so reset callbacks run). */
    public boolean isReset() {
        return generation > 1;
    }
}
