package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.testkit.Requires;

/** A real MPI program nobody here wrote: Debian's NetPIPE ({@code NPopenmpi}, package netpipe-openmpi), 2 ranks. */
@Tag("integration")
class RunNetpipeTest {
    @TempDir
    Path tmp;

    @Test
    void netpipePingPongRunsThroughTroika() throws Exception {
        Requires.command("NPopenmpi");
        Path results = tmp.resolve("np.out");
        // -u 1024: messages up to 1 KiB; -n 20: fixed repeat count, so the run takes about a second
        RunSupport.Result r = RunSupport.run(tmp, "-np", "2", "-H", "localhost:2",
                "NPopenmpi", "-u", "1024", "-n", "20", "-o", results.toString());
        assertEquals(0, r.exitCode(), r.toString());
        List<String> rows = Files.readAllLines(results);
        assertTrue(rows.size() >= 10, "NetPIPE wrote " + rows.size() + " rows: " + rows);
        String[] last = rows.get(rows.size() - 1).trim().split("\\s+");
        assertEquals(3, last.length, "bytes, Mbps, seconds: " + rows.get(rows.size() - 1));
        assertTrue(Integer.parseInt(last[0]) >= 1024, "the largest message reaches the -u limit: " + last[0]);
        assertTrue(Double.parseDouble(last[1]) > 0, "a positive throughput: " + last[1]);
        assertTrue(r.out().contains("<stdout>:"), "NetPIPE's progress is tagged by mpirun: " + r);
    }
}
