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
}
