package org.troika.launcher.exec;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.troika.launcher.mpi.MpiFailureParser;
import org.troika.launcher.spi.RankOutput;

/**
 * Follows the per-rank files a launcher writes itself ({@link RankOutput#launcherFiles()}: Hydra's
 * {@code -outfile-pattern}, in a folder private to the launch) as they grow: each rank's bytes go to its per-rank file
 * in {@code DIR} as they were written, onto the console with the tag {@code -l} would have put before each line
 * ({@code [R] }), count as the rank's progress for the hang watchdog, and a JVM's "could not find main class" at a
 * line start is noted for the failure hint.
 *
 * <p>The folder is watched (inotify through {@link WatchService}) and read again in full every
 * {@value #SWEEP_MS} ms and once more at the end ({@link #finish}), so nothing written before the launcher ended is
 * lost. One thread, which also reads that last time; {@link #finish} waits for it. The thread is never interrupted: a
 * file channel closes itself when its reader is interrupted (the bytes after that read were lost), so {@link #finish}
 * wakes the thread by closing the watch instead, and a channel found closed is opened again at the offset read so
 * far. For the same reason the last reading is not done on {@link #finish}'s caller, which a Ctrl-C may interrupt.
 */
final class LauncherFilesTail {
    static final long SWEEP_MS = 500;

    private final RankOutput spec;
    private final RankFileWriter files;
    private final LaunchOutput.Activity watch;
    private final MpiFailureParser failures;
    private final PrintStream out;
    private final PrintStream err;
    private final SeekableByteChannel[] open;
    /** How many bytes of each file were delivered (where a reopened channel goes on). */
    private final long[] delivered;
    private final boolean[] midLine;
    private final ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
    private final Thread thread;
    private volatile boolean done;
    private volatile WatchService watching;
    private final java.util.concurrent.atomic.AtomicBoolean finished = new java.util.concurrent.atomic.AtomicBoolean();

