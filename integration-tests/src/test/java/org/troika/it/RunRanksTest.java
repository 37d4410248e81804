package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code troika run} with several ranks on localhost: every rank runs once, output tagged by mpirun, passed through. */
@Tag("integration")
class RunRanksTest {
    @TempDir
    Path tmp;

    @Test
    void fourRanksEachPrintTheirRankWithMpirunsTag() throws Exception {
        RunSupport.Result r = RunSupport.run(tmp, "-np", "4", "-H", "localhost:4",
                "sh", "-c", "echo \"rank=$TROIKA_RANK size=$TROIKA_SIZE\"");
        assertEquals(0, r.exitCode(), r.toString());
        Set<String> lines = Set.copyOf(r.outLines());
        for (int rank = 0; rank < 4; rank++) {
            assertTrue(lines.contains("[1," + rank + "]<stdout>:rank=" + rank + " size=4"), r.toString());
        }
        List<String> untagged = r.outLines().stream()
                .filter(l -> !l.isEmpty() && !l.matches("\\[1,\\d+\\]<stdout>:.*")).collect(Collectors.toList());
        assertEquals(List.of(), untagged, "troika must pass mpirun's tagged lines through unchanged");
    }

    @Test
    void rankStderrStaysOnStderrAndUtf8SurvivesTheRoundTrip() throws Exception {
        RunSupport.Result r = RunSupport.run(tmp, "-np", "2", "-H", "localhost:2",
                "sh", "-c", "printf 'gr\\303\\274\\303\\237e %s\\n' \"$TROIKA_RANK\"; echo \"oops $TROIKA_RANK\" >&2");
        assertEquals(0, r.exitCode(), r.toString());
        assertTrue(r.out().contains("[1,1]<stdout>:gr\u00fc\u00dfe 1\n"), r.toString());
        assertTrue(r.err().contains("[1,0]<stderr>:oops 0\n"), r.toString());
    }
}
