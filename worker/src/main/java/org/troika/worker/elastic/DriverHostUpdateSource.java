package org.troika.worker.elastic;

import java.io.IOException;
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
 * {@link #poll()} itself never blocks. If the registration fails (driver unreachable within the connect timeout,
 * handshake refused), the next {@link #poll()} throws {@link ElasticStartFailure}; a connection lost after it is
 * reported once on stderr and the rank goes on (a failing driver ends the generation anyway).
 *
 * <p>A rank that becomes the world's rank 0 after the launch's rank 0 died or left in place takes over ({@link
 * #takingOver}): it subscribes at once, under its own id, and a failure to do so is one line on stderr, not the
 * generation's end (the driver then relaunches at the next host change).
 */
public final class DriverHostUpdateSource implements HostUpdateSource, AutoCloseable {
    private final List<Endpoint> driver;
    private final Secret key;
    private final int generation;
    /** This rank's id in the generation (the launch's rank 0: 0). */
    private final int rank;
    /** Whether a failed registration fails the rank (the launch's rank 0) or is only reported (one taking over). */
    private final boolean fatal;
    /** How long {@link #close()} waits for the reader thread to end. */
    static final long READER_EXIT_MS = 1_000;
    private final InMemoryHostUpdateSource inbox = new InMemoryHostUpdateSource();
    private final String where;
    private Thread reader;
    private volatile WireChannel<ElasticMessage> channel;
    private volatile boolean closed;
    /** Why registration failed, once it did: the next poll fails the rank with it. */
    private volatile String failure;
    private volatile boolean registered;

    DriverHostUpdateSource(List<Endpoint> driver, Secret key, int generation, String where) {
        this(driver, key, generation, 0, true, where);
    }

    private DriverHostUpdateSource(List<Endpoint> driver, Secret key, int generation, int rank, boolean fatal,
            String where) {
        this.driver = List.copyOf(driver);
        this.key = key;
        this.generation = generation;
        this.rank = rank;
        this.fatal = fatal;
        this.where = where;
    }

    /** A rank 0 that cannot work as a source: {@link #check()} and {@link #poll()} throw {@code failure}. */
    private static HostUpdateSource broken(String failure) {
        return new HostUpdateSource() {
            @Override
            public Optional<HostChange> poll() {
                throw new ElasticStartFailure(failure);
            }

            @Override
            public void check() {
                throw new ElasticStartFailure(failure);
            }
        };
    }

    /**
     * The source for this rank: the driver's service for rank 0 when {@link TroikaEnv#WORKER_ADDR} is set (an elastic
     * launch), else {@link HostUpdateSource#none()}. Never throws: a rank 0 whose key ({@link
     * TroikaEnv#WORKER_SECRET_FILE}, written on its host by the host's task service) is missing or unreadable gets a
     * source that fails {@link HostUpdateSource#check()} with one line naming the rank, the host and the cause, which
     * {@link Elastic#run} turns into an abort of the generation instead of a hang. A rank spawned into a running
     * world ({@link TroikaEnv#ELASTIC_JOIN_ID}) gets none whatever its rank in its spawn: it is not the world's rank 0
     * (its {@link ElasticWorld} makes it listen if it becomes that).
     */
    public static HostUpdateSource fromEnvironment(Map<String, String> env, int rank, int generation) {
        String addr = env.get(TroikaEnv.WORKER_ADDR);
        if (rank != 0 || addr == null || addr.isBlank() || env.get(TroikaEnv.ELASTIC_JOIN_ID) != null) {
            return HostUpdateSource.none();
        }
        return open(env, addr, generation, 0, true, "rank 0 on host " + env.getOrDefault(TroikaEnv.HOSTNAME,
                hostname()), DriverHostUpdateSource::broken);
    }

    /**
     * The source of the rank with id {@code rank} at the driver {@code addr}, keyed from {@code env}; when the key
     * cannot be read or the address not parsed, what {@code failed} makes of the one line that says so.
     */
    private static HostUpdateSource open(Map<String, String> env, String addr, int generation, int rank,
            boolean fatal, String where, java.util.function.Function<String, HostUpdateSource> failed) {
        Secret key;
        try {
            key = WorkerKey.fromEnvironment(env);
        } catch (IOException e) {
            return failed.apply(where + " " + e.getMessage());
        }
        if (key == null) {
            return failed.apply(where + " has no worker key (" + TroikaEnv.WORKER_SECRET_FILE + " is not set): start "
                    + "elastic ranks on remote hosts through troika's relay (the default launch agent), not plain ssh");
        }
        try {
            return new DriverHostUpdateSource(Endpoint.parseList(addr, TroikaEnv.WORKER_ADDR), key, generation, rank,
                    fatal, where);
        } catch (RuntimeException e) {
            return failed.apply(where + ": bad " + TroikaEnv.WORKER_ADDR + "=" + addr + ": " + e.getMessage());
        }
    }

    /**
     * The source of the rank with id {@code rank}, now rank 0 of the world after the rank that heard the driver died
     * or left: it subscribes at once (the driver holds host changes for it meanwhile). {@link HostUpdateSource#none()}
     * without a driver; when its key cannot be read or the driver not reached, one line on stderr and no updates (the
     * driver ends the generation at its next host change, which then cannot reach the world).
     */
    static HostUpdateSource takingOver(Map<String, String> env, int rank, int generation) {
        String addr = env.get(TroikaEnv.WORKER_ADDR);
        if (addr == null || addr.isBlank()) {
            return HostUpdateSource.none();
        }
        HostUpdateSource s = open(env, addr, generation, rank, false, "rank " + rank + " (now rank 0) on host "
                + env.getOrDefault(TroikaEnv.HOSTNAME, hostname()), why -> {
                    System.err.println("troika elastic: " + why + "; the next host change relaunches the job");
                    System.err.flush();
                    return HostUpdateSource.none();
                });
        if (s instanceof DriverHostUpdateSource d) {
            d.start();
        }
        return s;
    }

    private static String hostname() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "?";
        }
    }

    @Override
    public Optional<HostChange> poll() {
        String failed = failure;
        if (failed != null) {
            throw new ElasticStartFailure(failed);
        }
        start();
        return inbox.poll();
    }

    /** Starts listening (once): the reader thread connects and registers. */
    private synchronized void start() {
        if (reader == null && !closed) {
            reader = new Thread(this::listen, "troika-host-updates");
            reader.setDaemon(true);
            reader.start();
        }
    }

    @Override
    public void requeue(HostChange change) {
        inbox.requeue(change);
    }

    private void listen() {
        try {
            WireChannel<ElasticMessage> ch = WireChannel.connectAny(driver, Protocol.ELASTIC, key, 10_000);
            channel = ch;
            if (closed) { // closed while connecting: close() found no channel to close
                ch.close();
                return;
            }
            ch.send(new ElasticMessage.Subscribe(generation, rank));
            ElasticMessage reply = ch.receive();
            if (!(reply instanceof ElasticMessage.Subscribed)) {
                throw new IOException("the driver refused the registration: " + reply);
            }
            registered = true;
            if (!fatal) {
                System.err.println("troika elastic: " + where + " hears the driver's host changes now");
                System.err.flush();
            }
            ch.setReadTimeoutMillis(0);
            while (!closed) {
                ElasticMessage m = ch.receive();
                if (m instanceof ElasticMessage.HostsChanged h) {
                    HostChange c = HostChange.fromBits(h.timestampMillis(), h.bits() & 3);
                    if (c != null) {
                        inbox.announce(c);
                    }
                } else if (m instanceof ElasticMessage.ChangeWorld w) {
                    inbox.announce(HostChange.of(System.currentTimeMillis(), w));
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                if (!fatal) {
                    System.err.println("troika elastic: " + where + " cannot listen to the driver at "
                            + Endpoint.formatList(driver) + ": " + why + "; the next host change relaunches the job");
                } else if (channel == null || !registered) {
                    // never registered: the generation cannot learn of host changes; fail it at the next poll
                    failure = where + " cannot register with the driver at " + Endpoint.formatList(driver) + ": "
                            + why;
                } else {
                    System.err.println("troika elastic: " + where + " lost the driver's host updates: " + why);
                }
            }
        }
    }

    /**
     * Stops listening: closes the connection and waits (at most {@value #READER_EXIT_MS} ms) until the reader thread has
     * left its read. A JVM that exits while one of its threads is blocked in a socket read waits ~300 ms for that
     * thread first (HotSpot's exit waits for threads in native code; measured here on JDK 17 and 21): rank 0, the only
     * rank with this thread, ended every generation that much after the others, and mpirun (which reports the job's
     * end only once every rank is gone) with it. {@link Elastic#run} calls this when the generation ends for the rank.
     */
    @Override
    public void close() {
        Thread r;
        synchronized (this) {
            closed = true;
            r = reader;
        }
        WireChannel<ElasticMessage> ch = channel;
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // closing
            }
        }
        if (r != null && r != Thread.currentThread()) {
            try {
                r.join(READER_EXIT_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Whether the reader thread runs (tests). */
    synchronized boolean listening() {
        return reader != null && reader.isAlive();
    }
}
