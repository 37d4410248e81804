package org.troika.worker;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.troika.common.ProgressReport;
import org.troika.common.TroikaEnv;
import org.troika.mpi.CollectiveProgress;
import org.troika.wire.Endpoint;
import org.troika.wire.ProgressMessage;
import org.troika.wire.Protocol;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;

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
 * {@value TroikaEnv#PROGRESS_INTERVAL_MS} (default 1000 ms) and sends a report to the launcher's progress service over
 * the authenticated wire protocol only when something moved. It runs only when troika watches the job
 * ({@value TroikaEnv#PROGRESS_ADDR} and {@value TroikaEnv#PROGRESS_KEY} are set); otherwise beats are counted and
 * nothing is sent. The key opens nothing but the progress service. If the service cannot be reached the reporter says
 * so once on stderr and the rank goes on (the watchdog then sees the rank by its output only).
 */
public final class Progress {
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
        RankEnv me = RankEnv.current();
        int generation = 0;
        try {
            generation = Integer.parseInt(env.getOrDefault(TroikaEnv.ELASTIC_GENERATION, "0").strip());
        } catch (NumberFormatException ignored) {
            // static job
        }
        Reporter r = new Reporter(Endpoint.parseList(addr, TroikaEnv.PROGRESS_ADDR), Secret.decode(key), me.rank(),
                generation, interval);
        reporter = new Thread(r::run, "troika-progress");
        reporter.setDaemon(true);
        reporter.start();
    }

    /** The report of this process's progress now. */
    static ProgressReport sample(int rank, int generation) {
        return new ProgressReport(rank, generation, BEATS.get(), COMMITS.get(), CollectiveProgress.entered(),
                CollectiveProgress.left(), CollectiveProgress.lastEntered(), where);
    }

    /** Sends a report when progress changed, at most once per interval, on one connection. */
    private record Reporter(List<Endpoint> service, Secret key, int rank, int generation, long intervalMillis) {
        void run() {
            ProgressReport sent = null;
            String lastWhere = null;
            WireChannel<ProgressMessage> ch = null;
            boolean complained = false;
            while (true) {
                ProgressReport now = sample(rank, generation);
                if (sent == null || now.progressedSince(sent) || !now.where().equals(lastWhere)) {
                    try {
                        if (ch == null) {
                            ch = WireChannel.connectAny(service, Protocol.PROGRESS, key, 10_000);
                        }
                        ch.send(new ProgressMessage.Report(now.encode()));
                        sent = now;
                        lastWhere = now.where();
                    } catch (IOException | RuntimeException e) {
                        if (!complained) {
                            System.err.println("troika: rank " + rank + " cannot report progress to the watchdog at "
                                    + Endpoint.formatList(service) + ": " + e.getMessage());
                            complained = true;
                        }
                        if (ch != null) {
                            try {
                                ch.close();
                            } catch (IOException ignored) {
                                // reconnect next time
                            }
                            ch = null;
                        }
                    }
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
