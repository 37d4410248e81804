package org.troika.launcher.exec;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.troika.common.exec.OutputSink;
import org.troika.launcher.mpi.MpiFailureParser;
import org.troika.launcher.spi.RankOutput;
import org.troika.launcher.watchdog.HangWatch;

/**
 * The output pipeline of one launch: what the launcher writes on its stdout and stderr goes to the console byte for
 * byte, and is read once, as bytes, with the one tag parser ({@link RankOutput.TagFormat#match}):
 * <ul>
 *   <li>a rank's bytes (the tag taken off) go to its per-rank file ({@link RankFileWriter});</li>
 *   <li>every rank that printed counts as alive for the hang watchdog, once per read;</li>
 *   <li>the launcher's own lines (no tag at the line's start) go to the {@link MpiFailureParser}: a rank's output
 *       never does, whatever it prints.</li>
 * </ul>
 *
 * <p>Lines: a line starts at the beginning of the stream and after {@code \n} only ({@code \r} is part of a line, as
 * the launchers see it), so nothing a rank prints can start an untagged line. Launchers that tag each read of a rank's
 * output ({@link RankOutput.TagFormat#tagsFragments()}: Open MPI tags every 4 KiB read, also in the middle of a line)
 * are followed fragment by fragment: a tag inside a rank's line (after at least one byte of it) starts a fragment of
 * that tag's rank, so each rank's file gets its own bytes back together. A tag cut by a read is held (at most
 * {@link RankOutput.TagFormat#MAX_LENGTH} bytes) until the next read decides it.
 *
 * <p>Cost: every byte is looked at a bounded number of times, with no regular expression and no decoding; the
 * console gets each read in one write. The launcher's own lines are decoded for the failure report, up to
 * {@value #LAUNCHER_LINE_MAX} bytes each.
 */
final class LaunchOutput {
    /** Bytes of one launcher line the failure report reads (its messages are short; the rest is not read). */
    static final int LAUNCHER_LINE_MAX = 8 * 1024;
    /** Most bytes of an unfinished stderr line held back from the console (so troika's lines do not cut it). */
    static final int CONSOLE_HOLD_MAX = 64 * 1024;

    /** Length of Open MPI's ctime-style date. */
    private static final int DATE = 24;
    private static final int LAUNCHER = -1;
    private static final int OTHER_JOB = -2;

    private final RankOutput ranks;
    private final RankFileWriter files;
    private final Activity watch;
    private final MpiFailureParser failures;
    private final boolean filing;

    /** Who hears that a rank printed ({@link HangWatch#rankOutput}); called at most once per rank and read. */
    @FunctionalInterface
    interface Activity {
        void rankOutput(int rank, long nowMillis);
    }

    /**
     * @param ranks how the launcher tags its ranks' lines, or {@code null} (every line is the launcher's own)
     */
    LaunchOutput(RankOutput ranks, RankFileWriter files, Activity watch, MpiFailureParser failures) {
        this.ranks = ranks;
        this.files = files;
        this.watch = watch;
        this.failures = failures;
        this.filing = ranks != null && ranks.dir() != null;
    }

    /**
     * The sink of the launcher's stdout or stderr, passing it on to {@code console}. An unfinished line is held back
     * (up to {@value #CONSOLE_HOLD_MAX} bytes, until its {@code \n} or {@code \r}) so that troika's own lines never
     * land inside it; everything up to the last line end of a read is written at once.
     */
    OutputSink stream(PrintStream console, boolean fromStderr) {
        return new Stream(console, fromStderr);
    }

    /** One of the launcher's streams. Called by that stream's reader thread only. */
    private final class Stream implements OutputSink {
        private final PrintStream console;
        private final boolean fromStderr;
        private final RankOutput.Tag tag = new RankOutput.Tag();
        private final RankOutput.Tag dated = new RankOutput.Tag();
        private final byte[] carry = new byte[RankOutput.TagFormat.MAX_LENGTH];
        private int carryLen;
        private byte[] work = new byte[0];
        private byte[] pending = new byte[0];
        private int pendingLen;

        private boolean atLineStart = true;
        /** The current line's or fragment's rank, {@link #LAUNCHER} or {@link #OTHER_JOB}. */
        private int cur = LAUNCHER;
        private boolean curErr;
        /** Bytes of the current fragment so far (a tag after none is no fragment boundary). */
        private long fragLen;
        /** The next bytes begin a rank's line (right after its tag at a line start). */
        private boolean lineStart;

