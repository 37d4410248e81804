package org.troika.wire;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One authenticated connection of the troika wire protocol (version {@value #VERSION}) carrying the messages of one
 * {@link Protocol}.
 *
 * <pre>
 * hellos: see {@link Handshake} -- the server's nonce first, then the client's nonce with a proof of the key
 * frame:  'T' 'K' version(1) type(1) seq(8, big-endian) length(4, big-endian) | body(length) | mac(32)
 * mac  =  HMAC-SHA256(key, "troika-wire-2" | protocol | serverNonce | clientNonce | direction(1) | header | body)
 * </pre>
 *
 * <ul>
 *   <li>A server reads nothing but the fixed-size client hello until its proof verified; a peer without the key never
 *       gets to announce a frame.</li>
 *   <li>The receiver checks magic, version and {@code length <= maxBody} before reading the body, then the MAC in
 *       constant time ({@link MessageDigest#isEqual}), then the sequence number, and only then decodes the body.</li>
 *   <li>Replay: both nonces are fresh per connection and each direction's sequence starts at 0 and must increase by
 *       exactly one, so a frame recorded on any connection (or reflected back to its sender: the direction byte) fails.
 *       The protocol id in every MAC keeps one protocol's frames out of another's services.</li>
 *   <li>Any violation throws {@link WireException}; the caller closes the connection without acting on the frame.</li>
 * </ul>
 *
 * <p>Threading: {@link #send} is synchronized (a heartbeat thread may share the channel); {@link #receive} is for one
 * reader thread.
 *
 * @param <M> the protocol's message type
 */
public final class WireChannel<M> implements Closeable {
    /** Protocol version; bump on any incompatible change (2: per-protocol ids, the client's hello proves the key). */
    public static final int VERSION = 2;
    /** Default maximum body size of an authenticated frame. */
    public static final int DEFAULT_MAX_BODY = 1 << 20;
    static final int HEADER = Frames.HEADER;
    static final int MAC_LEN = Frames.MAC_LEN;
    static final int NONCE_LEN = Handshake.NONCE_LEN;

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final Frames<M> frames;

    private WireChannel(Socket socket, InputStream in, OutputStream out, Protocol<M> protocol, Secret secret,
            byte[] serverNonce, byte[] clientNonce, boolean server, int maxBody) {
        this.socket = socket;
        this.in = new DataInputStream(in);
        this.out = out;
        this.frames = new Frames<>(protocol, secret, serverNonce, clientNonce, server, maxBody);
    }

    /** A channel with given nonces over plain streams, without a handshake (codec tests). */
    static <M> WireChannel<M> ofStreams(InputStream in, OutputStream out, Protocol<M> protocol, Secret secret,
            boolean server, byte[] serverNonce, byte[] clientNonce, int maxBody) {
        return new WireChannel<>(null, in, out, protocol, secret, serverNonce, clientNonce, server, maxBody);
    }

    /** The server side of a socket whose client hello {@link WireServer} already verified. */
    static <M> WireChannel<M> established(Socket s, Protocol<M> protocol, Secret secret, byte[] serverNonce,
            byte[] clientNonce, int maxBody) throws IOException {
        s.setTcpNoDelay(true);
        return new WireChannel<>(s, new BufferedInputStream(s.getInputStream()),
                new BufferedOutputStream(s.getOutputStream()), protocol, secret, serverNonce, clientNonce, true, maxBody);
    }

    /**
     * Client channel to the first of {@code targets} that accepts; connect and read timeouts are {@code timeoutMillis}.
     * A service that answers busy ({@link ServiceBusyException}) is tried again after a short random back-off until
     * {@code timeoutMillis} have passed for that target. Send the first message right away: a {@link WireServer}
     * closes a connection whose first frame has not arrived within its first-frame deadline.
     *
     * @throws IOException the last failure when none accepts
     */
    public static <M> WireChannel<M> connectAny(List<Endpoint> targets, Protocol<M> protocol, Secret secret,
            int timeoutMillis) throws IOException {
        return connectAny(targets, protocol, secret, timeoutMillis, false);
    }

    /**
     * Like {@link #connectAny(List, Protocol, Secret, int)}, but once connected it waits for the service without a
     * read timeout for as long as the service's machine answers TCP keepalive probes (every second after
     * {@value #KEEPALIVE_IDLE_SECONDS} s of quiet, {@value #KEEPALIVE_PROBES} unanswered ones end the connection): a
     * service whose process is stopped (troika after Ctrl-Z) holds its port and is waited for, one whose machine is gone
     * or cut off is not. {@code connectTimeoutMillis} bounds each connect and each busy target's retries.
     */
    public static <M> WireChannel<M> connectAnyPatient(List<Endpoint> targets, Protocol<M> protocol, Secret secret,
            int connectTimeoutMillis) throws IOException {
        return connectAny(targets, protocol, secret, connectTimeoutMillis, true);
    }

    static final int KEEPALIVE_IDLE_SECONDS = 2;
    static final int KEEPALIVE_PROBES = 3;

    private static <M> WireChannel<M> connectAny(List<Endpoint> targets, Protocol<M> protocol, Secret secret,
            int timeoutMillis, boolean patient) throws IOException {
        IOException last = null;
        for (Endpoint e : targets) {
            long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
            long backoff = 10;
            while (true) {
                Socket s = new Socket();
                try {
                    s.connect(e.socketAddress(), timeoutMillis);
                    if (patient) {
                        keepAlive(s);
                        s.setSoTimeout(0);
                    } else {
                        s.setSoTimeout(timeoutMillis);
                    }
                    return connect(s, protocol, secret, DEFAULT_MAX_BODY);
                } catch (ServiceBusyException busy) {
                    s.close();
                    last = busy;
                    long leftMillis = (deadline - System.nanoTime()) / 1_000_000L;
                    if (leftMillis <= 0) {
                        break;
                    }
                    pause(Math.min(leftMillis, backoff + ThreadLocalRandom.current().nextLong(backoff + 1)));
                    backoff = Math.min(backoff * 2, 400);
                } catch (IOException x) {
                    s.close();
                    last = x;
                    break;
                }
            }
        }
        throw last != null ? last : new IOException("no endpoints to connect to");
    }

    /** TCP keepalive with short intervals where the platform has them (Linux, macOS), the system's elsewhere. */
    private static void keepAlive(Socket s) throws IOException {
        s.setKeepAlive(true);
        try {
            s.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE, KEEPALIVE_IDLE_SECONDS);
            s.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL, 1);
            s.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT, KEEPALIVE_PROBES);
        } catch (UnsupportedOperationException e) {
            // the system's keepalive times apply
        }
    }

    private static void pause(long millis) throws InterruptedIOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while the service was busy");
        }
    }

    /** Server side of the handshake on an accepted socket (blocking; services use {@link WireServer} instead). */
    public static <M> WireChannel<M> accept(Socket s, Protocol<M> protocol, Secret secret, int maxBody)
            throws IOException {
        return open(s, protocol, secret, true, maxBody);
    }

    /** Client side of the handshake on a connected socket. */
    public static <M> WireChannel<M> connect(Socket s, Protocol<M> protocol, Secret secret, int maxBody)
            throws IOException {
        return open(s, protocol, secret, false, maxBody);
    }

    private static <M> WireChannel<M> open(Socket s, Protocol<M> protocol, Secret secret, boolean server, int maxBody)
            throws IOException {
        s.setTcpNoDelay(true);
        InputStream in = new BufferedInputStream(s.getInputStream());
        OutputStream out = new BufferedOutputStream(s.getOutputStream());
        return handshake(s, in, out, protocol, secret, server, maxBody);
    }

    /** The handshake over plain streams (tests use piped streams); {@code socket} may be null. */
    static <M> WireChannel<M> handshake(Socket socket, InputStream in, OutputStream out, Protocol<M> protocol,
            Secret secret, boolean server, int maxBody) throws IOException {
        byte[] mine = Nonces.random(NONCE_LEN);
        if (server) {
            out.write(Handshake.serverHello(protocol, mine));
            out.flush();
            byte[] theirs = Handshake.checkClientHello(protocol, secret, mine,
                    readHello(in, Handshake.CLIENT_HELLO_LEN));
            return new WireChannel<>(socket, in, out, protocol, secret, mine, theirs, true, maxBody);
        }
        byte[] theirs = Handshake.parseServerHello(protocol, readHello(in, Handshake.SERVER_HELLO_LEN));
        out.write(Handshake.clientHello(protocol, secret, theirs, mine));
        out.flush();
        return new WireChannel<>(socket, in, out, protocol, secret, theirs, mine, false, maxBody);
    }

    private static byte[] readHello(InputStream in, int len) throws IOException {
        byte[] h = new byte[len];
        try {
            new DataInputStream(in).readFully(h);
        } catch (EOFException e) {
            throw new WireException("the peer closed the connection during the hello");
        }
        return h;
    }

    /** The protocol this channel speaks. */
    public Protocol<M> protocol() {
        return frames.protocol();
    }

    /** Whether this connection is keyed with {@code key} (constant time). */
    public boolean keyedWith(Secret key) {
        return frames.keyedWith(key);
    }

    /** Sends one message as one frame. */
    public synchronized void send(M m) throws IOException {
        out.write(frames.seal(m));
        out.flush();
    }

    /**
     * Reads, authenticates and decodes the next frame.
     *
     * @throws EOFException when the peer closed the connection cleanly between frames
     * @throws SocketTimeoutException when the read timeout passed before the frame's first byte (nothing was consumed:
     *     receiving again is safe)
     * @throws WireException for anything that is not a valid, fresh frame of this connection, and for a read timeout
     *     in the middle of a frame
     */
    public M receive() throws IOException {
        byte[] header = new byte[HEADER];
        int first = in.read();
        if (first < 0) {
            throw new EOFException("connection closed");
        }
        header[0] = (byte) first;
        readFully(header, 1, HEADER - 1);
        int length = frames.bodyLength(header, 0);
        byte[] frame = new byte[HEADER + length + MAC_LEN];
        System.arraycopy(header, 0, frame, 0, HEADER);
        readFully(frame, HEADER, length + MAC_LEN);
        return frames.open(frame, 0, length);
    }

    private void readFully(byte[] b, int off, int len) throws IOException {
        try {
            in.readFully(b, off, len);
        } catch (EOFException e) {
            throw new WireException("truncated frame");
        } catch (SocketTimeoutException e) {
            throw new WireException("the peer stalled in the middle of a frame");
        }
    }

    static byte[] header(int type, long seq, int length) {
        return Frames.header(type, seq, length);
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
