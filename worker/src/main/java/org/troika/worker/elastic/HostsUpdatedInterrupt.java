package org.troika.worker.elastic;

/**
 * The job's hosts changed. Raised by {@link State#commit()} and {@link State#checkHostUpdates()} on every rank
 * at the same call, so all ranks leave the generation together; the live state is kept as the committed one and
 * nothing is lost. Training code normally lets it propagate to {@link Elastic#run}.
 */
public class HostsUpdatedInterrupt extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final HostChange change;

    public HostsUpdatedInterrupt(HostChange change) {
        super("hosts " + (change.added() ? (change.removed() ? "added and removed" : "added") : "removed"), null,
                false, false);
        this.change = change;
    }

    public HostChange change() {
        return change;
    }

    /** Whether only hosts were removed: every remaining rank already holds the state, so a sync may be skipped. */
    public boolean skipSync() {
        return !change.added();
    }
}
