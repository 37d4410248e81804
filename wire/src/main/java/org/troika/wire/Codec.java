package org.troika.wire;

/**
 * The body encoding of one protocol's sealed message set. Type numbers are per protocol and stable on the wire: never
 * reuse a retired number. {@link #decode} is only ever called on a body whose frame MAC verified.
 */
interface Codec<M> {
    /** The wire type of {@code m}; every record of the sealed set has one (a test checks). */
    int typeOf(M m);

    void encode(M m, BodyOut out);

    /** Decodes a body of {@code type}; {@link WireException} for an unknown type or a malformed body. */
    M decode(int type, BodyIn in) throws WireException;
}
