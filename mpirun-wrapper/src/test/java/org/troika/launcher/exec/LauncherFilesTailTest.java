package org.troika.launcher.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.launcher.mpi.MpiFailureParser;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.RankOutput;
import org.troika.launcher.spi.RankOutput.TagFormat;

/**
 * Hydra's own per-rank files followed into DIR: everything the launcher wrote is delivered once it ended, also when
 * the launch ends while the follower is in the middle of reading (a file channel closes itself when its reader is
 * interrupted: a quiet machine's CI lost all but the first 64 KiB of a 70,010-byte stderr that way).
 */
class LauncherFilesTailTest {
    @TempDir
    Path tmp;

    @Test
    void theLaunchEndingMidReadLosesNoByte() throws Exception {
        for (int round = 0; round < 5; round++) {
            Path hydra = Files.createDirectories(tmp.resolve("hydra" + round));
            RankOutput spec = new RankOutput(tmp.resolve("logs" + round), 2, TagFormat.HYDRA, hydra);
            byte[] big = text(new Random(round), 8 << 20);
            byte[] small = "one line\nand an unfinished one".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            Files.write(spec.launcherFile(0, true), big);
            Files.write(spec.launcherFile(1, false), small);
            RankFileWriter files = RankFileWriter.open(spec, true);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            CountDownLatch reading = new CountDownLatch(1);
            HostPlan hosts = HostPlan.assign("t", List.of(new HostSlots("node0", 2)), 2);
            LauncherFilesTail tail = new LauncherFilesTail(spec, files, (rank, now) -> reading.countDown(),
                    new MpiFailureParser(hosts), new PrintStream(out), new PrintStream(err));
            tail.start();
            assertTrue(reading.await(60, TimeUnit.SECONDS), "the follower read nothing");
            tail.finish(); // the launcher ended now, while the 8 MiB file is being read
            files.close();
            assertArrayEquals(big, Files.readAllBytes(spec.dir().resolve(RankOutput.fileName(0, true))),
                    "round " + round + ": rank 0's stderr file");
            assertArrayEquals(small, Files.readAllBytes(spec.dir().resolve(RankOutput.fileName(1, false))),
                    "round " + round + ": rank 1's stdout file");
            assertEquals(lines(big) * "[0] ".length() + big.length, err.size(), "round " + round + ": console bytes");
            assertEquals("[1] one line\n[1] and an unfinished one", out.toString(
                    java.nio.charset.StandardCharsets.US_ASCII));
        }
    }

    /**
     * A Ctrl-C interrupts the thread that waits for the launch while the last bytes are read: the reading goes on to
     * the files' ends (before, the caller stopped waiting and the files were judged, and closed, half read).
     */
    @Test
    void anInterruptDuringTheLastReadingLosesNoByte() throws Exception {
        Path hydra = Files.createDirectories(tmp.resolve("hydra"));
        RankOutput spec = new RankOutput(tmp.resolve("logs"), 2, TagFormat.HYDRA, hydra);
        byte[] big = text(new Random(7), 8 << 20);
        Files.write(spec.launcherFile(0, true), big);
        RankFileWriter files = RankFileWriter.open(spec, true);
        CountDownLatch reading = new CountDownLatch(1);
        HostPlan hosts = HostPlan.assign("t", List.of(new HostSlots("node0", 2)), 2);
        LauncherFilesTail tail = new LauncherFilesTail(spec, files, (rank, now) -> reading.countDown(),
                new MpiFailureParser(hosts), new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(new ByteArrayOutputStream()));
        tail.start();
        assertTrue(reading.await(60, TimeUnit.SECONDS), "the follower read nothing");
        byte[] late = "written just before the launcher ended\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        Files.write(spec.launcherFile(1, false), late);
        Thread.currentThread().interrupt(); // the Ctrl-C, while the 8 MiB file is being read
        boolean thrown = false;
        try {
            tail.finish();
        } catch (InterruptedException e) {
            thrown = true;
        }
        files.close();
        assertTrue(thrown, "the interrupt is passed on");
        assertArrayEquals(big, Files.readAllBytes(spec.dir().resolve(RankOutput.fileName(0, true))),
                "rank 0's stderr file");
        assertArrayEquals(late, Files.readAllBytes(spec.dir().resolve(RankOutput.fileName(1, false))),
                "rank 1's stdout file");
    }

    private static byte[] text(Random rnd, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = rnd.nextInt(80) == 0 ? (byte) '\n' : (byte) ('a' + rnd.nextInt(26));
        }
        b[n - 1] = '\n';
        return b;
    }

    /** Line starts in {@code b}: each gets the console tag. */
    private static int lines(byte[] b) {
        int starts = 0;
        for (int i = 0; i < b.length; i++) {
            if (i == 0 || b[i - 1] == '\n') {
                starts++;
            }
        }
        return starts;
    }
}
