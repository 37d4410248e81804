package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.troika.testkit.MpiJob.Launcher;

/**
 * {@code --output-filename DIR} on every MPI under test: troika writes DIR/rank.N.stdout and DIR/rank.N.stderr for
 * every rank from the tagged output (Open MPI 5.0.7's own option loses stderr), the console keeps the tagged lines,
 * and timestamps ({@code --prefix-output-with-timestamp}) stay out of the files.
 */
@Tag("integration")
class RunOutputFilenameTest {
    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @EnumSource(Launcher.class)
    void eachRankGetsItsStdoutAndStderrInItsOwnFiles(Launcher mpi) throws Exception {
        Path dir = tmp.resolve("logs");
        RunSupport.Result r = RunSupport.run(mpi, tmp, "-np", "4", "-H", "localhost:4", "--output-filename",
                dir.toString(), "--prefix-output-with-timestamp", "sh", "-c",
                "echo \"out-$TROIKA_RANK\"; echo \"err-$TROIKA_RANK\" >&2; echo \"out2-$TROIKA_RANK\"");
        assertEquals(0, r.exitCode(), r.toString());
        List<String> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertEquals(List.of("rank.0.stderr", "rank.0.stdout", "rank.1.stderr", "rank.1.stdout", "rank.2.stderr",
                "rank.2.stdout", "rank.3.stderr", "rank.3.stdout"), files, r.toString());
        for (int rank = 0; rank < 4; rank++) {
            assertEquals("out-" + rank + "\nout2-" + rank + "\n", Files.readString(dir.resolve("rank." + rank + ".stdout")),
                    "rank " + rank + " stdout; " + r);
            assertEquals("err-" + rank + "\n", Files.readString(dir.resolve("rank." + rank + ".stderr")),
                    "rank " + rank + " stderr; " + r);
        }
        String tag = RunSupport.tag(mpi, 0, "stdout");
        assertTrue(r.out().lines().anyMatch(l -> l.contains(tag + "out-0")), "output still reaches the console: " + r);
        if (mpi.isOpenMpi()) {
            // the console lines carry the timestamp (Hydra has none: troika warns instead)
            assertTrue(r.out().lines().anyMatch(l -> l.matches("\\[?\\w{3} \\w{3} +\\d{1,2} \\d\\d:\\d\\d:\\d\\d \\d{4}\\]?"
                    + java.util.regex.Pattern.quote(tag) + "out-0")), r.toString());
        } else {
            assertTrue(r.err().contains("cannot timestamp"), r.toString());
        }
    }

    /**
     * Issue 21: an elastic job wrote no per-rank files (the generation's plan lost its rank output when the worker key
     * was added to it). The first generation empties files that exist.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Launcher.class)
    void anElasticJobWritesTheSameFiles(Launcher mpi) throws Exception {
        Path dir = tmp.resolve("logs");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("rank.0.stdout"), "from an earlier run\n");
        Path discover = tmp.resolve("discover.sh");
        Files.writeString(discover, "#!/bin/sh\necho localhost:2\n");
        Files.setPosixFilePermissions(discover, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        RunSupport.Result r = RunSupport.run(mpi, tmp, "--host-discovery-script", discover.toString(), "--min-np", "2",
                "--max-np", "2", "--output-filename", dir.toString(), "sh", "-c",
                "echo \"out-$TROIKA_RANK\"; echo \"err-$TROIKA_RANK\" >&2");
        assertEquals(0, r.exitCode(), r.toString());
        for (int rank = 0; rank < 2; rank++) {
            assertEquals("out-" + rank + "\n", Files.readString(dir.resolve("rank." + rank + ".stdout")),
                    "rank " + rank + " stdout; " + r);
            assertEquals("err-" + rank + "\n", Files.readString(dir.resolve("rank." + rank + ".stderr")),
                    "rank " + rank + " stderr; " + r);
        }
    }
}
