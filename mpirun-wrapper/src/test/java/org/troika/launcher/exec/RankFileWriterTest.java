package org.troika.launcher.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.common.exec.LaunchPlan;
import org.troika.launcher.spi.BackendPlan;
import org.troika.launcher.spi.RankOutput;
import org.troika.launcher.spi.RankOutput.TagFormat;

/** troika's own per-rank output files ({@code --output-filename}), from a launcher's tagged output. */
class RankFileWriterTest {
    @TempDir
    Path tmp;

    @Test
    void everyRankGetsBothFilesEvenWhenSilentAndOldContentIsDropped() throws Exception {
        RankOutput spec = new RankOutput(tmp.resolve("logs"), 3, TagFormat.PRRTE, null);
        Files.createDirectories(spec.dir());
        Files.writeString(spec.file(2, true), "from an earlier run\n");
        try (RankFileWriter w = RankFileWriter.open(spec, true)) {
            Pipeline p = new Pipeline(spec, w);
            p.out("[1,0]<stdout>: a\n");
            p.err("[1,0]<stderr>: b\n");
            p.err("launcher's own line\n");
            p.out("[1,0]<stdout>: c"); // the last bytes of a stream may lack their terminator
            p.end();
        }
        assertEquals("a\nc", Files.readString(spec.file(0, false)));
        assertEquals("b\n", Files.readString(spec.file(0, true)));
        for (int rank = 1; rank < 3; rank++) {
            assertEquals("", Files.readString(spec.file(rank, false)));
            assertEquals("", Files.readString(spec.file(rank, true)));
        }
    }

    @Test
    void laterGenerationsAppendAndManyRanksStayWithinTheOpenFileLimit() throws Exception {
        int ranks = RankFileWriter.OPEN_LIMIT * 3;
        RankOutput spec = new RankOutput(tmp, ranks, TagFormat.HYDRA, null);
        try (RankFileWriter w = RankFileWriter.open(spec, true)) {
            Pipeline p = new Pipeline(spec, w);
            for (int round = 0; round < 2; round++) {
                for (int rank = 0; rank < ranks; rank++) {
                    p.write(rank % 2 == 1, "[" + rank + "] line " + round + "\n");
                }
            }
            p.end();
        }
        try (RankFileWriter w = RankFileWriter.open(spec, false)) {
            Pipeline p = new Pipeline(spec, w);
            p.err("[5] next generation\n");
            p.end();
        }
        assertEquals("line 0\nline 1\n", Files.readString(spec.file(ranks - 2, false)));
        assertEquals("line 0\nline 1\nnext generation\n", Files.readString(spec.file(5, true)));
        assertEquals("", Files.readString(spec.file(5, false)));
    }

    @Test
    void theJobsOutputReachesTheConsoleAndTheFiles() throws Exception {
        // sh stands in for Open MPI 5's mpirun: tagged lines on both streams, plus one of its own
        String script = "printf '[1,0]<stdout>: out 0\\n[1,1]<stdout>: out 1\\n'; "
                + "printf '[1,1]<stderr>: err 1\\n[prterun] a launcher message\\n' >&2";
        RankOutput spec = new RankOutput(tmp.resolve("out"), 2, TagFormat.PRRTE, null);
        BackendPlan plan = new BackendPlan(new LaunchPlan(List.of("sh", "-c", script), Map.of("PATH", "/usr/bin:/bin")),
                Map.of(), List.of(), spec);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new JobExecutor(SupervisedLaunch.Spec.of(plan, null, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)), null).run();
        assertEquals(0, code);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("[1,1]<stdout>: out 1\n"), "console keeps the tags");
        assertEquals("out 0\n", Files.readString(spec.file(0, false)));
        assertEquals("out 1\n", Files.readString(spec.file(1, false)));
        assertEquals("err 1\n", Files.readString(spec.file(1, true)));
        assertEquals("", Files.readString(spec.file(0, true)));
    }

    /** The launch's output pipeline over a writer, its console discarded. */
    static final class Pipeline {
        private final org.troika.common.exec.OutputSink out;
        private final org.troika.common.exec.OutputSink err;

        Pipeline(RankOutput spec, RankFileWriter w) {
            LaunchOutput o = new LaunchOutput(spec, w, (r, t) -> { },
                    new org.troika.launcher.mpi.MpiFailureParser(null));
            PrintStream console = new PrintStream(java.io.OutputStream.nullOutputStream());
            out = o.stream(console, false);
            err = o.stream(console, true);
        }

        void write(boolean stderr, String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            (stderr ? err : out).write(b, 0, b.length);
        }

        void out(String s) {
            write(false, s);
        }

        void err(String s) {
            write(true, s);
        }

        void end() {
            out.end();
            err.end();
        }
    }
}
