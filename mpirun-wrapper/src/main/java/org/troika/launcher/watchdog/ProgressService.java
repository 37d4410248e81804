package org.troika.launcher.watchdog;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.troika.common.ProgressReport;
import org.troika.wire.Endpoint;
import org.troika.wire.ProgressMessage;
import org.troika.wire.Protocol;
import org.troika.wire.Secret;
import org.troika.wire.WireConnection;
import org.troika.wire.WireServer;

/**
 * The launcher's progress service: a {@link WireServer} of the {@link Protocol#PROGRESS} protocol keyed with the
 * <b>progress key</b> ({@link #progressKey}: derived from the job secret, opening nothing else). Ranks send
 * {@link ProgressMessage.Report}s whose text is a {@link ProgressReport}; nothing is sent back.
 *
 * <p>The base checks the hello proof before reading anything and bounds pending and live connections; this service
 * caps bodies at {@value #MAX_BODY} bytes and serves at most {@code maxConnections} ranks (plus the base's own
 * bounds), each on a connection of the server's event mode: no thread per rank. A report that does not parse closes
 * its connection. The sink runs on the server's selector thread: keep it quick.
 */
public final class ProgressService implements AutoCloseable {
    /** Label of the progress key derivation: progress key = HMAC-SHA256(job secret, label). */
    public static final String KEY_LABEL = "troika-progress-v1";
    static final int MAX_BODY = 512;

    private final WireServer<ProgressMessage> server;

    /**
     * @param key the progress key ({@link #progressKey})
     * @param bind the local address to listen on
     * @param maxConnections ranks served at once (all of them may connect at once)
     * @param sink receives every authenticated report (on the server's selector thread)
     */
    public ProgressService(Secret key, InetAddress bind, int maxConnections, Consumer<ProgressReport> sink)
            throws IOException {
        WireServer.Limits limits = WireServer.Limits.DEFAULT.withMaxBody(MAX_BODY)
                .withFirstFrameDeadline(Duration.ofSeconds(10));
        // every rank keeps a connection (a stuck rank sends nothing on it: that is what the watchdog looks for), so
        // they are served in event mode, and all of them may connect at once
        this.server = WireServer.startEvents("troika-progress", Protocol.PROGRESS, key, List.of(bind), limits,
                new WireServer.Events<>() {
                    @Override
                    public void received(WireConnection<ProgressMessage> c, ProgressMessage m) {
                        if (!(m instanceof ProgressMessage.Report r)) {
                            c.close();
                            return;
                        }
                        try {
                            sink.accept(ProgressReport.decode(r.text()));
                        } catch (IllegalArgumentException e) {
                            c.close(); // not a report: the connection closes, nothing was acted upon
                        }
                    }

                    @Override
                    public void closed(WireConnection<ProgressMessage> c, IOException cause) {
                        // a rank that ended or reconnects; its silence is judged by the watchdog
                    }
                });
        server.reserve(maxConnections);
    }

    /** The key ranks get instead of the job secret. */
    public static Secret progressKey(Secret jobSecret) {
        return jobSecret.derive(KEY_LABEL);
    }

    public Endpoint endpoint() {
        return server.endpoints().get(0);
    }

    @Override
    public void close() {
        server.close();
    }
}
