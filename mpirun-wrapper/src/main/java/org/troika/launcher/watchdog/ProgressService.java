package org.troika.launcher.watchdog;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.util.function.Consumer;
import org.troika.common.ProgressReport;
import org.troika.wire.Datagrams;
import org.troika.wire.Endpoint;
import org.troika.wire.ProgressMessage;
import org.troika.wire.Protocol;
import org.troika.wire.Secret;

/**
 * The launcher's progress service: one UDP socket receiving the {@link Protocol#PROGRESS} protocol's
 * {@link Datagrams}, keyed with the <b>progress key</b> ({@link #progressKey}: derived from the job secret, opening
 * nothing else). Each datagram is one {@link ProgressMessage.Report} whose text is a {@link ProgressReport}; nothing is
 * sent back.
 *
 * <p>One socket and one thread whatever the number of ranks: a launch of 10,000 hosts x 8 slots costs the launch node
 * no descriptor and no connection buffer per rank (a connection each needed 80,000 descriptors and ~15 KB of RSS a
 * rank). Ranks repeat their report while nothing moves ({@code Progress}), and the watchdog's timeout is at least five
 * report intervals, so a datagram lost now and then changes nothing. Every datagram's MAC is checked before anything
 * of it is read; replayed and late ones are dropped ({@link Datagrams.Opener}); a report that does not parse is
 * dropped. The sink runs on the service's thread: keep it quick.
 */
public final class ProgressService implements AutoCloseable {
    /** Label of the progress key derivation: progress key = HMAC-SHA256(job secret, label). */
    public static final String KEY_LABEL = "troika-progress-v1";

    private final Endpoint endpoint;
    private final Datagrams.Receiver<ProgressMessage> receiver;

    /**
     * @param key the progress key ({@link #progressKey})
     * @param bind the local address to listen on
     * @param maxSenders rank processes expected (each reporter is a sender; see {@link Datagrams.Opener})
     * @param sink receives every authenticated report (on the service's thread)
     */
    public ProgressService(Secret key, InetAddress bind, int maxSenders, Consumer<ProgressReport> sink)
            throws IOException {
        DatagramChannel channel = Datagrams.bind(bind, 0);
        try {
            this.endpoint = Endpoint.of((InetSocketAddress) channel.getLocalAddress());
        } catch (IOException | RuntimeException e) {
            channel.close(); // no receiver owns it yet
            throw e;
        }
        this.receiver = new Datagrams.Receiver<>("troika-progress", channel,
                new Datagrams.Opener<>(Protocol.PROGRESS, key, maxSenders), (d, from) -> {
                    if (!(d.message() instanceof ProgressMessage.Report r)) {
                        return false;
                    }
                    try {
                        sink.accept(ProgressReport.decode(r.text()));
                        return true;
                    } catch (IllegalArgumentException e) {
                        return false; // not a report: nothing was acted upon
                    }
                });
    }

    /** The key ranks get instead of the job secret. */
    public static Secret progressKey(Secret jobSecret) {
        return jobSecret.derive(KEY_LABEL);
    }

    public Endpoint endpoint() {
        return endpoint;
    }

    /** Datagrams dropped so far (not authentic, replayed, late or not a report). */
    public long dropped() {
        return receiver.dropped();
    }

    @Override
    public void close() {
        receiver.close();
    }
}
