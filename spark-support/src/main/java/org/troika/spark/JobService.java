package org.troika.spark;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.troika.wire.Acceptor;
import org.troika.wire.Endpoint;
import org.troika.wire.Message;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;
import org.troika.wire.WireException;

/**
 * The Spark side of the driver: one authenticated service (troika wire protocol, the job's secret) in the Spark
 * driver that the barrier tasks and the ranks talk to. The host registry for the launch agent is the separate
 * {@link org.troika.rsh.driver.DriverService}, created once the host hashes are known.
 *
 * <pre>
 *   task  ── SparkTask(index, hostHash) ──►  JobService      (connection stays open)
 *         ◄─ SparkAssign(host, driver) ───                   (once all np tasks registered)
 *         ◄─ Shutdown(ok) | Failure(why) ─                   (job over: the task returns or fails)
 *   rank  ── FetchFunction(rank) ─────────►  ◄─ FunctionBytes(filter, bytes)
 *         ── RankResult(rank, ok, bytes) ─►  ◄─ Pong | Failure
 * </pre>
 *
 * Frames that fail the MAC, replays and unexpected messages close the connection without any effect; a rank number
 * outside {@code 0..np-1} or a second result for a rank is refused.
 */
final class JobService implements AutoCloseable {
    /** One registered task. */
    record TaskInfo(int index, String hostHash, String executor) {}

    /** A rank's outcome: its serialized result, or its error line. */
    record Outcome(boolean ok, byte[] data) {
        String error() {
            return new String(data, StandardCharsets.UTF_8);
        }
    }

    private final Secret secret;
    private final int np;
    private final byte[] function;
    private final String filter;
    private final ServerSocket server;
    private final Map<Integer, TaskInfo> tasks = new ConcurrentHashMap<>();
    private final Map<Integer, WireChannel> taskChannels = new ConcurrentHashMap<>();
    private final Map<Integer, Outcome> outcomes = new ConcurrentHashMap<>();
    private final Map<Integer, String> lostTasks = new ConcurrentHashMap<>();
    private final Object changed = new Object();
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "troika-spark-job-service");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean closing;

    JobService(Secret secret, InetAddress bind, int np, byte[] function, String filter) throws IOException {
        this.secret = secret;
        this.np = np;
        this.function = function.clone();
        this.filter = filter;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(bind, 0), 256);
        pool.submit(() -> Acceptor.serveUntilClosed(server, pool, this::serve));
    }

    Endpoint endpoint() {
        return new Endpoint(server.getInetAddress().getHostAddress(), server.getLocalPort());
    }

    /** Registered tasks by index. */
    Map<Integer, TaskInfo> tasks() {
        return new TreeMap<>(tasks);
    }

    /** Outcomes reported by ranks so far, by rank. */
    Map<Integer, Outcome> outcomes() {
        return new TreeMap<>(outcomes);
    }

    /** Tasks whose connection dropped before the job ended, with why. */
    Map<Integer, String> lostTasks() {
        return new TreeMap<>(lostTasks);
    }

    /**
     * Waits until all {@code np} tasks registered, or {@code stop} says to give up, or the timeout passes.
     *
     * @return whether all registered in time
     */
    boolean awaitTasks(Duration timeout, java.util.function.BooleanSupplier stop) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (changed) {
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || stop.getAsBoolean()) {
                    return false; // the deadline wins even if the last task registered meanwhile
                }
                if (tasks.size() == np) {
                    return true;
                }
                java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(changed, Math.min(left, 200_000_000L));
            }
        }
    }

    /** Waits until every rank reported an outcome or the timeout passes; returns whether all did. */
    boolean awaitOutcomes(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (changed) {
            while (outcomes.size() < np) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(changed, left);
            }
        }
        return true;
    }

    /** Tells every task which task service to start (per {@code layout}) and where the host registry is. */
    void assign(HostLayout layout, Endpoint driver) throws IOException {
        for (Map.Entry<Integer, WireChannel> e : taskChannels.entrySet()) {
            e.getValue().send(new Message.SparkAssign(layout.serviceHostOf(e.getKey()), List.of(driver)));
        }
    }

    /** Ends the tasks: they return normally ({@code failure == null}) or fail with {@code failure}. */
    void finish(String failure) {
        for (WireChannel c : taskChannels.values()) {
            try {
                c.send(failure == null ? new Message.Shutdown("job finished") : new Message.Failure(failure));
            } catch (IOException ignored) {
                // the task is gone already
            }
        }
    }


    private void serve(Socket s) {
        WireChannel c = null;
        boolean keep = false;
        try {
            s.setSoTimeout(30_000);
            c = WireChannel.accept(s, secret, WireChannel.DEFAULT_MAX_BODY);
            Message first = c.receive();
            if (first instanceof Message.SparkTask t) {
                keep = registerTask(c, t);
            } else if (first instanceof Message.FetchFunction f) {
                c.send(inRange(f.rank()) ? new Message.FunctionBytes(filter, function)
                        : new Message.Failure("rank " + f.rank() + " is not in this job of " + np));
            } else if (first instanceof Message.RankResult r) {
                c.send(putOutcome(r));
            } else {
                c.send(new Message.Failure("unexpected " + first.getClass().getSimpleName() + " at the Spark job service"));
            }
        } catch (WireException e) {
            // unauthenticated, replayed or malformed: dropped without acting on it
        } catch (IOException e) {
            // peer went away
        } finally {
            if (!keep) {
                close(c, s);
            }
        }
    }

    private boolean registerTask(WireChannel c, Message.SparkTask t) throws IOException {
        if (!inRange(t.index()) || tasks.putIfAbsent(t.index(), new TaskInfo(t.index(), t.hostHash(), t.executor())) != null) {
            c.send(new Message.Failure("task " + t.index() + " is not expected or already registered"));
            return false;
        }
        c.setReadTimeoutMillis(0);
        taskChannels.put(t.index(), c);
        synchronized (changed) {
            changed.notifyAll();
        }
        WireChannel channel = c;
        pool.submit(() -> watchTask(t.index(), channel));
        return true;
    }

    /** Reads the task's connection until it ends, so a lost executor is noticed. */
    private void watchTask(int index, WireChannel c) {
        try {
            while (true) {
                c.receive();
            }
        } catch (IOException e) {
            if (!closing) {
                lostTasks.put(index, "connection of Spark task " + index + " ended: " + e.getMessage());
            }
        }
    }

    private Message putOutcome(Message.RankResult r) {
        if (!inRange(r.rank())) {
            return new Message.Failure("rank " + r.rank() + " is not in this job of " + np);
        }
        if (outcomes.putIfAbsent(r.rank(), new Outcome(r.ok(), r.data())) != null) {
            return new Message.Failure("rank " + r.rank() + " already reported");
        }
        synchronized (changed) {
            changed.notifyAll();
        }
        return new Message.Pong("driver");
    }

    private boolean inRange(int i) {
        return i >= 0 && i < np;
    }

    private static void close(WireChannel c, Socket s) {
        try {
            if (c != null) {
                c.close();
            } else {
                s.close();
            }
        } catch (IOException ignored) {
            // closing
        }
    }

    @Override
    public void close() {
        closing = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        taskChannels.values().forEach(c -> close(c, null));
        pool.shutdownNow();
    }
}
