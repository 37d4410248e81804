package org.troika.launcher.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The progress line (pure) and when it is printed (a fake clock). */
class StartProgressTest {
    private static StartProgress.Snapshot snapshot(int up, int total, String slowest, int daemons, int started,
            String slowestDaemon) {
        return new StartProgress.Snapshot(new StartProgress.Hosts(total, up, slowest), daemons, started, slowestDaemon);
    }

    @Test
    void theLineSaysHostsDaemonsAndTheSlowestHost() {
        assertEquals("troika: starting (12 s): hosts 812/1000 registered, daemons 0/1000 started, slowest: node0413",
                StartProgress.line("troika", snapshot(812, 1000, "node0413", 1000, 0, null), 12_400));
        assertEquals("troika: starting (30 s): hosts 1000/1000 registered, daemons 640/1000 started, slowest: node0007",
                StartProgress.line("troika", snapshot(1000, 1000, null, 1000, 640, "node0007"), 30_000));
        // plain ssh starts the daemons: only the services are counted
        assertEquals("troika: starting (2 s): hosts 3/4 registered, slowest: n4",
                StartProgress.line("troika", snapshot(3, 4, "n4", 0, 0, null), 2_000));
    }

    @Test
    void aStartIsDoneOnceEveryServiceIsUpAndEveryDaemonStarted() {
        assertFalse(snapshot(3, 4, "n4", 0, 0, null).done());
        assertFalse(snapshot(4, 4, null, 4, 3, "n2").done());
        assertTrue(snapshot(4, 4, null, 4, 4, null).done());
        assertTrue(snapshot(4, 4, null, 0, 0, null).done());
    }

    private final AtomicLong now = new AtomicLong(1_000_000);
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final AtomicReference<StartProgress.Snapshot> state =
            new AtomicReference<>(snapshot(0, 10, "h1", 10, 0, null));

    private StartProgressReporter reporter(boolean terminal) {
        return new StartProgressReporter("troika", now::get, terminal, state::get,
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
    }

    private String printed() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** Ticks every 100 ms of fake time up to {@code millis}. */
    private void runFor(StartProgressReporter r, long millis) {
        for (long t = 0; t < millis; t += 100) {
            now.addAndGet(100);
            r.tick();
        }
    }

    @Test
    void aQuickStartPrintsNothing() {
        StartProgressReporter r = reporter(false);
        runFor(r, 1_900);
        state.set(snapshot(10, 10, null, 10, 10, null));
        runFor(r, 20_000);
        r.finish();
        assertEquals("", printed());
    }

    @Test
    void inALogASlowStartPrintsALineAfterTwoSecondsThenEveryTenSeconds() {
        StartProgressReporter r = reporter(false);
        runFor(r, 1_900);
        assertEquals("", printed());
        runFor(r, 100);
        assertEquals("troika: starting (2 s): hosts 0/10 registered, daemons 0/10 started, slowest: h1\n", printed());
        state.set(snapshot(7, 10, "h8", 10, 0, null));
        runFor(r, 9_900);
        assertEquals(1, printed().lines().count(), printed());
        runFor(r, 100);
        assertEquals(2, printed().lines().count(), printed());
        assertTrue(printed().endsWith("troika: starting (12 s): hosts 7/10 registered, daemons 0/10 started, slowest:"
                + " h8\n"), printed());
        runFor(r, 10_000);
        assertEquals(3, printed().lines().count(), printed());
        state.set(snapshot(10, 10, null, 10, 10, null)); // done: nothing more, and no line to erase in a log
        runFor(r, 30_000);
        r.finish();
        assertEquals(3, printed().lines().count(), printed());
        assertFalse(printed().contains("\r"), printed());
    }

    @Test
    void onATerminalTheLineUpdatesInPlaceAtMostOnceASecondAndIsErasedWhenDone() {
        StartProgressReporter r = reporter(true);
        runFor(r, 5_000);
        // at 2, 3, 4 and 5 s: four updates of one line, never a newline
        assertEquals(4, printed().split("\r", -1).length - 1, printed());
        assertFalse(printed().contains("\n"), printed());
        assertTrue(printed().endsWith("troika: starting (5 s): hosts 0/10 registered, daemons 0/10 started, slowest: h1"
                + "\033[K"), printed());
        state.set(snapshot(10, 10, null, 10, 10, null));
        runFor(r, 1_000);
        assertTrue(printed().endsWith("\r\033[K"), "the finished line was not erased: " + printed());
        int length = printed().length();
        runFor(r, 10_000);
        r.finish();
        assertEquals(length, printed().length(), "printed after the start was done");
    }

    @Test
    void finishErasesALineInPlaceAndStopsTheReporter() {
        StartProgressReporter r = reporter(true);
        runFor(r, 2_000);
        r.finish();
        assertTrue(printed().endsWith("\r\033[K"), printed());
        int length = printed().length();
        runFor(r, 5_000);
        assertEquals(length, printed().length());
    }

    @Test
    void stderrIsATerminalOnlyOnATtyAndNotForADumbTerminal() {
        assertTrue(StartProgressReporter.isTerminal("/dev/pts/3", "xterm-256color"));
        assertTrue(StartProgressReporter.isTerminal("/dev/tty1", null));
        assertFalse(StartProgressReporter.isTerminal("/dev/pts/3", "dumb"));
        assertFalse(StartProgressReporter.isTerminal("pipe:[12345]", "xterm"));
        assertFalse(StartProgressReporter.isTerminal("/var/log/slurm-42.out", "xterm"));
        assertFalse(StartProgressReporter.isTerminal(null, "xterm"));
    }
}
