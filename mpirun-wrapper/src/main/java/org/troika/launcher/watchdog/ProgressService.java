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
import org.troika.wire.WireChannel;
import org.troika.wire.WireServer;

/**
 * The launcher's progress service: a {@link WireServer} of the {@link Protocol#PROGRESS} protocol keyed with the
 * <b>progress key</b> ({@link #progressKey}: derived from the job secret, opening nothing else). Ranks send
 * {@link ProgressMessage.Report}s whose text is a {@link ProgressReport}; nothing is sent back.
 *
 * <p>The base checks the hello proof before reading anything and bounds pending and live connections; this service
 * caps bodies at {@value #MAX_BODY} bytes and serves at most {@code maxConnections} ranks. A report that does not parse
 * closes its connection.
 */
public final class ProgressService implements AutoCloseable {
    /** Label of the progress key derivation: progress key = HMAC-SHA256(job secret, label). */
    public static final String KEY_LABEL = "troika-progress-v1";
    static final int MAX_BODY = 512;

    private final WireServer<ProgressMessage> server;

    /**
     * @param key the progress key ({@link #progressKey})
     * @param bind the local address to listen on
     * @param maxConnections connections served at once
     * @param sink receives every authenticated report (on a connection thread)
     */
    public ProgressService(Secret key, InetAddress bind, int maxConnections, Consumer<ProgressReport> sink)
            throws IOException {
        WireServer.Limits limits = WireServer.Limits.DEFAULT.withMaxConnections(maxConnections).withMaxBody(MAX_BODY)
                .withFirstFrameDeadline(Duration.ofSeconds(10));
        this.server = WireServer.start("troika-progress", Protocol.PROGRESS, key, List.of(bind), limits,
                (WireChannel<ProgressMessage> ch, ProgressMessage first) -> {
                    ProgressMessage m = first;
                    while (true) {
                        if (!(m instanceof ProgressMessage.Report r)) {
                            return;
                        }
                        try {
                            sink.accept(ProgressReport.decode(r.text()));
                        } catch (IllegalArgumentException e) {
                            return; // not a report: the connection closes, nothing was acted upon
                        }
                        m = ch.receive(); // a stuck rank sends nothing: that is what the watchdog looks for
                    }
                });
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