        private final byte[] launcherLine = new byte[LAUNCHER_LINE_MAX];
        private int launcherLen;

        private final int[] seen;
        private final int[] active;
        private int activeCount;
        private int stamp;

        Stream(PrintStream console, boolean fromStderr) {
            this.console = console;
            this.fromStderr = fromStderr;
            int n = ranks == null ? 0 : ranks.ranks();
            this.seen = new int[n];
            this.active = new int[n];
        }

        @Override
        public void write(byte[] b, int off, int len) {
            toConsole(b, off, len);
            byte[] buf = b;
            int s = off;
            int e = off + len;
            if (carryLen > 0) {
                if (work.length < carryLen + len) {
                    work = new byte[Math.max(carryLen + len, 2 * work.length)];
                }
                System.arraycopy(carry, 0, work, 0, carryLen);
                System.arraycopy(b, off, work, carryLen, len);
                buf = work;
                s = 0;
                e = carryLen + len;
                carryLen = 0;
            }
            stamp++;
            activeCount = 0;
            if (cur >= 0 && !atLineStart) {
                active(cur); // a fragment that goes on: its rank is still printing
            }
            int stop = parse(buf, s, e, false);
            carryLen = e - stop;
            System.arraycopy(buf, stop, carry, 0, carryLen);
            afterRead();
        }

        @Override
        public void end() {
            if (pendingLen > 0) {
                writeConsole(pending, 0, pendingLen);
                pendingLen = 0;
            }
            if (carryLen > 0) {
                int n = carryLen;
                carryLen = 0;
                stamp++;
                activeCount = 0;
                parse(carry.clone(), 0, n, true);
            }
            if (cur == LAUNCHER && launcherLen > 0) {
                launcherLineEnd();
            }
            afterRead();
        }

        /** The read is handled: the rank files are written out and the ranks that printed are alive. */
        private void afterRead() {
            files.flush();
            if (activeCount > 0) {
                long now = System.currentTimeMillis();
                for (int i = 0; i < activeCount; i++) {
                    watch.rankOutput(active[i], now);
                }
            }
        }

        /**
         * Reads {@code b[i..e)}; returns where it stopped: {@code e}, or the start of a tag the bytes so far cannot
         * decide (the caller holds those bytes for the next read).
         */
        private int parse(byte[] b, int i, int e, boolean eof) {
            while (i < e) {
                if (atLineStart) {
                    atLineStart = false;
                    int m = ranks == null ? 0 : ranks.format().match(b, i, e, tag);
                    if (m == RankOutput.MORE) {
                        if (!eof) {
                            atLineStart = true;
                            return i;
                        }
                        m = 0;
                    }
                    if (m > 0) {
                        fragment();
                        lineStart = true;
                        i += m;
                    } else {
                        cur = LAUNCHER;
                    }
                    continue;
                }
                if (cur == LAUNCHER) {
                    int j = indexOf(b, (byte) '\n', i, e);
                    int end = j < 0 ? e : j + 1;
                    int n = Math.min(end - i, LAUNCHER_LINE_MAX - launcherLen);
                    System.arraycopy(b, i, launcherLine, launcherLen, n);
                    launcherLen += n;
                    if (j >= 0) {
                        launcherLineEnd();
                        atLineStart = true;
                    }
                    i = end;
                    continue;
                }
                int stop = rankBytes(b, i, e, eof);
                if (stop < 0) {
                    return -stop - 1;
                }
                i = stop;
            }
            return e;
        }

