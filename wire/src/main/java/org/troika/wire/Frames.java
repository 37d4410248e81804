package org.troika.wire;

import java.nio.ByteBuffer;

/**
 * The frames of one authenticated connection (the format of {@link WireChannel}): seals outgoing messages and opens
 * incoming ones. The blocking {@link WireChannel} and the non-blocking {@link WireConnection} both use it, so the
 * checks exist once.
 *
 * <pre>
 * frame:  'T' 'K' version(1) type(1) seq(8, big-endian) length(4, big-endian) | body(length) | mac(32)
 * mac  =  HMAC-SHA256(key, "troika-wire-2" | protocol | serverNonce | clientNonce | direction(1) | header | body)
 * </pre>
 *
 * The keyed prefix of each direction's MAC (both key pads, label, protocol, nonces, direction) is computed once per
 * connection; a frame pays only for its header and body. Sealing and opening touch disjoint state: one thread may send
 * while another receives. Each side itself is not thread-safe.
 */
final class Frames<M> {
    static final int HEADER = 16;
    static final int MAC_LEN = Handshake.MAC_LEN;
    private static final byte M0 = 'T';
    private static final byte M1 = 'K';

    private final Protocol<M> protocol;
    private final Secret key;
    private final int maxBody;
    private final HmacSha256 sendPrefix;
    private final HmacSha256 receivePrefix;
    /** Each thread's MAC computation: a service's selector thread serves thousands of connections with one. */
    private static final ThreadLocal<HmacSha256.Scratch> SCRATCH = ThreadLocal.withInitial(HmacSha256.Scratch::new);
    private long sendSeq;
    private long receiveSeq;

    /**
     * @param server whether this side accepted the connection (its frames carry direction 2, the client's 1)
     */
    Frames(Protocol<M> protocol, Secret key, byte[] serverNonce, byte[] clientNonce, boolean server, int maxBody) {
        this.protocol = protocol;
        this.key = key;
        this.maxBody = maxBody;
        byte mine = (byte) (server ? 2 : 1);
        byte theirs = (byte) (server ? 1 : 2);
        this.sendPrefix = Handshake.mac(key, protocol, serverNonce, clientNonce, mine);
        this.receivePrefix = Handshake.mac(key, protocol, serverNonce, clientNonce, theirs);
    }

    Protocol<M> protocol() {
        return protocol;
    }

    int maxBody() {
        return maxBody;
    }

    /** Whether these frames are keyed with {@code k} (constant time). */
    boolean keyedWith(Secret k) {
        return k != null && key.equals(k);
    }

    /** {@code m} as one whole frame (header, body, MAC); advances the send sequence. */
    byte[] seal(M m) throws WireException {
        byte[] body = protocol.encode(m);
        if (body.length > maxBody) {
            throw new WireException("message of " + body.length + " bytes exceeds the frame limit " + maxBody);
        }
        byte[] frame = new byte[HEADER + body.length + MAC_LEN];
        ByteBuffer.wrap(frame).put(M0).put(M1).put((byte) WireChannel.VERSION).put((byte) protocol.typeOf(m))
                .putLong(sendSeq).putInt(body.length).put(body);
        SCRATCH.get().mac(sendPrefix, frame, 0, HEADER + body.length, frame, HEADER + body.length);
        sendSeq++;
        return frame;
    }

    /**
     * The body length the header at {@code b[off..off+16)} announces, after checking magic, version and the size cap
     * (nothing else of the frame has been read yet).
     */
    int bodyLength(byte[] b, int off) throws WireException {
        if (b[off] != M0 || b[off + 1] != M1) {
            throw new WireException("bad frame magic");
        }
        int version = b[off + 2] & 0xff;
        if (version != WireChannel.VERSION) {
            throw new WireException("bad frame version " + version);
        }
        long length = ByteBuffer.wrap(b, off + 12, 4).getInt() & 0xffffffffL;
        if (length > maxBody) {
            throw new WireException("frame of " + length + " bytes exceeds the limit " + maxBody);
        }
        return (int) length;
    }

    /**
     * Authenticates and decodes the whole frame at {@code b[off..off+16+bodyLength+32)} (whose header gave {@code
     * bodyLength}): the MAC in constant time, then the sequence number, and only then the body. Advances the receive
     * sequence.
     */
    M open(byte[] b, int off, int bodyLength) throws WireException {
        HmacSha256.Scratch scratch = SCRATCH.get();
        byte[] expected = scratch.result();
        scratch.mac(receivePrefix, b, off, HEADER + bodyLength, expected, 0);
        if (!equalInConstantTime(expected, b, off + HEADER + bodyLength)) {
            throw new WireException("frame MAC does not verify (wrong secret or tampered frame)");
        }
        ByteBuffer h = ByteBuffer.wrap(b, off, HEADER);
        int type = h.get(off + 3) & 0xff;
        long seq = h.getLong(off + 4);
        if (seq != receiveSeq) {
            throw new WireException("frame sequence " + seq + " where " + receiveSeq + " was expected (replayed frame)");
        }
        receiveSeq++;
        byte[] body = new byte[bodyLength];
        System.arraycopy(b, off + HEADER, body, 0, bodyLength);
        return protocol.decode(type, body);
    }

    /** Whether {@code b[off..off+mac.length)} equals {@code mac}, in time that does not depend on where they differ. */
    static boolean equalInConstantTime(byte[] mac, byte[] b, int off) {
        int diff = 0;
        for (int i = 0; i < mac.length; i++) {
            diff |= mac[i] ^ b[off + i];
        }
        return diff == 0;
    }

    /** A bare header (tests build frames by hand with it). */
    static byte[] header(int type, long seq, int length) {
        return ByteBuffer.allocate(HEADER).put(M0).put(M1).put((byte) WireChannel.VERSION).put((byte) type).putLong(seq)
                .putInt(length).array();
    }
}
