package org.troika.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The id a rank reports its progress under: the hang watchdog keys ranks by their id in the generation, which for a
 * rank spawned into a running world is neither its rank in the spawn nor its rank in the world it joined.
 */
class ProgressIdTest {
    @Test
    void aLaunchRankReportsItsRankAndASpawnedRankItsIdInTheGeneration() {
        assertEquals(3, Progress.id(Map.of("OMPI_COMM_WORLD_RANK", "3", "OMPI_COMM_WORLD_SIZE", "4")));
        assertEquals(5, Progress.id(Map.of("PMI_RANK", "5", "PMI_SIZE", "8")), "MPICH");
        // rank 1 of a spawn whose first id is 6, rank 3 of the world it joined (troika-rankenv's TROIKA_RANK)
        assertEquals(7, Progress.id(Map.of("TROIKA_ELASTIC_JOIN_ID", "6", "OMPI_COMM_WORLD_RANK", "1",
                "OMPI_COMM_WORLD_SIZE", "2", "TROIKA_RANK", "3", "TROIKA_SIZE", "4")));
        assertEquals(6, Progress.id(Map.of("TROIKA_ELASTIC_JOIN_ID", "6", "PMIX_RANK", "0")));
    }

    @Test
    void aMalformedJoinIdIsRefusedWithItsName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Progress.id(Map.of(
                "TROIKA_ELASTIC_JOIN_ID", "x", "OMPI_COMM_WORLD_RANK", "1")));
        assertEquals("TROIKA_ELASTIC_JOIN_ID='x' with rank '1' in its spawn is no spawned rank's id", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Progress.id(Map.of("TROIKA_ELASTIC_JOIN_ID", "2")),
                "no rank in the spawn");
    }
}
