package org.troika.rsh.task;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.troika.common.TroikaEnv;
import org.troika.common.exec.ProcessTable;
import org.troika.wire.RelayMessage;

/**
 * Watches, on one host, the rank processes of fault-tolerant elastic generations that this host's task service's
 * daemons started, and tells (once per process) when one has ended: the launcher learns of a dead rank from the host
 * it ran on, whatever the MPI's runtime reports (Open MPI 5's PRRTE or ULFM may leave survivors waiting; issue 21).
 *
 * <p>Ranks are found in the process trees of the service's commands (its daemons: {@code prted} under the relay), by
 * walking {@code /proc/PID/task/TID/children} from each command's process every {@link #DISCOVERY}: a rank is the first
 * process on a path down whose environment carries {@link TroikaEnv#FAULT_TOLERANCE}{@code =shrink}, {@link
 * TroikaEnv#ELASTIC_GENERATION} and the MPI's rank ({@code OMPI_COMM_WORLD_RANK}, else {@code PMIX_RANK}); the walk
 * does not go below a rank, so a rank's own children (the shell of {@code troika-rankenv} forks a few) and helpers it
 * left behind (reparented out of the tree) are never ranks, and their ends are no deaths. A found rank's {@code
 * /proc/PID/stat} is then read every {@link #INTERVAL}: it has ended when the entry is gone, a zombie, or another
 * process with the same pid. Reading {@code /proc} is not free (here, in a sandbox on a loaded machine, ~1 ms per
 * file), so the whole process table is never scanned: a walk reads a few files per process of the daemons' trees (the
 * environment only of processes it has not seen, or that are still young enough to be between fork and exec), a check
 * one file per rank, and while no rank is watched the thread wakes only for the walks. An idle service's watch cost
 * 3.3 ms of CPU a second before (the environments of the daemon and its non-rank children read and parsed at every
 * walk), a third of a task service's CPU in a 64-host launch on one machine (docs/launch-agent.md).
 */
final class RankWatch implements AutoCloseable {
    /** How often the found ranks are checked. */
    static final Duration INTERVAL = Duration.ofMillis(100);
    /** How often the commands' process trees are walked for new ranks (ranks start once per generation). */
    static final Duration DISCOVERY = Duration.ofMillis(1000);
    private static final Path PROC = Path.of("/proc");
    /**
     * The clock ticks per second of {@code /proc/PID/stat}'s start time: USER_HZ, 100 on every Linux architecture troika
     * runs on (the kernel converts to it for user space whatever its own tick rate).
     */
    static final long TICKS_PER_SECOND = 100;
    /** How long after its start a process's environment is read again while it is no rank: 10 s, in ticks. */
    static final long EXEC_TICKS = 10 * TICKS_PER_SECOND;

    /** A watched rank process. */
    record Rank(long pid, long startTicks, int generation, int rank) {}

    private final Supplier<Collection<Long>> roots;
    private final Consumer<RelayMessage.RankEnded> ended;
    /** What each process of the trees is, by pid and start time (empty: not a rank). */
    private final Map<Long, Seen> seen = new HashMap<>();
    private final Map<Long, Rank> watched = new HashMap<>();
    private long lastWalk;
    private volatile boolean closed;
    private Thread thread;

    private record Seen(long startTicks, Optional<Rank> rank) {}

    /**
     * @param roots the process ids of the service's commands now (their trees hold the daemons and ranks)
     * @param ended told of each watched rank's end, on the watch's thread
     */
    RankWatch(Supplier<Collection<Long>> roots, Consumer<RelayMessage.RankEnded> ended) {
        this.roots = roots;
        this.ended = ended;
    }

