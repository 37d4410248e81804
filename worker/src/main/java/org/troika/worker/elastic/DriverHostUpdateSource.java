package org.troika.worker.elastic;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.troika.common.TroikaEnv;
import org.troika.wire.ElasticMessage;
import org.troika.wire.Endpoint;
import org.troika.wire.Protocol;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;

/**
 * Rank 0's {@link HostUpdateSource} fed by the driver's notification service over the troika wire's elastic protocol
 * ({@link Protocol#ELASTIC}), keyed with the worker key ({@link TroikaEnv#WORKER_SECRET_FILE}; never the job secret).
 *
 * <p>The connection is opened by a background thread at the first {@link #poll()} (the first commit, which comes
 * after the start-up sync), and that registration tells the driver that the generation got through its rendezvous.
 * {@link #poll()} itself never blocks. A lost connection is reported once on stderr; the rank goes on (a failing
 * driver ends the generation anyway).
 */
public final class DriverHostUpdateSource implements HostUpdateSource, AutoCloseable {
    private final List<Endpoint> driver;
    private final Secret key;
    private final int generation;
    private final InMemoryHostUpdateSource inbox = new InMemoryHostUpdateSource();
    private Thread reader;
    private volatile WireChannel<ElasticMessage> channel;
    private volatile boolean closed;

    DriverHostUpdateSource(List<Endpoint> driver, Secret key, int generation) {
        this.driver = List.copyOf(driver);
        this.key = key;
        this.generation = generation;
    }

    /**
     * The source for this rank: the driver's service for rank 0 when {@link TroikaEnv#WORKER_ADDR} and
     * {@link TroikaEnv#WORKER_SECRET_FILE} are set, else {@link HostUpdateSource#none()}.
     *
     * @throws IllegalStateException when the key file is named but cannot be read
     */
    public static HostUpdateSource fromEnvironment(Map<String, String> env, int rank, int generation) {
        String addr = env.get(TroikaEnv.WORKER_ADDR);
        String file = env.get(TroikaEnv.WORKER_SECRET_FILE);
        if (rank != 0 || addr == null || addr.isBlank() || file == null || file.isBlank()) {
            return HostUpdateSource.none();
        }
        try {
            return new DriverHostUpdateSource(Endpoint.parseList(addr, TroikaEnv.WORKER_ADDR),
                    Secret.decode(Files.readString(Path.of(file))), generation);
        } catch (IOException e) {
            throw new IllegalStateException(TroikaEnv.WORKER_SECRET_FILE + " " + file + " cannot be read: "
                    + e.getMessage(), e);
        }
    }

    @Override
    public Optional<HostChange> poll() {
        synchronized (this) {
            if (reader == null && !closed) {
                reader = new Thread(this::listen, "troika-host-updates");
                reader.setDaemon(true);
                reader.start();
            }
        }
        return inbox.poll();
    }

    private void listen() {
        try {
            WireChannel<ElasticMessage> ch = WireChannel.connectAny(driver, Protocol.ELASTIC, key, 10_000);
            channel = ch;
            ch.send(new ElasticMessage.Subscribe(generation));
            ElasticMessage reply = ch.receive();
            if (!(reply instanceof ElasticMessage.Subscribed)) {
                throw new IOException("the driver refused the registration: " + reply);
            }
            ch.setReadTimeoutMillis(0);
            while (!closed) {
                if (ch.receive() instanceof ElasticMessage.HostsChanged h) {
                    HostChange c = HostChange.fromBits(h.timestampMillis(), h.bits() & 3);
                    if (c != null) {
                        inbox.announce(c);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                System.err.println("troika elastic: rank 0 has no host updates from the driver: " + e.getMessage());
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        WireChannel<ElasticMessage> ch = channel;
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }
}
