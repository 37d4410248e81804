package org.troika.worker.elastic;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.troika.wire.ElasticMessage;

/**
 * A host change announced by the driver.
 *
 * @param timestampMillis when the driver saw it (wall clock, for logs and to merge announcements)
 * @param added hosts (or slots) were added
 * @param removed hosts (or slots) were removed
 * @param inPlace how the ranks change their world without leaving the generation (issue 25: ranks leave by a split,
 *     new ranks are spawned), or {@code null}: they all leave the generation and the driver relaunches
 */
public record HostChange(long timestampMillis, boolean added, boolean removed, ElasticMessage.ChangeWorld inPlace) {
    /** The most ids or spawn entries a broadcast change may hold (more is refused as damaged). */
    static final int MAX_ITEMS = 1 << 20;

    public HostChange {
        if (!added && !removed) {
            throw new IllegalArgumentException("a host change adds or removes something");
        }
    }

    /** A change that ends the generation (the driver relaunches). */
    public HostChange(long timestampMillis, boolean added, boolean removed) {
        this(timestampMillis, added, removed, null);
    }

    /** The in-place change the driver asked for. */
    public static HostChange of(long timestampMillis, ElasticMessage.ChangeWorld change) {
        return new HostChange(timestampMillis, change.grows(), !change.leave().isEmpty() || !change.grows(), change);
    }

    /** Wire bits, as the driver's {@code HostUpdate}: removed = 1, added = 2. */
    public int bits() {
        return (removed ? 1 : 0) | (added ? 2 : 0);
    }

    /** The change with these bits, or {@code null} for 0. */
    public static HostChange fromBits(long timestampMillis, int bits) {
        if ((bits & ~3) != 0) {
            throw new IllegalArgumentException("bad host change bits " + bits);
        }
        return bits == 0 ? null : new HostChange(timestampMillis, (bits & 2) != 0, (bits & 1) != 0);
    }

    /**
     * Both changes in one (flags or-ed, the later timestamp). Changes in place do not add up: two of them, or one and a
     * relaunch, make a relaunch (the driver sends the next change in place only after the ranks reported the last).
     */
    public HostChange merge(HostChange other) {
        return new HostChange(Math.max(timestampMillis, other.timestampMillis), added || other.added,
                removed || other.removed);
    }

    /** The bytes rank 0 broadcasts ({@code null}: nothing changed): bits, timestamp, then the change in place. */
    static byte[] encode(HostChange c) {
        if (c == null) {
            return ByteBuffer.allocate(9).array();
        }
        ElasticMessage.ChangeWorld w = c.inPlace;
        if (w == null) {
            return ByteBuffer.allocate(9).put((byte) c.bits()).putLong(c.timestampMillis).array();
        }
        List<byte[]> hosts = new ArrayList<>();
        int size = 9 + 4 + 4 + 4 * w.leave().size() + 4 + 4 + 4;
        for (ElasticMessage.ChangeWorld.Spawn s : w.join()) {
            byte[] h = s.host().getBytes(StandardCharsets.UTF_8);
            hosts.add(h);
            size += 4 + h.length + 4 + 4 + 4 + 4 * s.locals().size() + 4;
        }
        List<byte[]> standby = new ArrayList<>();
        for (ElasticMessage.ChangeWorld.Activate a : w.activate()) {
            byte[] h = a.host().getBytes(StandardCharsets.UTF_8);
            standby.add(h);
            size += 4 + h.length + 4;
        }
        ByteBuffer b = ByteBuffer.allocate(size).put((byte) (c.bits() | 4)).putLong(c.timestampMillis)
                .putInt(w.change()).putInt(w.leave().size());
        w.leave().forEach(b::putInt);
        b.putInt(w.join().size());
        for (int i = 0; i < hosts.size(); i++) {
            ElasticMessage.ChangeWorld.Spawn s = w.join().get(i);
            b.putInt(hosts.get(i).length).put(hosts.get(i)).putInt(s.count()).putInt(s.hostSlots())
                    .putInt(s.locals().size());
            s.locals().forEach(b::putInt);
            b.putInt(s.localSize());
        }
        b.putInt(w.firstJoinId()).putInt(standby.size());
        for (int i = 0; i < standby.size(); i++) {
            b.putInt(standby.get(i).length).put(standby.get(i)).putInt(w.activate().get(i).id());
        }
        return b.array();
    }

    /**
     * The change rank 0 broadcast, or {@code null} when nothing changed.
     *
     * @throws CollectiveFailure when the bytes are not an encoding of a change (a damaged broadcast)
     */
    static HostChange decode(byte[] bytes) {
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            int bits = b.get();
            long t = b.getLong();
            if ((bits & 4) == 0) {
                if (b.hasRemaining()) {
                    throw new IllegalArgumentException("trailing bytes");
                }
                return fromBits(t, bits);
            }
            int change = b.getInt();
            List<Integer> leave = new ArrayList<>();
            for (int i = 0, n = count(b, 4); i < n; i++) {
                leave.add(b.getInt());
            }
            List<ElasticMessage.ChangeWorld.Spawn> join = new ArrayList<>();
            for (int i = 0, n = count(b, 20); i < n; i++) {
                byte[] h = new byte[count(b, 1)];
                b.get(h);
                int count = b.getInt();
                int hostSlots = b.getInt();
                List<Integer> locals = new ArrayList<>();
                for (int k = 0, m = count(b, 4); k < m; k++) {
                    locals.add(b.getInt());
                }
                join.add(new ElasticMessage.ChangeWorld.Spawn(new String(h, StandardCharsets.UTF_8), count, hostSlots,
                        locals, b.getInt()));
            }
            int firstJoinId = b.getInt();
            List<ElasticMessage.ChangeWorld.Activate> activate = new ArrayList<>();
            for (int i = 0, n = count(b, 8); i < n; i++) {
                byte[] h = new byte[count(b, 1)];
                b.get(h);
                activate.add(new ElasticMessage.ChangeWorld.Activate(new String(h, StandardCharsets.UTF_8),
                        b.getInt()));
            }
            ElasticMessage.ChangeWorld w = new ElasticMessage.ChangeWorld(change, leave, join, firstJoinId, activate);
            if (b.hasRemaining()) {
                throw new IllegalArgumentException("trailing bytes");
            }
            HostChange c = of(t, w);
            if (c.bits() != (bits & 3)) {
                throw new IllegalArgumentException("bits " + bits + " do not match the change");
            }
            return c;
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            throw new CollectiveFailure("bad host update broadcast: " + e.getMessage(), e);
        }
    }

    /** A count of items of at least {@code minBytes} each that the rest of {@code b} can hold. */
    private static int count(ByteBuffer b, int minBytes) {
        int n = b.getInt();
        if (n < 0 || n > MAX_ITEMS || (long) n * minBytes > b.remaining()) {
            throw new IllegalArgumentException("count " + n + " does not fit the broadcast");
        }
        return n;
    }
}
