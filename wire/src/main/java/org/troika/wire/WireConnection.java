package org.troika.wire;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;

/**
 * One authenticated connection served in event mode ({@link WireServer#startEvents}): the server's I/O thread reads
 * and opens its frames and hands each message to the service's {@link WireServer.Events}; any thread may {@link #send}.
 * No thread waits on it, so a service holds thousands of these (the driver service: one per task service).
 *
 * <ul>
 *   <li>{@link #send} never blocks: it writes what the socket takes and queues the rest for the I/O thread. A peer
 *       that lets more than {@link #MAX_QUEUED} bytes pile up (it stopped reading) is closed.</li>
 *   <li>{@link #close} sends what is queued first (for at most {@link WireServer#LINGER_MILLIS} ms), then closes.</li>
 *   <li>{@link WireServer.Events#closed} is told once, whoever ended the connection.</li>
 * </ul>
 *
 * @param <M> the protocol's message type
 */
public final class WireConnection<M> {
    /** Most bytes queued for a peer that does not read before it is dropped. */
    static final int MAX_QUEUED = 4 << 20;
    /** Size of the read buffer between frames (a frame larger than this gets a buffer of its own). */
    static final int READ_BUFFER = 512;
    private static final int READS_PER_TURN = 16;

    private final WireServer<M> server;
    private final SocketChannel channel;
    private final SelectionKey key;
    private final InetAddress peer;
    private final Frames<M> frames;
    final long firstFrameBy;
    // I/O thread only
    private ByteBuffer in = ByteBuffer.allocate(READ_BUFFER);
    private int frameLength = -1;
    boolean gotFirst;
    // guarded by this
    private final ArrayDeque<ByteBuffer> queue = new ArrayDeque<>();
    private int queued;
    private boolean closing;
    private boolean closed;
    private long lingerUntil;
    private volatile Object attachment;

    WireConnection(WireServer<M> server, SocketChannel channel, SelectionKey key, InetAddress peer, Frames<M> frames,
            long firstFrameBy) {
        this.server = server;
        this.channel = channel;
        this.key = key;
        this.peer = peer;
        this.frames = frames;
        this.firstFrameBy = firstFrameBy;
    }

    /** The peer's address. */
    public InetAddress peer() {
        return peer;
    }

    /** Whether the peer proved {@code key} in its hello (constant time). */
    public boolean keyedWith(Secret key) {
        return frames.keyedWith(key);
    }

    /** What the service keeps with this connection ({@code null} until it attaches something). */
    public Object attachment() {
        return attachment;
    }

    public void attach(Object o) {
        this.attachment = o;
    }

    /**
     * Sends one message as one frame, from any thread, without blocking: what the socket does not take now is written
     * by the I/O thread.
     *
     * @throws IOException when the connection is closed or closing, the peer went away, or too much is queued for it
     *     (then it is closed)
     */
    public void send(M m) throws IOException {
        boolean wantWrite = false;
        IOException failed = null;
        synchronized (this) {
            if (closed || closing) {
                throw new IOException("the connection to " + peer.getHostAddress() + " is closed");
            }
            ByteBuffer frame = ByteBuffer.wrap(frames.seal(m));
            try {
                if (queue.isEmpty()) {
                    channel.write(frame);
                    if (!frame.hasRemaining()) {
                        return;
                    }
                    // under this lock, as flush() drops the interest under it: neither change is lost
                    key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                    wantWrite = true;
                }
                queue.add(frame);
                queued += frame.remaining();
                if (queued > MAX_QUEUED) {
                    failed = new IOException(peer.getHostAddress() + " does not read: " + queued + " bytes queued");
                }
            } catch (IOException e) {
                failed = e;
            } catch (java.nio.channels.CancelledKeyException e) {
                failed = new IOException("the connection to " + peer.getHostAddress() + " is closed");
            }
        }
        if (failed != null) {
            end(failed);
            throw failed;
        }
        if (wantWrite) {
            server.wantWrite();
        }
    }

    /**
     * Closes the connection once what is queued has been sent (at most {@link WireServer#LINGER_MILLIS} ms later);
     * idempotent. The service's {@link WireServer.Events#closed} is told with a {@code null} cause.
     */
    public void close() {
        synchronized (this) {
            if (closed || closing) {
                return;
            }
            if (!queue.isEmpty()) {
                closing = true;
                lingerUntil = System.nanoTime() + WireServer.LINGER_MILLIS * 1_000_000L;
                server.linger(this);
                return;
            }
        }
        end(null);
    }

    /** Whether the connection is closed or closing. */
    public synchronized boolean isClosed() {
        return closed || closing;
    }

    /** Closes at once and tells the service (once); {@code cause} null: this side closed it. */
    void end(IOException cause) {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            closing = false;
            queue.clear();
            queued = 0;
        }
        server.ended(this, key, channel, cause);
    }

    synchronized boolean lingeredTooLong(long now) {
        return closing && now - lingerUntil >= 0;
    }

    /** I/O thread: writes what is queued (dropping the write interest once all is out); whether all is out. */
    boolean flush() {
        boolean done = false;
        IOException failed = null;
        synchronized (this) {
            try {
                while (!queue.isEmpty()) {
                    ByteBuffer head = queue.peek();
                    int n = channel.write(head);
                    queued -= n;
                    if (head.hasRemaining()) {
                        return false;
                    }
                    queue.poll();
                }
                if (key.isValid()) {
                    key.interestOps(SelectionKey.OP_READ);
                }
                done = closing;
            } catch (IOException e) {
                failed = e;
            } catch (java.nio.channels.CancelledKeyException e) {
                return true;
            }
        }
        if (failed != null) {
            end(failed);
        } else if (done) {
            end(null);
        }
        return true;
    }

    /**
     * I/O thread: reads what arrived and hands every whole frame's message to {@code events}. A frame that does not
     * authenticate or decode ends the connection (a {@link WireException} cause), as does the peer's close.
     */
    void readable(WireServer.Events<M> events) {
        try {
            for (int turn = 0; turn < READS_PER_TURN && !isClosed(); turn++) {
                int space = in.remaining();
                int n = channel.read(in);
                if (n < 0) {
                    end(in.position() == 0 ? new EOFException("connection closed")
                            : new WireException("truncated frame"));
                    return;
                }
                deliver(events);
                if (n < space) {
                    return; // drained: the socket had less than the buffer could take
                }
            }
        } catch (IOException e) {
            end(e);
        }
    }

    private void deliver(WireServer.Events<M> events) throws IOException {
        while (!isClosed()) {
            if (frameLength < 0) {
                if (in.position() < Frames.HEADER) {
                    return;
                }
                frameLength = Frames.HEADER + frames.bodyLength(in.array(), 0) + Frames.MAC_LEN;
                if (frameLength > in.capacity()) {
                    ByteBuffer bigger = ByteBuffer.allocate(frameLength);
                    in.flip();
                    bigger.put(in);
                    in = bigger;
                }
            }
            if (in.position() < frameLength) {
                return;
            }
            M m = frames.open(in.array(), 0, frameLength - Frames.HEADER - Frames.MAC_LEN);
            int rest = in.position() - frameLength;
            ByteBuffer next = in.capacity() > READ_BUFFER && rest <= READ_BUFFER ? ByteBuffer.allocate(READ_BUFFER) : in;
            System.arraycopy(in.array(), frameLength, next.array(), 0, rest);
            next.clear().position(rest);
            in = next;
            frameLength = -1;
            gotFirst = true;
            events.received(this, m);
        }
    }

    @Override
    public String toString() {
        return "connection from " + peer.getHostAddress();
    }
}
