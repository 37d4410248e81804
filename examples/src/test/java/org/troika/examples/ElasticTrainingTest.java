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

    private static List<String> run(ElasticTraining.Options o, int generation, NodeStateStore store) throws Exception {
        ElasticContext ctx = new ElasticContext(0, 0, 1, generation, bytes -> bytes, HostUpdateSource.none(), store);
        PrintStream saved = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            assertEquals(ElasticExitCodes.SUCCESS, ElasticTraining.run(o, ctx, Allreducer.local()));
        } finally {
            System.setOut(saved);
        }
        return buf.toString(StandardCharsets.UTF_8).lines().toList();
    }
}
