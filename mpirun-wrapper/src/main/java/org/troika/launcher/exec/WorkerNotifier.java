package org.troika.launcher.exec;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import org.troika.wire.Endpoint;
import org.troika.wire.Message;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;

/**
 * The driver's notification service for one elastic generation: rank 0 registers, the driver pushes host changes.
 *
 * <pre>
 *   rank 0 ── handshake (worker key) ── Ping("rank0 generation N") ─►  (registration = rendezvous reached)
 *          ◄─ Pong("driver") ◄─ [HostsChanged(t, bits) announced before the registration] ◄─ HostsChanged ... ─
 * </pre>
 *
 * <p>Security: every frame is the troika wire protocol (HMAC-SHA256, fresh nonces, sequence numbers) keyed with the
 * <b>worker key</b> ({@link #workerKey}), not the job secret: ranks hold only this key, which opens nothing but this
 * service. Nothing the client sends is decoded beyond the one fixed-form {@code Ping}; bodies are capped at
 * {@value #MAX_BODY} bytes; the handshake and first frame must arrive within {@value #HANDSHAKE_MILLIS} ms. The
 * socket binds to the address that routes to the generation's first host (loopback for local hosts).
 */
public final class WorkerNotifier implements AutoCloseable {
    /** Label of the worker key derivation: worker key = HMAC-SHA256(job secret, label). */
    public static final String KEY_LABEL = "troika-worker-v1";
    static final int MAX_BODY = 256;
    static final int HANDSHAKE_MILLIS = 10_000;

    private final Secret key;
    private final int generation;
    private final ServerSocket server;
    private final List<WireChannel> subscribers = new ArrayList<>();
    private volatile boolean closed;
    private boolean registered;
    private int pendingBits;
    private long pendingAt;

    /**
     * Starts the service.
     *
     * @param workerKey the key ranks hold ({@link #workerKey})
     * @param bind the local address to listen on
     * @param generation the generation whose rank 0 may register
     */
    public WorkerNotifier(Secret workerKey, InetAddress bind, int generation) throws IOException {
        this.key = workerKey;
        this.generation = generation;
        this.server = new ServerSocket(0, 16, bind);
        Thread t = new Thread(this::acceptLoop, "troika-worker-notifier-" + generation);
        t.setDaemon(true);
        t.start();
    }

    /** The key ranks get instead of the job secret. */
    public static Secret workerKey(Secret jobSecret) {
        return jobSecret.derive(KEY_LABEL);
    }

    /** The first frame rank 0 sends. */
    public static String registration(int generation) {
        return "rank0 generation " + generation;
    }

    public Endpoint endpoint() {
        return Endpoint.of((InetSocketAddress) server.getLocalSocketAddress());
    }

    /** Whether this generation's rank 0 registered (it does at its first commit, after the start-up sync). */
    public synchronized boolean registered() {
        return registered;
    }

    /**
     * Sends a host change to the registered rank 0, or keeps it (merged) until rank 0 registers. Best effort: a
     * failed send drops that connection.
     */
    public synchronized void announce(long timestampMillis, int bits) {
        if (subscribers.isEmpty()) {
            pendingBits |= bits;
            pendingAt = Math.max(pendingAt, timestampMillis);
            return;
        }
        send(new Message.HostsChanged(timestampMillis, bits));
    }

    private void send(Message m) {
        for (var it = subscribers.iterator(); it.hasNext(); ) {
            WireChannel ch = it.next();
            try {
                ch.send(m);
            } catch (IOException e) {
                it.remove();
                closeQuietly(ch);
            }
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            Thread t = new Thread(() -> handle(s), "troika-worker-notifier-conn");
            t.setDaemon(true);
            t.start();
        }
    }

    private void handle(Socket s) {
        WireChannel ch = null;
        try {
            s.setSoTimeout(HANDSHAKE_MILLIS);
            ch = WireChannel.accept(s, key, MAX_BODY);
            Message first = ch.receive();
            if (!(first instanceof Message.Ping p) || !p.from().equals(registration(generation))) {
                ch.send(new Message.Failure("expected the registration of rank 0 of generation " + generation));
                closeQuietly(ch);
                return;
            }
            synchronized (this) {
                if (closed) {
                    closeQuietly(ch);
                    return;
                }
                registered = true;
                ch.send(new Message.Pong("driver"));
                subscribers.add(ch);
                if (pendingBits != 0) {
                    send(new Message.HostsChanged(pendingAt, pendingBits));
                    pendingBits = 0;
                }
            }
        } catch (IOException e) {
            // bad key, tampered frame, timeout or a client that went away: nothing was acted upon
            if (ch != null) {
                closeQuietly(ch);
            } else {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        synchronized (this) {
            subscribers.forEach(WorkerNotifier::closeQuietly);
            subscribers.clear();
        }
    }

    private static void closeQuietly(WireChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