        /**
         * Reads a rank's fragment from {@code b[i]} up to its line end, the next fragment's tag or {@code e}; returns
         * where to go on, or {@code -(p + 1)} to hold the bytes from {@code p} for the next read.
         */
        private int rankBytes(byte[] b, int i, int e, boolean eof) {
            RankOutput.TagFormat format = ranks.format();
            if (!format.tagsFragments()) {
                int j = indexOf(b, (byte) '\n', i, e);
                if (j >= 0) {
                    emit(b, i, j + 1);
                    atLineStart = true;
                    return j + 1;
                }
                emit(b, i, e);
                return e;
            }
            for (int k = i; k < e; k++) {
                byte c = b[k];
                if (c == '\n') {
                    emit(b, i, k + 1);
                    atLineStart = true;
                    return k + 1;
                }
                if (c != '[') {
                    continue;
                }
                int m = format.match(b, k, e, tag);
                int start = k;
                if (m != 0 && format == RankOutput.TagFormat.ORTE && k - DATE >= i) {
                    // Open MPI 4 puts the date before the bracket: the fragment's tag starts there
                    int d = format.match(b, k - DATE, e, dated);
                    if (m > 0 ? d == m + DATE : d == RankOutput.MORE) {
                        start = k - DATE;
                    }
                }
                if (m == 0 || fragLen + (start - i) == 0) {
                    continue; // no tag, or a tag right after a tag: the launchers make no empty fragments
                }
                if (m == RankOutput.MORE) {
                    if (eof) {
                        continue;
                    }
                    emit(b, i, start);
                    return -start - 1;
                }
                emit(b, i, start);
                fragment();
                lineStart = false;
                return k + m;
            }
            if (!eof && format == RankOutput.TagFormat.ORTE) {
                // a date at the end may be the start of the next fragment's tag
                for (int q = Math.max(i, e - RankOutput.TagFormat.MAX_LENGTH); q < e; q++) {
                    if (b[q] >= 'A' && b[q] <= 'Z' && (fragLen + (q - i)) > 0
                            && format.match(b, q, e, tag) == RankOutput.MORE) {
                        emit(b, i, q);
                        return -q - 1;
                    }
                }
            }
            emit(b, i, e);
            return e;
        }

        /** A tag was read into {@link #tag}: a fragment of its rank starts. */
        private void fragment() {
            if (ranks.inJob(tag)) {
                cur = tag.rank;
                active(cur);
            } else {
                cur = OTHER_JOB; // spawned ranks or numbers beyond the job: theirs, never the launcher's
            }
            curErr = RankOutput.stderr(tag, fromStderr);
            fragLen = 0;
        }

        /** Bytes of the current rank fragment. */
        private void emit(byte[] b, int from, int to) {
            int n = to - from;
            if (n <= 0) {
                return;
            }
            fragLen += n;
            if (cur < 0) {
                return;
            }
            if (lineStart) {
                lineStart = false;
                failures.acceptRankLineStart(b, from, n);
            }
            if (filing) {
                files.write(cur, curErr, b, from, n);
            }
        }

        private void active(int rank) {
            if (seen[rank] != stamp) {
                seen[rank] = stamp;
                active[activeCount++] = rank;
            }
        }

        private void launcherLineEnd() {
            String line = new String(launcherLine, 0, launcherLen, StandardCharsets.UTF_8);
            launcherLen = 0;
            failures.accept(line);
        }

        /** Passes bytes on to the console as read, whole lines at a time (see {@link LaunchOutput#stream}). */
        private void toConsole(byte[] b, int off, int len) {
            int last = -1;
            for (int k = off + len - 1; k >= off; k--) {
                if (b[k] == '\n' || b[k] == '\r') {
                    last = k;
                    break;
                }
            }
            if (last < 0 && pendingLen + len <= CONSOLE_HOLD_MAX) {
                hold(b, off, len);
                return;
            }
            int upTo = last < 0 ? off + len : last + 1;
            synchronized (console) {
                if (pendingLen > 0) {
                    writeChunked(console, pending, 0, pendingLen);
                    pendingLen = 0;
                }
                writeChunked(console, b, off, upTo - off);
                console.flush();
            }
            hold(b, upTo, off + len - upTo);
        }

        private void hold(byte[] b, int off, int len) {
            if (len <= 0) {
                return;
            }
            if (pending.length < pendingLen + len) {
                pending = Arrays.copyOf(pending, Math.max(pendingLen + len, 2 * pending.length));
            }
            System.arraycopy(b, off, pending, pendingLen, len);
            pendingLen += len;
        }

        private void writeConsole(byte[] b, int off, int len) {
            synchronized (console) {
                writeChunked(console, b, off, len);
                console.flush();
            }
        }
    }

    /** Bytes per console write at most: the JDK writes a file through a native buffer, malloc'd above 8 KiB. */
    static final int CONSOLE_CHUNK = 8 * 1024;

    /** {@code out.write(b, off, len)} in pieces of at most {@link #CONSOLE_CHUNK} bytes (no malloc per write). */
    private static void writeChunked(PrintStream out, byte[] b, int off, int len) {
        for (int k = off, end = off + len; k < end; k += CONSOLE_CHUNK) {
            out.write(b, k, Math.min(CONSOLE_CHUNK, end - k));
        }
    }

    private static int indexOf(byte[] b, byte v, int from, int to) {
        for (int k = from; k < to; k++) {
            if (b[k] == v) {
                return k;
            }
        }
        return -1;
    }
}
