package org.troika.worker.elastic;

import java.util.Optional;

/**
 * Where rank 0 learns that the driver announced a host change. The real source is troika's authenticated
 * notification service (the rsh-agent wire protocol); {@link InMemoryHostUpdateSource} serves tests and
 * single-process use. Only rank 0 polls; {@link State#checkHostUpdates()} shares the answer with every rank.
 */
public interface HostUpdateSource {
    /** The changes announced since the last poll, merged into one, or empty. Must not block. */
    Optional<HostChange> poll();

    /**
     * Fails at once if this source already knows it cannot work (e.g. its key is unreadable); does no I/O.
     *
     * @throws ElasticStartFailure naming the rank, the host and the cause
     */
    default void check() {}

    /**
     * Gives back a change {@link #poll()} returned that the world did not make (a rank failed while it was shared or
     * made): the next poll returns it again, merged with anything announced since ({@link HostChange#merge}). A source
     * that never announces anything ignores it.
     */
    default void requeue(HostChange change) {}

    /** A source that never announces anything (ranks other than 0, or jobs without a driver). */
    static HostUpdateSource none() {
        return Silent.NONE;
    }

    /** Holds the one {@link #none()} (a rank that takes over listening looks for it). */
    final class Silent {
        static final HostUpdateSource NONE = Optional::empty;

        private Silent() {}
    }
}
