package org.troika.wire;

/** Body encoding of {@link ProgressMessage}s: a report is one string (u32 length, UTF-8). */
final class ProgressCodec implements Codec<ProgressMessage> {
    // Type bytes: stable on the wire; never reuse a retired number.
    static final int REPORT = 1;

    @Override
    public int typeOf(ProgressMessage m) {
        if (m instanceof ProgressMessage.Report) return REPORT;
        throw new IllegalArgumentException("no progress wire type for " + m.getClass());
    }

    @Override
    public void encode(ProgressMessage m, BodyOut o) {
        if (m instanceof ProgressMessage.Report r) {
            o.str(r.text());
        } else {
            throw new IllegalArgumentException("no progress wire encoding for " + m.getClass());
        }
    }

    @Override
    public ProgressMessage decode(int type, BodyIn in) throws WireException {
        if (type == REPORT) {
            return new ProgressMessage.Report(in.str());
        }
        throw new WireException("unknown progress message type " + type);
    }
}
