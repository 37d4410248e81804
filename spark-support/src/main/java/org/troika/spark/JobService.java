package org.troika.spark;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.troika.wire.Endpoint;
import org.troika.wire.Protocol;
import org.troika.wire.Secret;
import org.troika.wire.SparkMessage;
import org.troika.wire.WireChannel;
import org.troika.wire.WireServer;

/**
 * The Spark side of the driver: one authenticated service (the troika wire's Spark protocol) in the Spark driver that
 * the barrier tasks (with the job's secret) and the ranks (with the {@linkplain #rankKey rank key}) talk to, on a {@link WireServer} (hello deadline, bounds on
 * connections that have not proven the key, bounded threads; this runs inside the Spark driver's JVM, so it bounds
 * its own resources rather than the heap). The host registry for the launch agent is the separate
 * {@link org.troika.rsh.driver.DriverService}, created once the host hashes are known.
 *
 * <pre>
 *   task  ── Task(index, hostHash) ───────►  JobService      (connection stays open)
 *         ◄─ Assign(host, driver) ────────                   (once all np tasks registered)
 *         ◄─ Shutdown(ok) | Failure(why) ─                   (job over: the task returns or fails)
 *   rank  ── FetchFunction(rank) ─────────►  ◄─ FunctionBytes(filter, bytes)
 *         ── RankResult(rank, ok, bytes) ─►  ◄─ Stored | Failure
 * </pre>
 *
 * Frames that fail the MAC, replays and unexpected messages close the connection without any effect; a rank number
 * outside {@code 0..np-1} or a second result for a rank is refused. Each key opens one door: the job secret registers
 * tasks and nothing else, the rank key fetches the function and reports results and nothing else.
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

    /** Derivation label of the rank key; bump the version on any change of what the key may do. */
    static final String RANK_KEY_LABEL = "troika-spark-rank-v1";

    private final int np;
    private final Secret rankKey;
    private final byte[] function;
    private final String filter;
    private final WireServer<SparkMessage> server;
    private final Map<Integer, TaskInfo> tasks = new ConcurrentHashMap<>();
    private final Map<Integer, WireChannel<SparkMessage>> taskChannels = new ConcurrentHashMap<>();
    private final Map<Integer, Outcome> outcomes = new ConcurrentHashMap<>();
    private final Map<Integer, String> lostTasks = new ConcurrentHashMap<>();
    private final Object changed = new Object();
    private volatile boolean closing;

    JobService(Secret secret, InetAddress bind, int np, byte[] function, String filter) throws IOException {
        this.np = np;
        this.rankKey = rankKey(secret);
        this.function = function.clone();
        this.filter = filter;
        // np tasks stay connected; np ranks connect twice each, briefly
        this.server = WireServer.start("troika-spark-job-service", Protocol.SPARK, secret, List.of(bind),
                WireServer.Limits.DEFAULT.withMaxConnections(WireServer.Limits.DEFAULT.maxConnections() + 2 * np),
                this::serve);
        server.acceptAlso(rankKey);
    }

    /**
     * The key the ranks get instead of the job secret: HMAC-SHA256(job secret, {@value #RANK_KEY_LABEL}). It fetches
     * the function and reports a result at this service and opens nothing else: no task registration here, and no door
     * of the relay (driver and task services take the job secret or the launch agent key, never this one).
     */
    static Secret rankKey(Secret job) {
        return job.derive(RANK_KEY_LABEL);
    }

    Endpoint endpoint() {
        return server.endpoints().get(0);
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

    /** Tells every task to start no task service: the ranks run on this machine, started by mpirun itself. */
    void assignNoServices() throws IOException {
        for (WireChannel<SparkMessage> c : taskChannels.values()) {
            c.send(new SparkMessage.Assign("", List.of()));
        }
    }

    /** Tells every task which task service to start (per {@code layout}) and where the host registry is. */
    void assign(HostLayout layout, Endpoint driver) throws IOException {
        for (Map.Entry<Integer, WireChannel<SparkMessage>> e : taskChannels.entrySet()) {
            e.getValue().send(new SparkMessage.Assign(layout.serviceHostOf(e.getKey()), List.of(driver)));
        }
    }

    /** Ends the tasks: they return normally ({@code failure == null}) or fail with {@code failure}. */
    void finish(String failure) {
        for (WireChannel<SparkMessage> c : taskChannels.values()) {
            try {
                c.send(failure == null ? new SparkMessage.Shutdown("job finished") : new SparkMessage.Failure(failure));
            } catch (IOException ignored) {
                // the task is gone already
            }
        }
    }


    /** One authenticated connection; {@link WireServer} closes it when this returns. */
    private void serve(WireChannel<SparkMessage> c, SparkMessage first) throws IOException {
        boolean rank = c.keyedWith(rankKey);
        if (rank != (first instanceof SparkMessage.FetchFunction || first instanceof SparkMessage.RankResult)) {
            c.send(new SparkMessage.Failure(first.getClass().getSimpleName() + " is not accepted with "
                    + (rank ? "the rank key" : "the job secret") + " at the Spark job service"));
        } else if (first instanceof SparkMessage.Task t) {
            if (registerTask(c, t)) {
                watchTask(t.index(), c);
            }
        } else if (first instanceof SparkMessage.FetchFunction f) {
            c.send(inRange(f.rank()) ? new SparkMessage.FunctionBytes(filter, function)
                    : new SparkMessage.Failure("rank " + f.rank() + " is not in this job of " + np));
        } else if (first instanceof SparkMessage.RankResult r) {
            c.send(putOutcome(r));
        } else {
            c.send(new SparkMessage.Failure("unexpected " + first.getClass().getSimpleName()
                    + " at the Spark job service"));
        }
    }

    private boolean registerTask(WireChannel<SparkMessage> c, SparkMessage.Task t) throws IOException {
        if (!inRange(t.index()) || tasks.putIfAbsent(t.index(), new TaskInfo(t.index(), t.hostHash(), t.executor())) != null) {
            c.send(new SparkMessage.Failure("task " + t.index() + " is not expected or already registered"));
            return false;
        }
        taskChannels.put(t.index(), c);
        synchronized (changed) {
            changed.notifyAll();
        }
        return true;
    }

    /** Reads the task's connection until it ends, so a lost executor is noticed. */
    private void watchTask(int index, WireChannel<SparkMessage> c) {
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

    private SparkMessage putOutcome(SparkMessage.RankResult r) {
        if (!inRange(r.rank())) {
            return new SparkMessage.Failure("rank " + r.rank() + " is not in this job of " + np);
        }
        if (outcomes.putIfAbsent(r.rank(), new Outcome(r.ok(), r.data())) != null) {
            return new SparkMessage.Failure("rank " + r.rank() + " already reported");
        }
        synchronized (changed) {
            changed.notifyAll();
        }
        return new SparkMessage.Stored(r.rank());
    }

    private boolean inRange(int i) {
        return i >= 0 && i < np;
    }

    @Override
    public void close() {
        closing = true;
        server.close(); // and every task's channel
    }
}
