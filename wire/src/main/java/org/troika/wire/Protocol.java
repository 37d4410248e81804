package org.troika.wire;

/**
 * One protocol spoken over a {@link WireChannel}: a sealed set of message records and its data-only codec. Each
 * protocol has its own id, carried in both hellos and mixed into every MAC, so a hello or frame of one protocol never
 * verifies at a service of another even under the same key (the Spark job service and the relay driver share the job
 * secret).
 *
 * <ul>
 *   <li>{@link #RELAY}: driver service, task services and the launch agent ({@link RelayMessage}).</li>
 *   <li>{@link #ELASTIC}: the driver's worker notification service and rank 0 of an elastic generation, under the
 *       worker key ({@link ElasticMessage}).</li>
 *   <li>{@link #SPARK}: the Spark job service, its barrier tasks and the ranks ({@link SparkMessage}).</li>
 *   <li>{@link #PROGRESS}: ranks reporting progress to the launcher's hang watchdog, under the progress key
 *       ({@link ProgressMessage}), as {@link Datagrams}: no connection per rank.</li>
 * </ul>
 *
 * @param <M> the protocol's sealed message interface
 */
public final class Protocol<M> {
    public static final Protocol<RelayMessage> RELAY = new Protocol<>("relay", 1, RelayMessage.class, new RelayCodec());
    public static final Protocol<ElasticMessage> ELASTIC =
            new Protocol<>("elastic", 2, ElasticMessage.class, new ElasticCodec());
    public static final Protocol<SparkMessage> SPARK = new Protocol<>("spark", 3, SparkMessage.class, new SparkCodec());
    public static final Protocol<ProgressMessage> PROGRESS =
            new Protocol<>("progress", 4, ProgressMessage.class, new ProgressCodec());

    private final String name;
    private final int id;
    private final Class<M> type;
    private final Codec<M> codec;

    private Protocol(String name, int id, Class<M> type, Codec<M> codec) {
        this.name = name;
        this.id = id;
        this.type = type;
        this.codec = codec;
    }

    /** Name for messages ("relay", "elastic", "spark"). */
    public String name() {
        return name;
    }

    /** The byte naming this protocol in hellos and MACs. */
    int id() {
        return id;
    }

    /** The sealed message interface. */
    public Class<M> type() {
        return type;
    }

    /** The name of the protocol with this id, for error messages. */
    static String nameOf(int id) {
        for (Protocol<?> p : new Protocol<?>[] {RELAY, ELASTIC, SPARK, PROGRESS}) {
            if (p.id == id) {
                return p.name + " protocol";
            }
        }
        return "protocol " + id;
    }

    int typeOf(M m) {
        return codec.typeOf(m);
    }

    byte[] encode(M m) {
        BodyOut out = new BodyOut();
        codec.encode(m, out);
        return out.toByteArray();
    }

    /** Decodes an authenticated body; anything malformed, unknown or followed by trailing bytes is a {@link WireException}. */
    M decode(int wireType, byte[] body) throws WireException {
        BodyIn in = new BodyIn(body);
        M m;
        try {
            m = codec.decode(wireType, in);
        } catch (IllegalArgumentException | IllegalStateException | NullPointerException e) {
            throw new WireException("malformed body of " + name + " message type " + wireType + ": " + e.getMessage());
        }
        if (in.remaining() != 0) {
            throw new WireException("trailing bytes after " + name + " message type " + wireType);
        }
        return m;
    }

    @Override
    public String toString() {
        return name + " protocol";
    }
}
