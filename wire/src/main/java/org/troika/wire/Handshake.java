package org.troika.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The hellos of the troika wire protocol (version {@value WireChannel#VERSION}) and the MAC they key. Pure functions
 * over bytes: the blocking {@link WireChannel} handshake and the non-blocking {@link WireServer} both use them.
 *
 * <pre>
 * server hello:  'T' 'K' version(1) protocol(1) serverNonce(16)                 -- 20 bytes, sent first
 * busy hello:    'T' 'K' version(1) 0xFE        zero(16)                         -- "over my bound; retry", then close
 * client hello:  'T' 'K' version(1) protocol(1) clientNonce(16) proof(32)       -- 52 bytes
 * proof  =  HMAC-SHA256(key, "troika-wire-2" | protocol | serverNonce | clientNonce | 0x00)
 * </pre>
 *
 * The server reads exactly {@value #CLIENT_HELLO_LEN} bytes from a new connection and checks the proof in constant time
 * before it reads anything else: a peer without the key never gets to announce a frame length, let alone a body.
 */
final class Handshake {
    static final int NONCE_LEN = 16;
    static final int SERVER_HELLO_LEN = 4 + NONCE_LEN;
    static final int MAC_LEN = 32;
    static final int CLIENT_HELLO_LEN = SERVER_HELLO_LEN + MAC_LEN;
    static final int BUSY = 0xFE;
    private static final byte M0 = 'T';
    private static final byte M1 = 'K';
    private static final byte[] LABEL = "troika-wire-2".getBytes(StandardCharsets.US_ASCII);

    private Handshake() {}

    static byte[] serverHello(Protocol<?> p, byte[] serverNonce) {
        return ByteBuffer.allocate(SERVER_HELLO_LEN).put(M0).put(M1).put((byte) WireChannel.VERSION).put((byte) p.id())
                .put(serverNonce).array();
    }

    static byte[] busyHello() {
        return ByteBuffer.allocate(SERVER_HELLO_LEN).put(M0).put(M1).put((byte) WireChannel.VERSION).put((byte) BUSY)
                .array();
    }

    static byte[] clientHello(Protocol<?> p, Secret key, byte[] serverNonce, byte[] clientNonce) {
        return ByteBuffer.allocate(CLIENT_HELLO_LEN).put(M0).put(M1).put((byte) WireChannel.VERSION).put((byte) p.id())
                .put(clientNonce).put(proof(p, key, serverNonce, clientNonce)).array();
    }

    /**
     * The server nonce of a server hello.
     *
     * @throws ServiceBusyException when the service is busy
     * @throws WireException when it is not a troika service of this version and protocol
     */
    static byte[] parseServerHello(Protocol<?> p, byte[] h) throws WireException {
        checkPrefix(p, h, true);
        return slice(h, 4, NONCE_LEN);
    }

    /**
     * The client nonce of a client hello whose proof verifies for {@code serverNonce}.
     *
     * @throws WireException for a wrong prefix, protocol or proof
     */
    static byte[] checkClientHello(Protocol<?> p, Secret key, byte[] serverNonce, byte[] h) throws WireException {
        checkPrefix(p, h, false);
        byte[] clientNonce = slice(h, 4, NONCE_LEN);
        if (!MessageDigest.isEqual(slice(h, SERVER_HELLO_LEN, MAC_LEN), proof(p, key, serverNonce, clientNonce))) {
            throw new WireException("hello proof does not verify (wrong secret, or a hello recorded on another connection)");
        }
        return clientNonce;
    }

    private static void checkPrefix(Protocol<?> p, byte[] h, boolean fromServer) throws WireException {
        if (h[0] != M0 || h[1] != M1) {
            throw new WireException("not a troika wire peer (bad hello)");
        }
        int version = h[2] & 0xff;
        if (version != WireChannel.VERSION) {
            throw new WireException("wire version " + version + " is not supported (this side speaks "
                    + WireChannel.VERSION + "); use the same troika version on every host");
        }
        int proto = h[3] & 0xff;
        if (fromServer && proto == BUSY) {
            throw new ServiceBusyException("the service is busy (too many connections that have not authenticated)");
        }
        if (proto != p.id()) {
            throw new WireException("the peer speaks the " + Protocol.nameOf(proto) + ", this side the " + p);
        }
    }

    private static byte[] proof(Protocol<?> p, Secret key, byte[] serverNonce, byte[] clientNonce) {
        return mac(key, p, serverNonce, clientNonce, (byte) 0).doFinal();
    }

    /** An HMAC over the label, protocol, both nonces and {@code direction} (0 proof, 1 client frame, 2 server frame). */
    static HmacSha256 mac(Secret key, Protocol<?> p, byte[] serverNonce, byte[] clientNonce, byte direction) {
        return key.mac().update(LABEL).update((byte) p.id()).update(serverNonce).update(clientNonce)
                .update(direction);
    }

    private static byte[] slice(byte[] b, int from, int len) {
        byte[] out = new byte[len];
        System.arraycopy(b, from, out, 0, len);
        return out;
    }
}
