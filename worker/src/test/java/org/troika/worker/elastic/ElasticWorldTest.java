package org.troika.worker.elastic;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ElasticWorldTest {
    @Test
    void theFailedLineNamesTheLaunchRanksMissingAfterAShrink() {
        assertEquals("troika elastic: ranks 3 failed; 3 of 4 go on",
                ElasticWorld.failedLine(new int[] {0, 1, 2, 3}, new int[] {0, 1, 2}));
        assertEquals("troika elastic: ranks 0,5 failed; 2 of 4 go on",
                ElasticWorld.failedLine(new int[] {0, 1, 2, 5}, new int[] {1, 2}));
    }

    @Test
    void theReportOfAShrinkNamesTheSurvivorsInTheirNewOrderAndNobodyDepartedOrJoined() {
        assertEquals(new org.troika.wire.ElasticMessage.WorldChanged(3, 2, java.util.List.of(1, 2), java.util.List.of(),
                java.util.List.of()), ElasticWorld.shrunk(3, 2, new int[] {1, 2}));
    }
}
