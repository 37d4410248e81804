package org.troika.wire;

/** Body encoding of {@link ElasticMessage}s (see {@link BodyOut} for the primitives). */
final class ElasticCodec implements Codec<ElasticMessage> {
    // Type bytes: stable on the wire; never reuse a retired number.
    static final int SUBSCRIBE = 12;
    static final int SUBSCRIBED = 13;
    static final int REFUSED = 14;
    static final int HOSTS_CHANGED = 21;

    @Override
    public int typeOf(ElasticMessage m) {
        if (m instanceof ElasticMessage.Subscribe) return SUBSCRIBE;
        if (m instanceof ElasticMessage.Subscribed) return SUBSCRIBED;
        if (m instanceof ElasticMessage.Refused) return REFUSED;
        if (m instanceof ElasticMessage.HostsChanged) return HOSTS_CHANGED;
        throw new IllegalArgumentException("no elastic wire type for " + m.getClass());
    }

    @Override
    public void encode(ElasticMessage m, BodyOut o) {
        if (m instanceof ElasticMessage.Subscribe s) {
            o.u32(s.generation());
        } else if (m instanceof ElasticMessage.Subscribed) {
            // no body
        } else if (m instanceof ElasticMessage.Refused r) {
            o.str(r.reason());
        } else if (m instanceof ElasticMessage.HostsChanged h) {
            o.i64(h.timestampMillis()).u32(h.bits());
        } else {
            throw new IllegalArgumentException("no elastic wire encoding for " + m.getClass());
        }
    }

    @Override
    public ElasticMessage decode(int type, BodyIn in) throws WireException {
        return switch (type) {
            case SUBSCRIBE -> new ElasticMessage.Subscribe(in.u32());
            case SUBSCRIBED -> new ElasticMessage.Subscribed();
            case REFUSED -> new ElasticMessage.Refused(in.str());
            case HOSTS_CHANGED -> new ElasticMessage.HostsChanged(in.i64(), in.u32());
            default -> throw new WireException("unknown elastic message type " + type);
        };
    }
}
