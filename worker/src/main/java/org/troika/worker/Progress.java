package org.troika.worker;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.troika.common.ProgressReport;
import org.troika.common.TroikaEnv;
import org.troika.mpi.CollectiveProgress;
import org.troika.wire.Datagrams;
import org.troika.wire.Endpoint;
import org.troika.wire.ProgressMessage;
import org.troika.wire.Protocol;
import org.troika.wire.Secret;

/**
 * Tells troika's hang watchdog that this rank makes progress. Every troika-mpi collective and every elastic
 * {@code State.commit()} already counts; call {@link #beat(String)} in loops that do neither (data loading, local
 * steps), with a label that says where the rank is ({@code "epoch 3 step 120"}): a hang report names it.
 *
 * <pre>
 *   for (int step = 0; step &lt; steps; step++) {
 *       Progress.beat("step " + step);   // costs an atomic increment
 *       ...
 *   }
 * </pre>
 *
 * <p>Cheap: a beat updates two fields; a background thread samples them every
 * {@value TroikaEnv#PROGRESS_INTERVAL_MS} (default 1000 ms) and sends a report to the launcher's progress service, one
 * authenticated UDP datagram (troika-wire's {@code Datagrams}), when something moved, and again now and then while
 * nothing does. It runs only when troika watches the job ({@value TroikaEnv#PROGRESS_ADDR} and
 * {@value TroikaEnv#PROGRESS_KEY} are set); otherwise beats are counted and nothing is sent. The key opens nothing but
 * the progress service. If a report cannot be sent (no route, or the kernel says nothing listens there) the reporter
 * says so once on stderr and the rank goes on (the watchdog then sees the rank by its output only).
 */
public final class Progress {
    /** A report goes out again after this many intervals without progress (a datagram may be lost). */
    static final int REPEAT_EVERY = 4;
    private static final AtomicLong BEATS = new AtomicLong();
    private static final AtomicLong COMMITS = new AtomicLong();
    private static volatile String where = "";
    private static Thread reporter; // guarded by Progress.class

    private Progress() {}

    /** This rank made progress. */
    public static void beat() {
        BEATS.incrementAndGet();
        start();
    }

    /** This rank made progress and is now at {@code label} (kept for hang reports; at most 120 characters). */
    public static void beat(String label) {
        where = label == null ? "" : label;
        beat();
    }

    /** Called by the elastic {@code State.commit()}: a commit is progress, and the timeline shows rank 0's. */
    public static void commit() {
        COMMITS.incrementAndGet();
        start();
    }

    /** Starts reporting if troika watches this rank (idempotent; troika-mpi calls it at {@code Mpi.init()}). */
    public static synchronized void start() {
        if (reporter != null) {
            return;
        }
        Map<String, String> env = System.getenv();
        String addr = env.get(TroikaEnv.PROGRESS_ADDR);
        String key = env.get(TroikaEnv.PROGRESS_KEY);
        if (addr == null || addr.isBlank() || key == null || key.isBlank()) {
            reporter = new Thread(() -> { }); // watched by output only: never look again
            return;
        }
        long interval = 1000;
        try {
            interval = Math.max(50, Long.parseLong(env.getOrDefault(TroikaEnv.PROGRESS_INTERVAL_MS, "1000").strip()));
        } catch (NumberFormatException ignored) {
            // default
        }
        int id;
        try {
            id = id(env);
        } catch (IllegalArgumentException e) {
            System.err.println("troika: this rank cannot report progress to the hang watchdog: " + e.getMessage());
            reporter = new Thread(() -> { });
            return;
        }
        int generation = 0;
        try {
            generation = Integer.parseInt(env.getOrDefault(TroikaEnv.ELASTIC_GENERATION, "0").strip());
        } catch (NumberFormatException ignored) {
            // static job
        }
        Reporter r = new Reporter(Endpoint.parseList(addr, TroikaEnv.PROGRESS_ADDR), Secret.decode(key), id,
                generation, interval);
        reporter = new Thread(r::run, "troika-progress");
        reporter.setDaemon(true);
        reporter.start();
    }

    /**
     * The id this rank reports under: its rank in the launch, or for a rank spawned into a running world its id in the
     * generation ({@link TroikaEnv#spawnedRankId}: its rank in the world it joined is no id, the world renumbers at
     * every change).
     */
    static int id(Map<String, String> env) {
        return TroikaEnv.spawnedRankId(env).orElseGet(() -> RankEnv.from(env, () -> "").rank());
    }

    /** The report of this process's progress now. */
    static ProgressReport sample(int rank, int generation) {
        return new ProgressReport(rank, generation, BEATS.get(), COMMITS.get(), CollectiveProgress.entered(),
                CollectiveProgress.left(), CollectiveProgress.lastEntered(), where);
    }

    /**
     * Sends a report when progress changed, at most once per interval, and the same report again every
     * {@value #REPEAT_EVERY} intervals while nothing moves: each report is one datagram, and a datagram may be lost.
     * A repeat is no progress to the watchdog; it keeps what it knows of the rank (inside a collective or not) current.
     */
    private record Reporter(List<Endpoint> service, Secret key, int rank, int generation, long intervalMillis) {
        void run() {
            ProgressReport sent = null;
            String lastWhere = null;
            int quiet = 0;
            Datagrams.Sealer<ProgressMessage> sealer = new Datagrams.Sealer<>(Protocol.PROGRESS, key);
            DatagramChannel ch = null;
            boolean complained = false;
            while (true) {
                ProgressReport now = sample(rank, generation);
                if (sent == null || now.progressedSince(sent) || !now.where().equals(lastWhere)
                        || ++quiet >= REPEAT_EVERY) {
                    try {
                        if (ch == null) {
                            ch = DatagramChannel.open();
                            ch.connect(service.get(0).socketAddress());
                        }
                        ch.write(ByteBuffer.wrap(sealer.seal(new ProgressMessage.Report(now.encode()))));
                        sent = now;
                        lastWhere = now.where();
                    } catch (IOException | RuntimeException e) {
                        if (!complained) {
                            System.err.println("troika: rank " + rank + " cannot report progress to the watchdog at "
                                    + Endpoint.formatList(service) + ": " + e);
                            complained = true;
                        }
                        if (ch != null && !(e instanceof java.net.PortUnreachableException)) {
                            try {
                                ch.close();
                            } catch (IOException ignored) {
                                // opened again next time
                            }
                            ch = null;
                        }
                    }
                    quiet = 0;
                }
                try {
                    Thread.sleep(intervalMillis);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }
}
