package org.troika.worker.elastic;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ObjectStateTest {
    @TempDir
    Path base;

    private final InMemoryHostUpdateSource updates = new InMemoryHostUpdateSource();

    private ObjectState single() {
        ElasticContext ctx = new ElasticContext(0, 0, 1, 1, bytes -> bytes.clone(), updates,
                new NodeStateStore(base, "j"));
        return new ObjectState(ctx, Map.of("step", 0, "w", new double[] {1, 2}));
    }

    @Test
    void restoreReturnsToTheLastCommit() {
        ObjectState s = single();
        s.set("step", 5);
        s.commit();
        s.set("step", 7);
        s.get("w", double[].class)[0] = 99; // a copy: no effect
        s.restore();
        assertAll(
                () -> assertEquals(5, s.get("step", Integer.class)),
                () -> assertArrayEquals(new double[] {1, 2}, s.get("w", double[].class)));
    }

    @Test
    void commitKeepsTheStateOnTheNode() {
        ObjectState s = single();
        s.set("step", 3);
        s.commit();
        ObjectState other = single();
        other.decodeCommitted(other.context().store().read().orElseThrow());
        other.restore();
        assertEquals(3, other.get("step", Integer.class));
    }

    @Test
    void commitRaisesTheAnnouncedHostUpdateOnce() {
        ObjectState s = single();
        updates.announce(new HostChange(10, false, true));
        updates.announce(new HostChange(20, true, false));
        HostsUpdatedInterrupt e = assertThrows(HostsUpdatedInterrupt.class, s::commit);
        assertEquals(new HostChange(20, true, true), e.change());
        s.commit();
    }

    @Test
    void onlyKnownFieldsAndSimpleValues() {
        ObjectState s = single();
        assertAll(
                () -> assertThrows(IllegalArgumentException.class, () -> s.set("stpe", 1)),
                () -> assertThrows(IllegalArgumentException.class, () -> s.get("nope")),
                () -> assertThrows(IllegalArgumentException.class, () -> s.set("step", new Object())),
                () -> assertThrows(IllegalArgumentException.class,
                        () -> s.decodeCommitted(StateCodec.encode(Map.of("other", 1)))));
    }

    @Test
    void hostChangeBitsMatchTheDriversWireValues() {
        assertAll(
                () -> assertEquals(1, new HostChange(0, false, true).bits()),
                () -> assertEquals(2, new HostChange(0, true, false).bits()),
                () -> assertEquals(3, new HostChange(0, true, true).bits()),
                () -> assertEquals(null, HostChange.fromBits(0, 0)),
                () -> assertEquals(new HostChange(5, true, true), HostChange.fromBits(5, 3)),
                () -> assertThrows(IllegalArgumentException.class, () -> HostChange.fromBits(0, 4)));
    }

    @Test
    void generationAndStoreComeFromTheEnvironment() {
        assertAll(
                () -> assertEquals(1, ElasticContext.generationFrom(Map.of())),
                () -> assertEquals(3, ElasticContext.generationFrom(Map.of("TROIKA_ELASTIC_GENERATION", "3"))),
                () -> assertThrows(IllegalArgumentException.class,
                        () -> ElasticContext.generationFrom(Map.of("TROIKA_ELASTIC_GENERATION", "0"))),
                () -> assertThrows(IllegalArgumentException.class,
                        () -> ElasticContext.generationFrom(Map.of("TROIKA_ELASTIC_GENERATION", "x"))),
                () -> assertEquals(Path.of("/dev/shm/troika-j7"),
                        NodeStateStore.fromEnvironment(Map.of("TROIKA_JOB_ID", "j7")).directory()),
                () -> assertThrows(IllegalStateException.class, () -> NodeStateStore.fromEnvironment(Map.of())));
    }

    /**
     * A peer dies while rank 0 shares a host change (the broadcast fails): the change is not lost, the world that goes
     * on (shrunk) gets it at its next commit. Before, rank 0 had polled it away and the world never made it: a host
     * discovery dropped kept its rank to the end of the job.
     */
    @Test
    void aChangeWhoseBroadcastFailsIsSharedAtTheNextCommit() {
        int[] calls = {0};
        ElasticContext ctx = new ElasticContext(0, 0, 2, 1, bytes -> {
            if (calls[0]++ == 0) {
                throw new CollectiveFailure("rank 1 died");
            }
            return bytes.clone();
        }, updates, new NodeStateStore(base, "j"));
        ObjectState s = new ObjectState(ctx, Map.of("step", 0));
        HostChange removed = new HostChange(5, false, true);
        updates.announce(removed);
        s.set("step", 1);
        assertThrows(CollectiveFailure.class, s::commit);
        s.set("step", 2);
        HostsUpdatedInterrupt next = assertThrows(HostsUpdatedInterrupt.class, s::commit);
        assertEquals(removed, next.change());
        assertEquals(java.util.Optional.empty(), updates.poll());
    }

    @Test
    void aRequeuedChangeMergesWithOneAnnouncedSince() {
        updates.announce(new HostChange(5, false, true));
        HostChange first = updates.poll().orElseThrow();
        updates.announce(new HostChange(9, true, false));
        updates.requeue(first);
        assertEquals(new HostChange(9, true, true), updates.poll().orElseThrow());
    }
}
