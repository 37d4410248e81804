package org.troika.wire;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * One authenticated connection of the troika wire protocol (version {@value #VERSION}).
 *
 * <pre>
 * handshake (each side, server first):  'T' 'K' version(1) 0xFF  nonce(16)       -- 20 bytes, fresh random nonce
 * frame:  'T' 'K' version(1) type(1) seq(8, big-endian) length(4, big-endian) | body(length) | mac(32)
 * mac  =  HMAC-SHA256(secret, "troika-wire-1" | serverNonce | clientNonce | direction(1) | header | body)
 * </pre>
 *
 * <ul>
 *   <li>The receiver checks magic, version and {@code length <= maxBody} before reading the body, then the MAC in
 *       constant time ({@link MessageDigest#isEqual}), then the sequence number, and only then decodes the body.</li>
 *   <li>Replay: both nonces are fresh per connection and each direction's sequence starts at 0 and must increase by
 *       exactly one, so a frame recorded on any connection (or reflected back to its sender: the direction byte) fails.</li>
 *   <li>Any violation throws {@link WireException}; the caller closes the connection without acting on the frame.</li>
 * </ul>
 *
 * <p>Threading: {@link #send} is synchronized (a heartbeat thread may share the channel); {@link #receive} is for one
 * reader thread.
 */
public final class WireChannel implements Closeable {
    /** Protocol version; bump on any incompatible change. */
    public static final int VERSION = 1;
    /** Default maximum body size. */
    public static final int DEFAULT_MAX_BODY = 1 << 20;
    static final int HEADER = 16;
    static final int MAC_LEN = 32;
    static final int NONCE_LEN = 16;
    static final int HELLO_LEN = 4 + NONCE_LEN;
    private static final byte M0 = 'T';
    private static final byte M1 = 'K';
    private static final byte[] LABEL = "troika-wire-1".getBytes(StandardCharsets.US_ASCII);

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final byte[] secret;
    private final byte[] serverNonce;
    private final byte[] clientNonce;
    private final byte sendDirection;
    private final int maxBody;
    private long sendSeq;
    private long recvSeq;

    private WireChannel(Socket socket, InputStream in, OutputStream out, Secret secret, byte[] serverNonce,
            byte[] clientNonce, boolean server, int maxBody) {
        this.socket = socket;
        this.in = new DataInputStream(in);
        this.out = out;
        this.secret = secret.bytes();
        this.serverNonce = serverNonce;
        this.clientNonce = clientNonce;
        this.sendDirection = (byte) (server ? 2 : 1);
        this.maxBody = maxBody;
    }

    /** A channel with given nonces over plain streams, without a handshake (codec tests). */
    static WireChannel ofStreams(InputStream in, OutputStream out, Secret secret, boolean server, byte[] serverNonce,
            byte[] clientNonce, int maxBody) {
        return new WireChannel(null, in, out, secret, serverNonce, clientNonce, server, maxBody);
    }

    /**
     * Client channel to the first of {@code targets} that accepts; connect and read timeouts are {@code timeoutMillis}.
     *
     * @throws IOException the last failure when none accepts
     */
    public static WireChannel connectAny(java.util.List<Endpoint> targets, Secret secret, int timeoutMillis)
            throws IOException {
        IOException last = null;
        for (Endpoint e : targets) {
            Socket s = new Socket();
            try {
                s.connect(e.socketAddress(), timeoutMillis);
                s.setSoTimeout(timeoutMillis);
                return connect(s, secret, DEFAULT_MAX_BODY);
            } catch (IOException x) {
                s.close();
                last = x;
            }
        }
        throw last != null ? last : new IOException("no endpoints to connect to");
    }

    /** Server side of the handshake on an accepted socket. */
    public static WireChannel accept(Socket s, Secret secret, int maxBody) throws IOException {
        return open(s, secret, true, maxBody);
    }

    /** Client side of the handshake on a connected socket. */
    public static WireChannel connect(Socket s, Secret secret, int maxBody) throws IOException {
        return open(s, secret, false, maxBody);
    }

    private static WireChannel open(Socket s, Secret secret, boolean server, int maxBody) throws IOException {
        s.setTcpNoDelay(true);
        InputStream in = new BufferedInputStream(s.getInputStream());
        OutputStream out = new BufferedOutputStream(s.getOutputStream());
        return handshake(s, in, out, secret, server, maxBody);
    }

    /** The handshake over plain streams (tests use piped streams); {@code socket} may be null. */
    static WireChannel handshake(Socket socket, InputStream in, OutputStream out, Secret secret, boolean server,
            int maxBody) throws IOException {
        byte[] mine = Nonces.random(NONCE_LEN);
        byte[] hello = ByteBuffer.allocate(HELLO_LEN).put(M0).put(M1).put((byte) VERSION).put((byte) 0xFF).put(mine)
                .array();
        byte[] theirs;
        if (server) {
            out.write(hello);
            out.flush();
            theirs = readHello(in);
        } else {
            theirs = readHello(in);
            out.write(hello);
            out.flush();
        }
        return server
                ? new WireChannel(socket, in, out, secret, mine, theirs, true, maxBody)
                : new WireChannel(socket, in, out, secret, theirs, mine, false, maxBody);
    }

    private static byte[] readHello(InputStream in) throws IOException {
        byte[] h = new byte[HELLO_LEN];
        new DataInputStream(in).readFully(h);
        if (h[0] != M0 || h[1] != M1 || (h[3] & 0xff) != 0xFF) {
            throw new WireException("not a troika wire peer (bad hello)");
        }
        if ((h[2] & 0xff) != VERSION) {
            throw new WireException("wire version " + (h[2] & 0xff) + " is not supported (this side speaks " + VERSION
                    + "); use the same troika version on every host");
        }
        byte[] nonce = new byte[NONCE_LEN];
        System.arraycopy(h, 4, nonce, 0, NONCE_LEN);
        return nonce;
    }

    /** Sends one message as one frame. */
    public synchronized void send(Message m) throws IOException {
        byte[] body = MessageCodec.encode(m);
        if (body.length > maxBody) {
            throw new WireException("message of " + body.length + " bytes exceeds the frame limit " + maxBody);
        }
        byte[] header = header(MessageCodec.typeOf(m), sendSeq, body.length);
        byte[] mac = mac(sendDirection, header, body);
        out.write(header);
        out.write(body);
        out.write(mac);
        out.flush();
        sendSeq++;
    }

    /**
     * Reads, authenticates and decodes the next frame.
     *
     * @throws EOFException when the peer closed the connection cleanly between frames
     * @throws WireException for anything that is not a valid, fresh frame of this connection
     */
    public Message receive() throws IOException {
        byte[] header = new byte[HEADER];
        int first = in.read();
        if (first < 0) {
            throw new EOFException("connection closed");
        }
        header[0] = (byte) first;
        readFully(header, 1, HEADER - 1);
        ByteBuffer h = ByteBuffer.wrap(header);
        if (h.get() != M0 || h.get() != M1) {
            throw new WireException("bad frame magic");
        }
        int version = h.get() & 0xff;
        if (version != VERSION) {
            throw new WireException("bad frame version " + version);
        }
        int type = h.get() & 0xff;
        long seq = h.getLong();
        long length = h.getInt() & 0xffffffffL;
        if (length > maxBody) {
            throw new WireException("frame of " + length + " bytes exceeds the limit " + maxBody);
        }
        byte[] body = new byte[(int) length];
        readFully(body, 0, body.length);
        byte[] mac = new byte[MAC_LEN];
        readFully(mac, 0, MAC_LEN);
        byte recvDirection = (byte) (sendDirection == 1 ? 2 : 1);
        if (!MessageDigest.isEqual(mac, mac(recvDirection, header, body))) {
            throw new WireException("frame MAC does not verify (wrong secret or tampered frame)");
        }
        if (seq != recvSeq) {
            throw new WireException("frame sequence " + seq + " where " + recvSeq + " was expected (replayed frame)");
        }
        recvSeq++;
        return MessageCodec.decode(type, body);
    }

    private void readFully(byte[] b, int off, int len) throws IOException {
        try {
            in.readFully(b, off, len);
        } catch (EOFException e) {
            throw new WireException("truncated frame");
        }
    }

    static byte[] header(int type, long seq, int length) {
        return ByteBuffer.allocate(HEADER).put(M0).put(M1).put((byte) VERSION).put((byte) type).putLong(seq)
                .putInt(length).array();
    }

    private byte[] mac(byte direction, byte[] header, byte[] body) {
        return new HmacSha256(secret).update(LABEL).update(serverNonce).update(clientNonce).update(direction)
                .update(header).update(body).doFinal();
    }

    /** Sets the read timeout of the underlying socket (0 = none). */
    public void setReadTimeoutMillis(int millis) throws IOException {
        if (socket != null) {
            socket.setSoTimeout(millis);
        }
    }

    /** Whether {@code e} is a read timeout. */
    public static boolean isTimeout(IOException e) {
        return e instanceof SocketTimeoutException;
    }

    public Socket socket() {
        return socket;
    }

    @Override
    public void close() throws IOException {
        if (socket != null) {
            socket.close();
        } else {
            in.close();
            out.close();
        }
    }
}
