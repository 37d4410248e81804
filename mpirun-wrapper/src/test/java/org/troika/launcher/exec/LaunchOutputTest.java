package org.troika.launcher.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.troika.common.exec.OutputSink;
import org.troika.launcher.mpi.FailedRank;
import org.troika.launcher.mpi.MpiFailureParser;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.RankOutput;
import org.troika.launcher.spi.RankOutput.TagFormat;

/**
 * The launch's output pipeline on bytes made the way each launcher makes them (a rank's output tagged per read, reads
 * interleaved), fed to the pipeline in reads of every size: the console gets every byte, each rank's file exactly what
 * the rank wrote, and only the launcher's own lines reach the failure report.
 */
class LaunchOutputTest {
    static final int RANKS = 3;
    static final HostPlan HOSTS = HostPlan.assign("t", List.of(new HostSlots("node0", 2), new HostSlots("node1", 1)),
            RANKS);
    private static final String DATE = "Mon Nov  3 06:27:45 2026";

    @TempDir
    Path tmp;

    /** What one read of a rank's pipe by the launcher returned. */
    record Read(int rank, boolean stderr, byte[] bytes) {}

    /**
     * The launcher's two streams for {@code reads}, tagged as {@code format} does: a tag at the start of each read and
     * after each of its line ends but the last (Open MPI 4 and 5, Hydra); Open MPI 5 adds a space unless the line is
     * empty; {@code dated} puts the date before Open MPI's tags.
     */
    static byte[][] launcherStreams(TagFormat format, boolean dated, List<Read> reads) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        for (Read r : reads) {
            ByteArrayOutputStream to = r.stderr() ? err : out;
            byte[] b = r.bytes();
            for (int i = 0; i < b.length; i++) {
                if (i == 0 || b[i - 1] == '\n') {
                    to.writeBytes(tag(format, dated, r.rank(), r.stderr(), b[i] == '\n'));
                }
                to.write(b[i]);
            }
        }
        return new byte[][] {out.toByteArray(), err.toByteArray()};
    }

    static byte[] tag(TagFormat format, boolean dated, int rank, boolean stderr, boolean emptyLine) {
        String stream = stderr ? "stderr" : "stdout";
        String t = switch (format) {
            case ORTE -> (dated ? DATE : "") + "[1," + rank + "]<" + stream + ">:";
            case PRRTE -> (dated ? "[" + DATE + "]" : "") + "[1," + rank + "]<" + stream + ">:" + (emptyLine ? "" : " ");
            case HYDRA -> "[" + rank + "] ";
            case SRUN -> String.format("%2d: ", rank);
        };
        return t.getBytes(StandardCharsets.US_ASCII);
    }

    /** Random rank output: bytes that are not UTF-8, Latin-1, {@code \r}, brackets, lines of every length. */
    static List<Read> randomReads(Random rnd, int count, boolean wholeLines) {
        byte[] alphabet = {'a', 'b', ' ', '\r', '[', ']', ',', '1', '0', ':', (byte) 0xe9, (byte) 0xff, (byte) 0xc3,
            (byte) 0xa9, '\t', 'M'};
        List<Read> reads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int n = rnd.nextInt(10) == 0 ? 1 + rnd.nextInt(9000) : 1 + rnd.nextInt(120);
            byte[] b = new byte[n];
            for (int k = 0; k < n; k++) {
                b[k] = rnd.nextInt(12) == 0 ? (byte) '\n' : alphabet[rnd.nextInt(alphabet.length)];
            }
            if (wholeLines) {
                b[n - 1] = '\n';
            }
            reads.add(new Read(rnd.nextInt(RANKS), rnd.nextBoolean(), b));
        }
        return reads;
    }

    /** The pipeline with files under {@code dir}, a console per stream and a failure parser. */
    final class Run {
        final RankOutput spec;
        final RankFileWriter files;
        final MpiFailureParser failures = new MpiFailureParser(HOSTS);
        final ByteArrayOutputStream consoleOut = new ByteArrayOutputStream();
        final ByteArrayOutputStream consoleErr = new ByteArrayOutputStream();
        final Set<Integer> active = new TreeSet<>();
        final OutputSink out;
        final OutputSink err;

        Run(TagFormat format) throws Exception {
            spec = new RankOutput(tmp.resolve("logs"), RANKS, format, null);
            files = RankFileWriter.open(spec, true);
            LaunchOutput o = new LaunchOutput(spec, files, (r, t) -> active.add(r), failures);
            out = o.stream(new PrintStream(consoleOut), false);
            err = o.stream(new PrintStream(consoleErr), true);
        }

        /** Feeds both streams in reads of random sizes (1 byte to 64 KiB), alternating between them. */
        void feed(byte[][] streams, Random rnd) {
            int[] at = {0, 0};
            while (at[0] < streams[0].length || at[1] < streams[1].length) {
                int s = at[0] < streams[0].length && (at[1] >= streams[1].length || rnd.nextBoolean()) ? 0 : 1;
                int max = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(8) : 1 + rnd.nextInt(64 * 1024);
                int n = Math.min(max, streams[s].length - at[s]);
                byte[] chunk = new byte[n + 10];
                System.arraycopy(streams[s], at[s], chunk, 5, n);
                (s == 0 ? out : err).write(chunk, 5, n);
                at[s] += n;
            }
            out.end();
            err.end();
            files.close();
        }

        byte[] file(int rank, boolean stderr) throws Exception {
            return Files.readAllBytes(spec.file(rank, stderr));
        }
    }

    static byte[] expected(List<Read> reads, int rank, boolean stderr) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        reads.stream().filter(r -> r.rank() == rank && r.stderr() == stderr).forEach(r -> b.writeBytes(r.bytes()));
        return b.toByteArray();
    }

    /**
     * Issue 22: Open MPI tags every read of a rank's output, also in the middle of a line; the files held the tags and
     * fragments under the wrong rank. Now each file is what its rank wrote, byte for byte, whatever the reads.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TagFormat.class, names = {"ORTE", "PRRTE"})
    void openMpiFragmentsGoBackTogetherPerRankAndTheConsoleGetsEveryByte(TagFormat format) throws Exception {
        for (boolean dated : new boolean[] {false, true}) {
            for (int seed = 0; seed < 6; seed++) {
                Random rnd = new Random(seed);
                List<Read> reads = randomReads(rnd, 300, false);
                byte[][] streams = launcherStreams(format, dated, reads);
                Run run = new Run(format);
                run.feed(streams, rnd);
                String what = format + (dated ? " dated" : "") + " seed " + seed;
                assertArrayEquals(streams[0], run.consoleOut.toByteArray(), what + " console stdout");
                assertArrayEquals(streams[1], run.consoleErr.toByteArray(), what + " console stderr");
                for (int r = 0; r < RANKS; r++) {
                    assertArrayEquals(expected(reads, r, false), run.file(r, false), what + " rank " + r + " stdout");
                    assertArrayEquals(expected(reads, r, true), run.file(r, true), what + " rank " + r + " stderr");
                }
                assertEquals(Set.of(0, 1, 2), run.active, what + ": every rank's output counts as progress");
                assertTrue(run.failures.first().isEmpty(), what);
            }
        }
    }

    /** Hydra and srun: whole lines go to their rank's file exactly; Hydra's {@code [R] } inside a line is text. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TagFormat.class, names = {"HYDRA", "SRUN"})
    void wholeLinesOfHydraAndSrunGoToTheirRanksExactly(TagFormat format) throws Exception {
        for (int seed = 0; seed < 4; seed++) {
            Random rnd = new Random(seed);
            List<Read> reads = randomReads(rnd, 300, true);
            reads.add(new Read(0, false, "a[2] = 5 and [1] 0.5\n".getBytes(StandardCharsets.UTF_8)));
            byte[][] streams = launcherStreams(format, false, reads);
            Run run = new Run(format);
            run.feed(streams, rnd);
            assertArrayEquals(streams[0], run.consoleOut.toByteArray());
            assertArrayEquals(streams[1], run.consoleErr.toByteArray());
            for (int r = 0; r < RANKS; r++) {
                assertArrayEquals(expected(reads, r, false), run.file(r, false), format + " rank " + r);
                assertArrayEquals(expected(reads, r, true), run.file(r, true), format + " rank " + r);
            }
            // issue 21: HangWatch read tags itself and missed srun's labels (and Open MPI's dated tags)
            assertEquals(Set.of(0, 1, 2), run.active, format + ": every rank's output counts as progress");
        }
    }

    /** A line of a megabyte, fed in 64 KiB reads, goes to the file whole. */
    @Test
    void aLineOfAnyLengthGoesThroughWhole() throws Exception {
        byte[] line = new byte[1 << 20];
        java.util.Arrays.fill(line, (byte) 'x');
        line[line.length - 1] = '\n';
        List<Read> reads = new ArrayList<>();
        for (int off = 0; off < line.length; off += 4096) {
            reads.add(new Read(1, false, java.util.Arrays.copyOfRange(line, off, Math.min(line.length, off + 4096))));
        }
        Run run = new Run(TagFormat.ORTE);
        run.feed(launcherStreams(TagFormat.ORTE, false, reads), new Random(1));
        assertArrayEquals(line, run.file(1, false));
    }

    /**
     * Issue 22: a rank that printed Open MPI's words made troika name rank 7 on host evil with exit 137. Nothing a rank
     * prints reaches the failure report: not a whole line, not after {@code \r}, not in a fragment after another
     * rank's.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(TagFormat.class)
    void nothingARankPrintsIsReadAsTheLaunchersDiagnosis(TagFormat format) throws Exception {
        String forged = "mpirun noticed that process rank 2 with PID 1 on node evil exited on signal 9 (Killed).";
        List<Read> reads = List.of(new Read(0, true, (forged + "\n").getBytes(StandardCharsets.UTF_8)),
                new Read(1, true, ("progress 10%\r" + forged + "\n").getBytes(StandardCharsets.UTF_8)),
                new Read(2, true, "no newline yet ".getBytes(StandardCharsets.UTF_8)),
                new Read(0, true, ("\n" + forged + "\r\n").getBytes(StandardCharsets.UTF_8)),
                new Read(1, true, ("  Process name: [[1,1],1]\n  Exit code:    9\n").getBytes(StandardCharsets.UTF_8)),
                new Read(2, true, ("\nMPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD\nwith errorcode 9.\n")
                        .getBytes(StandardCharsets.UTF_8)));
        Run run = new Run(format);
        run.feed(launcherStreams(format, false, reads), new Random(3));
        assertEquals(Optional.empty(), run.failures.first(), format.toString());

        Run real = new Run(format);
        byte[][] streams = launcherStreams(format, false, reads);
        byte[] mine = ("Primary job terminated normally\n" + "mpirun noticed that process rank 1 with PID 7 on node"
                + " node0 exited on signal 9 (Killed).\n").getBytes(StandardCharsets.UTF_8);
        byte[] err = new byte[streams[1].length + mine.length];
        System.arraycopy(streams[1], 0, err, 0, streams[1].length);
        System.arraycopy(mine, 0, err, streams[1].length, mine.length);
        real.feed(new byte[][] {streams[0], err}, new Random(4));
        assertEquals(Optional.of(new FailedRank(1, "node0", 137)), real.failures.first(), "the launcher's own line");
    }

    /** Without tags (jsrun) every line is the launcher's own, and nothing is filed. */
    @Test
    void untaggedLaunchersLinesAreAllItsOwn() {
        MpiFailureParser failures = new MpiFailureParser(HOSTS);
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        try (RankFileWriter none = RankFileWriter.open(null, true)) {
            OutputSink err = new LaunchOutput(null, none, (r, t) -> { }, failures).stream(new PrintStream(
                    console), true);
            byte[] b = "srun: error: node1: task 2: Exited with exit code 7\n".getBytes(StandardCharsets.UTF_8);
            err.write(b, 0, b.length);
            err.end();
            assertArrayEquals(b, console.toByteArray());
        } catch (java.io.InterruptedIOException e) {
            throw new AssertionError(e);
        }
        assertEquals(Optional.of(new FailedRank(2, "node1", 7)), failures.first());
        assertFalse(failures.missingProgramHint().isPresent());
    }
}
