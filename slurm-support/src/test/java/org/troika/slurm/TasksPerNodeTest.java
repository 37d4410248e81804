package org.troika.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.troika.common.UsageException;

class TasksPerNodeTest {
    @ParameterizedTest(name = "{0} over {1} nodes")
    @CsvSource(delimiter = '|', value = {
        "4          | 1 | 4",
        "2(x3)      | 3 | 2 2 2",
        "2(x2),1    | 3 | 2 2 1",
        "1,3(x2),2  | 4 | 1 3 3 2",
        "' 2(x3) '  | 3 | 2 2 2",
    })
    void expandsRuns(String value, int nodes, String expected) {
        List<Integer> want = Arrays.stream(expected.split(" ")).map(Integer::valueOf).toList();
        assertEquals(want, TasksPerNode.expand(value, "SLURM_TASKS_PER_NODE", nodes, "SLURM_JOB_NODELIST"));
    }

    @ParameterizedTest(name = "{0} over {1} nodes")
    @CsvSource(delimiter = '|', value = {
        "2(x)       | 3 | neither N nor N(xM)",
        "(x3)       | 3 | neither N nor N(xM)",
        "2(3)       | 3 | neither N nor N(xM)",
        "2x3        | 3 | neither N nor N(xM)",
        "'2,,1'     | 3 | neither N nor N(xM)",
        "0          | 1 | has 0 slots",
        "2(x0)      | 1 | repeats 0 times",
        "2(x3)      | 2 | lists 2",
        "2(x2)      | 3 | lists 3",
        "'  '       | 1 | empty",
    })
    void rejectsMalformedOrMismatchedValues(String value, int nodes, String fragment) {
        UsageException e = assertThrows(UsageException.class,
                () -> TasksPerNode.expand(value, "SLURM_TASKS_PER_NODE", nodes, "SLURM_JOB_NODELIST"));
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
        assertTrue(e.getMessage().startsWith("SLURM_TASKS_PER_NODE="), e.getMessage());
    }
}
