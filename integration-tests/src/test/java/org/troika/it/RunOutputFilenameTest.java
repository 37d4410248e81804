package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --output-filename DIR}: per-rank files (Open MPI 4.x layout DIR/1/rank.N/stdout and stderr) and console output. */
@Tag("integration")
class RunOutputFilenameTest {
    @TempDir
    Path tmp;

    @Test
    void eachRankGetsStdoutAndStderrFiles() throws Exception {
        Path dir = tmp.resolve("logs");
        RunSupport.Result r = RunSupport.run(tmp, "-np", "2", "-H", "localhost:2", "--output-filename", dir.toString(),
                "sh", "-c", "echo \"out-$TROIKA_RANK\"; echo \"err-$TROIKA_RANK\" >&2");
        assertEquals(0, r.exitCode(), r.toString());
        for (int rank = 0; rank < 2; rank++) {
            Path rankDir = dir.resolve("1").resolve("rank." + rank);
            // with --tag-output (troika's default) Open MPI 4.1 writes the tag into the files too
            String stdout = Files.readString(rankDir.resolve("stdout"));
            String stderr = Files.readString(rankDir.resolve("stderr"));
            assertTrue(stdout.matches("(\\[1," + rank + "\\]<stdout>:)?out-" + rank + "\n"), rankDir + ": " + stdout);
            assertTrue(stderr.matches("(\\[1," + rank + "\\]<stderr>:)?err-" + rank + "\n"), rankDir + ": " + stderr);
        }
        assertTrue(r.out().contains("[1,0]<stdout>:out-0"), "output still reaches the console: " + r);
    }
}
