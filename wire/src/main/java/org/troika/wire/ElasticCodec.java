package org.troika.wire;

import java.util.ArrayList;
import java.util.List;

/** Body encoding of {@link ElasticMessage}s (see {@link BodyOut} for the primitives). */
final class ElasticCodec implements Codec<ElasticMessage> {
    // Type bytes: stable on the wire; never reuse a retired number.
    static final int SUBSCRIBE = 12;
    static final int SUBSCRIBED = 13;
    static final int REFUSED = 14;
    static final int HOSTS_CHANGED = 21;
    static final int WORLD_CHANGED = 22;
    static final int RANK_LEFT = 23;
    static final int NOTED = 24;
    static final int CHANGE_WORLD = 25;
    static final int NOTED_DATAGRAM = 26;

    @Override
    public int typeOf(ElasticMessage m) {
        if (m instanceof ElasticMessage.Subscribe) return SUBSCRIBE;
        if (m instanceof ElasticMessage.Subscribed) return SUBSCRIBED;
        if (m instanceof ElasticMessage.Refused) return REFUSED;
        if (m instanceof ElasticMessage.HostsChanged) return HOSTS_CHANGED;
        if (m instanceof ElasticMessage.WorldChanged) return WORLD_CHANGED;
        if (m instanceof ElasticMessage.RankLeft) return RANK_LEFT;
        if (m instanceof ElasticMessage.Noted) return NOTED;
        if (m instanceof ElasticMessage.ChangeWorld) return CHANGE_WORLD;
        if (m instanceof ElasticMessage.NotedDatagram) return NOTED_DATAGRAM;
        throw new IllegalArgumentException("no elastic wire type for " + m.getClass());
    }

    @Override
    public void encode(ElasticMessage m, BodyOut o) {
        if (m instanceof ElasticMessage.Subscribe s) {
            o.u32(s.generation());
            o.u32(s.rank());
        } else if (m instanceof ElasticMessage.Subscribed) {
            // no body
        } else if (m instanceof ElasticMessage.Refused r) {
            o.str(r.reason());
        } else if (m instanceof ElasticMessage.HostsChanged h) {
            o.i64(h.timestampMillis()).u32(h.bits());
        } else if (m instanceof ElasticMessage.WorldChanged w) {
            o.u32(w.generation()).u32(w.epoch()).ints(w.members()).ints(w.departed()).u32(w.joined().size());
            for (ElasticMessage.WorldChanged.Joined j : w.joined()) {
                o.u32(j.rank()).str(j.host());
            }
        } else if (m instanceof ElasticMessage.RankLeft l) {
            o.u32(l.generation()).u32(l.rank()).u32(l.code());
        } else if (m instanceof ElasticMessage.Noted) {
            // no body
        } else if (m instanceof ElasticMessage.NotedDatagram n) {
            o.i64(n.sender()).i64(n.seq());
        } else if (m instanceof ElasticMessage.ChangeWorld c) {
            o.u32(c.change()).ints(c.leave()).u32(c.join().size());
            for (ElasticMessage.ChangeWorld.Spawn s : c.join()) {
                o.str(s.host()).u32(s.count()).u32(s.hostSlots()).ints(s.locals()).u32(s.localSize());
            }
            o.u32(c.firstJoinId()).u32(c.activate().size());
            for (ElasticMessage.ChangeWorld.Activate a : c.activate()) {
                o.str(a.host()).u32(a.id());
            }
        } else {
            throw new IllegalArgumentException("no elastic wire encoding for " + m.getClass());
        }
    }

    @Override
    public ElasticMessage decode(int type, BodyIn in) throws WireException {
        return switch (type) {
            case SUBSCRIBE -> new ElasticMessage.Subscribe(in.u32(), in.u32());
            case SUBSCRIBED -> new ElasticMessage.Subscribed();
            case REFUSED -> new ElasticMessage.Refused(in.str());
            case HOSTS_CHANGED -> new ElasticMessage.HostsChanged(in.i64(), in.u32());
            case WORLD_CHANGED -> new ElasticMessage.WorldChanged(in.u32(), in.u32(), in.ints(), in.ints(), joined(in));
            case RANK_LEFT -> new ElasticMessage.RankLeft(in.u32(), in.u32(), in.u32());
            case NOTED -> new ElasticMessage.Noted();
            case NOTED_DATAGRAM -> new ElasticMessage.NotedDatagram(in.i64(), in.i64());
            case CHANGE_WORLD -> new ElasticMessage.ChangeWorld(in.u32(), in.ints(), spawns(in), in.u32(),
                    activations(in));
            default -> throw new WireException("unknown elastic message type " + type);
        };
    }

    private static List<ElasticMessage.ChangeWorld.Spawn> spawns(BodyIn in) throws WireException {
        int n = in.count(20);
        List<ElasticMessage.ChangeWorld.Spawn> l = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String host = in.str();
            int count = in.u32();
            int hostSlots = in.u32();
            List<Integer> locals = in.ints();
            int localSize = in.u32();
            String problem = ElasticMessage.ChangeWorld.Spawn.problem(count, hostSlots, locals, localSize);
            if (problem != null) {
                throw new WireException(problem);
            }
            l.add(new ElasticMessage.ChangeWorld.Spawn(host, count, hostSlots, locals, localSize));
        }
        return l;
    }

    private static List<ElasticMessage.ChangeWorld.Activate> activations(BodyIn in) throws WireException {
        int n = in.count(8);
        List<ElasticMessage.ChangeWorld.Activate> l = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            l.add(new ElasticMessage.ChangeWorld.Activate(in.str(), in.u32()));
        }
        return l;
    }

    private static List<ElasticMessage.WorldChanged.Joined> joined(BodyIn in) throws WireException {
        int n = in.count(8);
        List<ElasticMessage.WorldChanged.Joined> l = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            l.add(new ElasticMessage.WorldChanged.Joined(in.u32(), in.str()));
        }
        return l;
    }
}