    LauncherFilesTail(RankOutput spec, RankFileWriter files, LaunchOutput.Activity watch, MpiFailureParser failures,
            PrintStream out, PrintStream err) {
        this.spec = spec;
        this.files = files;
        this.watch = watch;
        this.failures = failures;
        this.out = out;
        this.err = err;
        this.open = new SeekableByteChannel[2 * spec.ranks()];
        this.midLine = new boolean[2 * spec.ranks()];
        this.delivered = new long[2 * spec.ranks()];
        this.thread = new Thread(this::run, "troika-rank-files");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /**
     * The launcher ended: reads what is left and stops (once; later calls do nothing). The thread reads the rest; this
     * waits for it even when interrupted (the rank files are complete when this returns), and then throws
     * {@link InterruptedException} if it was.
     */
    void finish() throws InterruptedException {
        if (finished.getAndSet(true)) {
            return;
        }
        done = true;
        WatchService ws = watching;
        if (ws != null) {
            try {
                ws.close(); // wakes the thread's poll: ClosedWatchServiceException
            } catch (IOException ignored) {
                // the poll still returns within SWEEP_MS
            }
        }
        boolean interrupted = false;
        if (thread.getState() == Thread.State.NEW) {
            thread.start(); // never started: it reads everything once and ends (done is set)
        }
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true; // the reading goes on: a file's tail must not be lost to a Ctrl-C
            }
        }
        for (SeekableByteChannel c : open) {
            if (c != null) {
                try {
                    c.close();
                } catch (IOException ignored) {
                    // read only
                }
            }
        }
        if (interrupted) {
            throw new InterruptedException("interrupted while the launcher's files were read to their end (they were)");
        }
    }

    private void run() {
        try {
            follow();
        } finally {
            sweep(); // the launcher ended: everything it wrote, now complete
        }
    }

    private void follow() {
        try (WatchService ws = spec.launcherFiles().getFileSystem().newWatchService()) {
            watching = ws;
            spec.launcherFiles().register(ws, StandardWatchEventKinds.ENTRY_CREATE,
                    StandardWatchEventKinds.ENTRY_MODIFY);
            long nextSweep = 0;
            while (!done) {
                long now = System.nanoTime();
                if (now >= nextSweep) {
                    sweep();
                    nextSweep = now + TimeUnit.MILLISECONDS.toNanos(SWEEP_MS);
                }
                WatchKey key = ws.poll(SWEEP_MS, TimeUnit.MILLISECONDS);
                if (key == null) {
                    continue;
                }
                for (WatchEvent<?> e : key.pollEvents()) {
                    if (e.kind() == StandardWatchEventKinds.OVERFLOW) {
                        nextSweep = 0;
                    } else if (e.context() instanceof Path name) {
                        read(name.getFileName().toString());
                    }
                }
                key.reset();
                files.flush();
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // finish() reads the rest
        } catch (IOException e) {
            // no watching: the sweeps and finish() still read everything
            while (!done) {
                sweep();
                try {
                    Thread.sleep(SWEEP_MS / 5);
                } catch (InterruptedException x) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Reads every rank's files to their current end. */
    private synchronized void sweep() {
        for (int i = 0; i < open.length; i++) {
            readFile(i / 2, i % 2 == 1);
        }
        files.flush();
    }

    /** A file the watch named: {@code rank.N.stdout} or {@code rank.N.stderr}. */
    private synchronized void read(String name) {
        if (!name.startsWith("rank.")) {
            return;
        }
        int dot = name.indexOf('.', 5);
        if (dot < 0) {
            return;
        }
        boolean stderr;
        if (name.endsWith(".stdout")) {
            stderr = false;
        } else if (name.endsWith(".stderr")) {
            stderr = true;
        } else {
            return;
        }
        int rank;
        try {
            rank = Integer.parseInt(name.substring(5, dot));
        } catch (NumberFormatException e) {
            return;
        }
        if (rank >= 0 && rank < spec.ranks() && name.equals(RankOutput.fileName(rank, stderr))) {
            readFile(rank, stderr);
        }
    }

    private void readFile(int rank, boolean stderr) {
        int i = 2 * rank + (stderr ? 1 : 0);
        try {
            if (open[i] == null || !open[i].isOpen()) {
                open[i] = Files.newByteChannel(spec.launcherFile(rank, stderr), Set.of(StandardOpenOption.READ,
                        LinkOption.NOFOLLOW_LINKS)).position(delivered[i]);
            }
            long now = 0;
            int n;
            while ((n = open[i].read(buf.clear())) > 0) {
                deliver(rank, stderr, buf.array(), n);
                delivered[i] += n;
                if (now == 0) {
                    now = System.currentTimeMillis();
                    watch.rankOutput(rank, now);
                }
            }
        } catch (NoSuchFileException e) {
            // the rank has written nothing to this stream yet
        } catch (IOException e) {
            // the folder is troika's own; a read error shows as missing output and files.failure() stays clean
        }
    }

    /** A rank's bytes: to its file, and onto the console with {@code [R] } before each line. */
    private void deliver(int rank, boolean stderr, byte[] b, int n) {
        files.write(rank, stderr, b, 0, n);
        int i = 2 * rank + (stderr ? 1 : 0);
        PrintStream to = stderr ? err : out;
        byte[] tag = ("[" + rank + "] ").getBytes(StandardCharsets.US_ASCII);
        synchronized (to) {
            int from = 0;
            while (from < n) {
                if (!midLine[i]) {
                    to.write(tag, 0, tag.length);
                    failures.acceptRankLineStart(b, from, n - from);
                    midLine[i] = true;
                }
                int end = from;
                while (end < n && b[end] != '\n') {
                    end++;
                }
                if (end < n) {
                    end++;
                    midLine[i] = false;
                }
                to.write(b, from, end - from);
                from = end;
            }
            to.flush();
        }
    }
}
