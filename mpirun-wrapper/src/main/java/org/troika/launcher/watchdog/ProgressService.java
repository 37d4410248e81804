package org.troika.launcher.watchdog;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.troika.common.ProgressReport;
import org.troika.wire.Datagrams;
import org.troika.wire.Endpoint;
import org.troika.wire.ProgressMessage;
import org.troika.wire.Protocol;
import org.troika.wire.Secret;
import org.troika.wire.WireException;

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
    /**
     * Receive buffer asked for: 10,000 ranks' first reports may come within a few milliseconds. The kernel grants at
     * most net.core.rmem_max (4 MiB on many distributions, 208 KiB on some); what is not kept is sent again.
     */
    static final int RECEIVE_BUFFER = 4 << 20;

    private final DatagramChannel channel;
    private final Endpoint endpoint;
    private final Thread receiver;
    private final AtomicLong dropped = new AtomicLong();

    /**
     * @param key the progress key ({@link #progressKey})
     * @param bind the local address to listen on
     * @param maxSenders rank processes expected (each reporter is a sender; see {@link Datagrams.Opener})
     * @param sink receives every authenticated report (on the service's thread)
     */
    public ProgressService(Secret key, InetAddress bind, int maxSenders, Consumer<ProgressReport> sink)
            throws IOException {
        this.channel = DatagramChannel.open(bind instanceof java.net.Inet6Address
                ? java.net.StandardProtocolFamily.INET6 : java.net.StandardProtocolFamily.INET);
        try {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, RECEIVE_BUFFER);
            channel.bind(new InetSocketAddress(bind, 0));
            this.endpoint = Endpoint.of((InetSocketAddress) channel.getLocalAddress());
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        Datagrams.Opener<ProgressMessage> opener = new Datagrams.Opener<>(Protocol.PROGRESS, key, maxSenders);
        this.receiver = new Thread(() -> receive(opener, sink), "troika-progress");
        receiver.setDaemon(true);
        receiver.start();
    }

    private void receive(Datagrams.Opener<ProgressMessage> opener, Consumer<ProgressReport> sink) {
        ByteBuffer buf = ByteBuffer.allocate(Datagrams.MAX_DATAGRAM + 1);
        while (true) {
            buf.clear();
            try {
                channel.receive(buf);
            } catch (ClosedChannelException e) {
                return; // closed
            } catch (IOException e) {
                if (!channel.isOpen()) {
                    return;
                }
                continue; // a datagram the kernel could not hand over: the next one will do
            }
            try {
                if (opener.open(buf.array(), 0, buf.position()).message() instanceof ProgressMessage.Report r) {
                    sink.accept(ProgressReport.decode(r.text()));
                }
            } catch (WireException | IllegalArgumentException e) {
                dropped.incrementAndGet(); // not authentic, replayed, or not a report: nothing was acted upon
            }
        }
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
        return dropped.get();
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing
        }
        try {
            receiver.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
