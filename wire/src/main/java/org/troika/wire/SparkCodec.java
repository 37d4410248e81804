package org.troika.wire;

/** Body encoding of {@link SparkMessage}s (see {@link BodyOut} for the primitives). */
final class SparkCodec implements Codec<SparkMessage> {
    // Type bytes: stable on the wire; never reuse a retired number.
    static final int SHUTDOWN = 5;
    static final int STORED = 13;
    static final int FAILURE = 14;
    static final int TASK = 16;
    static final int ASSIGN = 17;
    static final int FETCH_FUNCTION = 18;
    static final int FUNCTION_BYTES = 19;
    static final int RANK_RESULT = 20;

    @Override
    public int typeOf(SparkMessage m) {
        if (m instanceof SparkMessage.Task) return TASK;
        if (m instanceof SparkMessage.Assign) return ASSIGN;
        if (m instanceof SparkMessage.FetchFunction) return FETCH_FUNCTION;
        if (m instanceof SparkMessage.FunctionBytes) return FUNCTION_BYTES;
        if (m instanceof SparkMessage.RankResult) return RANK_RESULT;
        if (m instanceof SparkMessage.Stored) return STORED;
        if (m instanceof SparkMessage.Shutdown) return SHUTDOWN;
        if (m instanceof SparkMessage.Failure) return FAILURE;
        throw new IllegalArgumentException("no spark wire type for " + m.getClass());
    }

    @Override
    public void encode(SparkMessage m, BodyOut o) {
        if (m instanceof SparkMessage.Task t) {
            o.u32(t.index()).str(t.hostHash()).str(t.executor());
        } else if (m instanceof SparkMessage.Assign a) {
            o.str(a.serviceHost()).endpoints(a.driver());
        } else if (m instanceof SparkMessage.FetchFunction f) {
            o.u32(f.rank());
        } else if (m instanceof SparkMessage.FunctionBytes f) {
            o.str(f.classFilter()).bytes(f.data());
        } else if (m instanceof SparkMessage.RankResult r) {
            o.u32(r.rank()).u8(r.ok() ? 1 : 0).bytes(r.data());
        } else if (m instanceof SparkMessage.Stored s) {
            o.u32(s.rank());
        } else if (m instanceof SparkMessage.Shutdown s) {
            o.str(s.reason());
        } else if (m instanceof SparkMessage.Failure f) {
            o.str(f.message());
        } else {
            throw new IllegalArgumentException("no spark wire encoding for " + m.getClass());
        }
    }

    @Override
    public SparkMessage decode(int type, BodyIn in) throws WireException {
        return switch (type) {
            case TASK -> new SparkMessage.Task(in.u32(), in.str(), in.str());
            case ASSIGN -> new SparkMessage.Assign(in.str(), in.endpoints());
            case FETCH_FUNCTION -> new SparkMessage.FetchFunction(in.u32());
            case FUNCTION_BYTES -> new SparkMessage.FunctionBytes(in.str(), in.bytes());
            case RANK_RESULT -> new SparkMessage.RankResult(in.u32(), in.u8() != 0, in.bytes());
            case STORED -> new SparkMessage.Stored(in.u32());
            case SHUTDOWN -> new SparkMessage.Shutdown(in.str());
            case FAILURE -> new SparkMessage.Failure(in.str());
            default -> throw new WireException("unknown spark message type " + type);
        };
    }
}
