package org.troika.launcher.watchdog;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.troika.common.ProgressReport;
import org.troika.wire.Acceptor;
import org.troika.wire.Endpoint;
import org.troika.wire.Message;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;

/**
 * The launcher's progress service: ranks connect over the troika wire protocol keyed with the <b>progress key</b>
 * ({@link #progressKey}: derived from the job secret, opening nothing else) and send {@code Ping} frames whose text
 * is a {@link ProgressReport}. Nothing is sent back.
 *
 * <p>Security and bounds: the MAC of every frame is checked before its body is decoded (the wire channel); bodies are
 * capped at {@value #MAX_BODY} bytes; the handshake must complete within {@value #HELLO_MILLIS} ms; at most
 * {@code maxConnections} connections are served at once (one per rank is the normal load), others are closed at
 * once. A frame that is not a progress report closes its connection. Binds to the address routing to the job's hosts.
 * (To move onto the shared service base of troika-wire when it lands.)
 */
public final class ProgressService implements AutoCloseable {
    /** Label of the progress key derivation: progress key = HMAC-SHA256(job secret, label). */
    public static final String KEY_LABEL = "troika-progress-v1";
    static final int MAX_BODY = 512;
    static final int HELLO_MILLIS = 10_000;

    private final Secret key;
    private final ServerSocket server;
    private final ExecutorService pool;
    private final AtomicInteger open = new AtomicInteger();
    private final int maxConnections;
    private final Consumer<ProgressReport> sink;

    /**
     * @param key the progress key ({@link #progressKey})
     * @param bind the local address to listen on
     * @param maxConnections connections served at once
     * @param sink receives every authenticated report (on a connection thread)
     */
    public ProgressService(Secret key, InetAddress bind, int maxConnections, Consumer<ProgressReport> sink)
            throws IOException {
        this.key = key;
        this.maxConnections = maxConnections;
        this.sink = sink;
        this.server = new ServerSocket(0, 64, bind);
        this.pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "troika-progress-conn");
            t.setDaemon(true);
            return t;
        });
        Thread t = new Thread(() -> Acceptor.serveUntilClosed(server, pool, this::serve), "troika-progress-accept");
        t.setDaemon(true);
        t.start();
    }

    /** The key ranks get instead of the job secret. */
    public static Secret progressKey(Secret jobSecret) {
        return jobSecret.derive(KEY_LABEL);
    }

    public Endpoint endpoint() {
        return Endpoint.of((InetSocketAddress) server.getLocalSocketAddress());
    }

    private void serve(Socket s) {
        if (open.incrementAndGet() > maxConnections) {
            open.decrementAndGet();
            closeQuietly(s);
            return;
        }
        try (s) {
            s.setSoTimeout(HELLO_MILLIS);
            WireChannel ch = WireChannel.accept(s, key, MAX_BODY);
            ch.setReadTimeoutMillis(0); // a stuck rank sends nothing: that is what the watchdog looks for
            while (!server.isClosed()) {
                Message m = ch.receive();
                if (!(m instanceof Message.Ping p)) {
                    return;
                }
                sink.accept(ProgressReport.decode(p.from()));
            }
        } catch (IOException | IllegalArgumentException e) {
            // bad key, tampered or malformed frame, or the rank ended: nothing was acted upon
        } finally {
            open.decrementAndGet();
        }
    }

    @Override
    public void close() {
        closeQuietly(server);
        pool.shutdownNow();
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
