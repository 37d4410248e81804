package org.troika.wire;

/**
 * The client side of one connection for a caller that does its own, non-blocking I/O: answers the server's hello
 * ({@link Handshake}) and seals and opens frames ({@link Frames}) with exactly the checks {@link WireChannel} makes.
 * bench/scale's load generator uses it to be thousands of task services from one selector thread; services and
 * clients of troika itself use {@link WireChannel} and {@link WireServer}.
 *
 * @param <M> the protocol's message type
 */
public final class ClientSession<M> {
    /** Length of the server's hello, the first bytes a client reads. */
    public static final int SERVER_HELLO_LEN = Handshake.SERVER_HELLO_LEN;
    /** Length of a frame header: the whole frame is {@link #frameLength} long. */
    public static final int HEADER = Frames.HEADER;

    private final byte[] clientHello;
    private final Frames<M> frames;

    /**
     * A session answering {@code serverHello} (its first {@link #SERVER_HELLO_LEN} bytes) with a fresh nonce.
     *
     * @throws ServiceBusyException when the hello says the service is busy (close, and retry later)
     * @throws WireException when it is not a hello of this protocol and version
     */
    public ClientSession(Protocol<M> protocol, Secret key, byte[] serverHello) throws WireException {
        byte[] serverNonce = Handshake.parseServerHello(protocol, serverHello);
        byte[] clientNonce = Nonces.random(Handshake.NONCE_LEN);
        this.clientHello = Handshake.clientHello(protocol, key, serverNonce, clientNonce);
        this.frames = new Frames<>(protocol, key, serverNonce, clientNonce, false, WireChannel.DEFAULT_MAX_BODY);
    }

    /** The client's hello with the proof of the key: send it first. */
    public byte[] clientHello() {
        return clientHello.clone();
    }

    /** {@code m} as the next whole frame to send. */
    public byte[] seal(M m) throws WireException {
        return frames.seal(m);
    }

    /** The whole length of the frame whose header is at {@code b[off..off+HEADER)}, after checking the header. */
    public int frameLength(byte[] b, int off) throws WireException {
        return Frames.HEADER + frames.bodyLength(b, off) + Frames.MAC_LEN;
    }

    /** Authenticates and decodes the next received frame, whole at {@code b[off..off+frameLength)}. */
    public M open(byte[] b, int off) throws WireException {
        return frames.open(b, off, frames.bodyLength(b, off));
    }
}
