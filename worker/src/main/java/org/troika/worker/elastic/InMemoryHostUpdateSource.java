package org.troika.worker.elastic;

import java.util.Optional;

/** A {@link HostUpdateSource} fed by {@link #announce}, e.g. from the notification service's thread. Thread-safe. */
public final class InMemoryHostUpdateSource implements HostUpdateSource {
    private HostChange pending;

    /** Records a change; changes not yet polled are merged. */
    public synchronized void announce(HostChange change) {
        pending = pending == null ? change : pending.merge(change);
    }

    /** As {@link #announce}: merging is symmetric, so a change given back merges with later ones as they would. */
    @Override
    public void requeue(HostChange change) {
        announce(change);
    }

    @Override
    public synchronized Optional<HostChange> poll() {
        Optional<HostChange> c = Optional.ofNullable(pending);
        pending = null;
        return c;
    }
}
