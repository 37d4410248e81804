package org.troika.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.common.ElasticExitCodes;
import org.troika.common.UsageException;
import org.troika.worker.elastic.ElasticContext;
import org.troika.worker.elastic.HostUpdateSource;
import org.troika.worker.elastic.NodeStateStore;

class ElasticTrainingTest {
    @TempDir
    Path nodes;

    @Test
    void optionsAreParsedAndBadOnesAreUsageErrors() {
        ElasticTraining.Options o = ElasticTraining.Options.parse("--steps", "12", "--commit-every", "4", "--step-ms", "7");
        assertEquals(12, o.steps());
        assertEquals(4, o.commitEvery());
        assertEquals(7, o.stepMillis());
        assertThrows(UsageException.class, () -> ElasticTraining.Options.parse("--steps", "0"));
        assertThrows(UsageException.class, () -> ElasticTraining.Options.parse("--commit-every"));
        assertThrows(UsageException.class, () -> ElasticTraining.Options.parse("--epochs", "3"));
    }

    @Test
    void aSingleRankPrintsEveryCommitThenDoneAndASecondGenerationResumesFromTheStore() throws Exception {
        NodeStateStore store = new NodeStateStore(nodes, "job1");
        List<String> first = run(ElasticTraining.Options.parse("--steps", "10", "--commit-every", "4"), 1, store);
        assertEquals(List.of("committed step=4 size=1", "committed step=8 size=1", "committed step=10 size=1"),
                first.subList(0, 3));
        assertTrue(first.get(3).startsWith("done steps=10 model-checksum="), first.toString());
        // a later generation over the same node store starts after the last commit (step 10 of 14)
        List<String> second = run(ElasticTraining.Options.parse("--steps", "14", "--commit-every", "4"), 2, store);
        assertEquals("committed step=12 size=1", second.get(0));
        assertEquals("committed step=14 size=1", second.get(1));
    }

    /**
     * A peer that dies during a commit's host-update check (its broadcast fails after the commit was kept): the line for
     * that commit is still printed, since the next generation resumes from it (a test that counts the lines for
     * contiguous commits saw a gap there).
     */
    @Test
    void aCommitWhoseHostCheckFailsIsPrintedAndTheNextGenerationResumesAfterIt() throws Exception {
        NodeStateStore store = new NodeStateStore(nodes, "job2");
        ElasticTraining.Options o = ElasticTraining.Options.parse("--steps", "14", "--commit-every", "4");
        int[] calls = {0};
        // the first generation's sync is call 1; the checks of the commits at steps 4 and 8 are calls 2 and 3
        org.troika.worker.elastic.StateBroadcaster failsThird = bytes -> ++calls[0] == 3 ? null : bytes;
        List<String> first = run(o, 1, store, failsThird, ElasticExitCodes.COLLECTIVE_FAILURE);
        assertEquals(List.of("committed step=4 size=1", "committed step=8 size=1"), first);
        assertEquals(3, calls[0]);
        List<String> second = run(o, 2, store);
        assertEquals("committed step=12 size=1", second.get(0), second.toString());
    }

    private static List<String> run(ElasticTraining.Options o, int generation, NodeStateStore store) throws Exception {
        return run(o, generation, store, bytes -> bytes, ElasticExitCodes.SUCCESS);
    }

    private static List<String> run(ElasticTraining.Options o, int generation, NodeStateStore store,
            org.troika.worker.elastic.StateBroadcaster broadcaster, int exit) throws Exception {
        ElasticContext ctx = new ElasticContext(0, 0, 1, generation, broadcaster, HostUpdateSource.none(), store);
        PrintStream saved = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            assertEquals(exit, ElasticTraining.run(o, ctx, Allreducer.local()));
        } finally {
            System.setOut(saved);
        }
        return buf.toString(StandardCharsets.UTF_8).lines().toList();
    }
}
