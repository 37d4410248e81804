package org.troika.worker.elastic;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Training state that survives generation changes. Subclasses hold the live values and an in-memory committed
 * copy, and say how to copy and encode them ({@link #save()}, {@link #restore()}, {@link #encodeCommitted()},
 * {@link #decodeCommitted(byte[])}); this class does the rest:
 * <ul>
 *   <li>{@link #commit()}: live → committed, the node keeps a copy (local rank 0 writes it to the
 *       {@link NodeStateStore}), then {@link #checkHostUpdates()}.</li>
 *   <li>{@link #checkHostUpdates()}: rank 0 polls the announcements and broadcasts the answer, so every rank
 *       raises {@link HostsUpdatedInterrupt} at the same call, or none does.</li>
 *   <li>{@link #sync()}: rank 0's committed state is broadcast; every rank takes it as committed and live; each
 *       host keeps a copy (so a new host holds the state from its first generation on).</li>
 *   <li>reset callbacks: run by {@link Elastic#run} between a new generation's start and its sync.</li>
 * </ul>
 *
 * <p>Not thread-safe: the training thread owns it. {@link #commit()}, {@link #checkHostUpdates()} and
 * {@link #sync()} are collectives: every rank calls them at the same point.
 */
public abstract class State {
    private ElasticContext context; // replaced when a fault-tolerant world shrinks
    private final List<Runnable> resetCallbacks = new ArrayList<>();

    protected State(ElasticContext context) {
        this.context = Objects.requireNonNull(context, "context");
    }

    /** This rank's context; after a shrink ({@link ElasticWorld}) a new one with the survivors' rank and size. */
    public final ElasticContext context() {
        return context;
    }

    final void replaceContext(ElasticContext next) {
        context = Objects.requireNonNull(next, "next");
    }

    /** Copies the live values into the committed copy. */
    protected abstract void save();

    /** Copies the committed copy back into the live values (the last commit wins over later progress). */
    public abstract void restore();

    /** The committed copy as bytes (data only: it is decoded on other ranks and from the node store). */
    protected abstract byte[] encodeCommitted();

    /**
     * Replaces the committed copy with decoded {@code bytes}.
     *
     * @throws IllegalArgumentException if the bytes are not an encoding of this state
     */
    protected abstract void decodeCommitted(byte[] bytes);

    /** Runs {@code callback} at every reset (a generation after the first), before the state is synced. */
    public final void registerResetCallback(Runnable callback) {
        resetCallbacks.add(Objects.requireNonNull(callback, "callback"));
    }

    /**
     * Commits the live state and then checks for host updates. The commit is kept before the check: when the check
     * throws ({@link HostsUpdatedInterrupt}, or {@link CollectiveFailure}, {@code ProcFailedException} or {@code
     * RevokedException} because a peer died meanwhile), the world that goes on (the shrunk one, or the next generation)
     * resumes from this commit.
     */
    public final void commit() {
        org.troika.worker.Progress.commit();
        save();
        keepOnNode();
        checkHostUpdates();
    }

    /**
     * Raises {@link HostsUpdatedInterrupt} on every rank if rank 0 has been told the hosts changed.
     *
     * @throws CollectiveFailure if the broadcast fails
     */
    public final void checkHostUpdates() {
        byte[] mine = null;
        HostChange polled = null;
        if (context.rank() == 0) {
            polled = context.updates().poll().orElse(null);
            mine = HostChange.encode(polled);
        }
        byte[] agreed;
        try {
            agreed = context.broadcaster().broadcast(mine);
        } catch (RuntimeException e) {
            // a peer died while rank 0 shared the change: the world that goes on (shrunk) gets it at its next commit,
            // or the driver's hosts and the world's would differ for the rest of the generation
            if (polled != null) {
                context.updates().requeue(polled);
            }
            throw e;
        }
        if (agreed == null) {
            throw new CollectiveFailure("bad host update broadcast");
        }
        HostChange change = HostChange.decode(agreed);
        if (change != null) {
            throw new HostsUpdatedInterrupt(change);
        }
    }

    /** Makes rank 0's committed state everyone's committed and live state. */
    public void sync() {
        byte[] agreed = context.broadcaster().broadcast(context.rank() == 0 ? encodeCommitted() : null);
        if (context.rank() != 0) {
            decodeCommitted(agreed);
        }
        restore();
        keepOnNode();
    }

    /**
     * Prepares the committed copy at the start of a generation: rank 0 takes the commit kept on its node if
     * there is one (a later generation), else its initial live values (the first); other ranks await the sync.
     */
    final void loadFromNode() {
        if (context.rank() == 0) {
            var kept = context.store().read();
            if (kept.isPresent()) {
                decodeCommitted(kept.get());
                return;
            }
        }
        save();
    }

    /** Runs the reset callbacks in registration order. */
    final void onReset() {
        for (Runnable r : resetCallbacks) {
            r.run();
        }
    }

    /** Local rank 0 writes the committed copy to this node's store. */
    final void keepOnNode() {
        if (context.localRank() == 0) {
            context.store().write(encodeCommitted());
        }
    }
}