    /** Starts the watch's daemon thread. */
    synchronized RankWatch start() {
        thread = new Thread(() -> {
            while (!closed) {
                try {
                    check(System.nanoTime());
                    // nothing to check between walks while no rank is watched (an idle service wakes once a second)
                    Thread.sleep(watched.isEmpty() ? DISCOVERY.toMillis() : INTERVAL.toMillis());
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    // /proc unreadable for a moment: look again
                }
            }
        }, "task-service-rank-watch");
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    /** One check at {@code nanos}: the trees are walked when {@link #DISCOVERY} has passed; ended ranks are reported. */
    void check(long nanos) {
        if (nanos - lastWalk >= DISCOVERY.toNanos() || lastWalk == 0) {
            lastWalk = nanos;
            walk();
        }
        for (Iterator<Map.Entry<Long, Rank>> it = watched.entrySet().iterator(); it.hasNext(); ) {
            Rank r = it.next().getValue();
            Long started = startTicks(r.pid());
            if (started == null || started != r.startTicks()) {
                it.remove();
                ended.accept(new RelayMessage.RankEnded(r.generation(), r.rank()));
            }
        }
    }

    /** Walks the commands' trees: ranks not watched yet are watched. */
    void walk() {
        Deque<Long> todo = new ArrayDeque<>(roots.get());
        long now = uptimeTicks();
        Set<Long> visited = new HashSet<>();
        while (!todo.isEmpty()) {
            long pid = todo.pop();
            if (!visited.add(pid)) {
                continue;
            }
            Long started = startTicks(pid);
            if (started == null) {
                continue; // gone, or a zombie
            }
            Seen s = seen.get(pid);
            if (s == null || s.startTicks() != started || s.rank().isEmpty() && young(started, now)) {
                // read again while no rank and young: a daemon's child between fork and exec has the daemon's
                // environment; once it is older than EXEC_TICKS, what it is is settled (a daemon, or a process of a
                // generation without fault tolerance: read once, not every walk of the job's life)
                s = new Seen(started, classify(pid, started, environ(pid)));
                seen.put(pid, s);
            }
            if (s.rank().isPresent()) {
                watched.putIfAbsent(pid, s.rank().get());
            } else {
                todo.addAll(children(pid));
            }
        }
        seen.keySet().retainAll(visited);
    }

    /**
     * What process {@code pid} is, from its environment (pure): a rank of a fault-tolerant elastic generation, or
     * empty.
     */
    static Optional<Rank> classify(long pid, long startTicks, byte[] environ) {
        Map<String, String> env = new HashMap<>();
        int start = 0;
        for (int i = 0; i <= environ.length; i++) {
            if (i == environ.length || environ[i] == 0) {
                String e = new String(environ, start, i - start, StandardCharsets.UTF_8);
                int eq = e.indexOf('=');
                if (eq > 0) {
                    env.putIfAbsent(e.substring(0, eq), e.substring(eq + 1));
                }
                start = i + 1;
            }
        }
        if (!"shrink".equals(env.get(TroikaEnv.FAULT_TOLERANCE))) {
            return Optional.empty();
        }
        String rank = env.getOrDefault("OMPI_COMM_WORLD_RANK", env.get("PMIX_RANK"));
        String gen = env.get(TroikaEnv.ELASTIC_GENERATION);
        if (rank == null || gen == null || !rank.matches("[0-9]{1,9}") || !gen.matches("[0-9]{1,9}")) {
            return Optional.empty();
        }
        // a rank spawned into a running world (a growth in place) is rank R of its spawn: its id in the generation
        // is the spawn's first id plus R; before, a spawned rank's death was reported as the launch's rank R, and
        // the launcher declared that rank dead and blacklisted its host
        int id;
        try {
            id = TroikaEnv.spawnedRankId(env).orElse(Integer.parseInt(rank));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        return Optional.of(new Rank(pid, startTicks, Integer.parseInt(gen), id));
    }

    /**
     * Whether a process that started at {@code startTicks} may still be between fork and exec at {@code nowTicks} (or
     * the time is unknown: {@code nowTicks} negative).
     */
    static boolean young(long startTicks, long nowTicks) {
        return nowTicks < 0 || nowTicks - startTicks < EXEC_TICKS;
    }

    /** The time since boot in clock ticks ({@code /proc/uptime}), or -1 when it cannot be read. */
    private static long uptimeTicks() {
        try {
            String up = Files.readString(PROC.resolve("uptime"), StandardCharsets.US_ASCII);
            return (long) (Double.parseDouble(up.substring(0, up.indexOf(' '))) * TICKS_PER_SECOND);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The children of every thread of {@code pid} (a daemon forks from any of its threads). */
    private static Set<Long> children(long pid) {
        Set<Long> out = new HashSet<>();
        Path tasks = PROC.resolve(Long.toString(pid)).resolve("task");
        try (DirectoryStream<Path> tids = Files.newDirectoryStream(tasks)) {
            for (Path tid : tids) {
                try {
                    for (String c : Files.readString(tid.resolve("children"), StandardCharsets.US_ASCII).trim()
                            .split(" ")) {
                        if (!c.isEmpty()) {
                            out.add(Long.parseLong(c));
                        }
                    }
                } catch (IOException | RuntimeException gone) {
                    // the thread ended
                }
            }
        } catch (IOException | RuntimeException gone) {
            // the process ended
        }
        return out;
    }

    /** The start time (clock ticks after boot) from {@code /proc/PID/stat}, or {@code null} when gone or a zombie. */
    private static Long startTicks(long pid) {
        try {
            String[] f = ProcessTable.statFields(Long.toString(pid));
            // after the name: state(0) ppid(1) ... starttime is field 22 of the line, index 19 here
            return f.length < 20 || ProcessTable.ended(f) ? null : Long.parseLong(f[19]);
        } catch (IOException | RuntimeException e) {
            return null; // gone, or not a stat line
        }
    }

    private static byte[] environ(long pid) {
        try {
            return Files.readAllBytes(PROC.resolve(Long.toString(pid)).resolve("environ"));
        } catch (IOException | RuntimeException e) {
            return new byte[0];
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (thread != null) {
            thread.interrupt();
        }
    }
}
