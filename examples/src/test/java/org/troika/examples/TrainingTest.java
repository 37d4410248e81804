package org.troika.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;

class TrainingTest {
    private final SyntheticData data = new SyntheticData(7, 1000, 5);

    @Test
    void shardsPartitionTheSameDataSetForAnyRankCount() {
        SyntheticData.Shard whole = data.shard(0, 1);
        List<double[]> rows = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            SyntheticData.Shard s = data.shard(r, 3);
            for (double[] x : s.x()) {
                rows.add(x);
            }
        }
        assertEquals(1000, rows.size());
        for (int i = 0; i < 1000; i++) {
            assertArrayEquals(whole.x()[i], rows.get(i));
        }
    }

    @Test
    void learnsTheHiddenModel() {
        LogisticModel model = new LogisticModel(5);
        SyntheticData.Shard shard = data.shard(0, 1);
        double first = model.epoch(shard, 10, Allreducer.local(), 0.5);
        double last = first;
        for (int e = 0; e < 15; e++) {
            last = model.epoch(shard, 10, Allreducer.local(), 0.5);
        }
        assertTrue(last < first * 0.7, "loss " + first + " -> " + last);
        assertTrue(model.accuracy(shard, Allreducer.local()) > 0.85);
    }

    /** Two "ranks" in one JVM whose allreducer sums their arrays reproduce a one-process run on the same data. */
    @Test
    void summedShardGradientsEqualTheWholeBatchGradient() {
        LogisticModel alone = new LogisticModel(5);
        alone.step(data.shard(0, 1), 0, 1000, Allreducer.local(), 0.5);

        SyntheticData.Shard a = data.shard(0, 2);
        SyntheticData.Shard b = data.shard(1, 2);
        LogisticModel ma = new LogisticModel(5);
        LogisticModel mb = new LogisticModel(5);
        double[][] partB = new double[1][];
        Allreducer recordB = new Allreducer() { // B runs first and records its contribution
            @Override
            public void sumInPlace(double[] v) {
                partB[0] = v.clone();
            }

            @Override
            public int size() {
                return 2;
            }
        };
        Allreducer addB = new Allreducer() {
            @Override
            public void sumInPlace(double[] v) {
                for (int i = 0; i < v.length; i++) {
                    v[i] += partB[0][i];
                }
            }

            @Override
            public int size() {
                return 2;
            }
        };
        mb.step(b, 0, b.size(), recordB, 0.5);
        ma.step(a, 0, a.size(), addB, 0.5);
        double[] w = alone.weights();
        double[] wa = ma.weights();
        for (int i = 0; i < w.length; i++) {
            assertEquals(w[i], wa[i], 1e-12);
        }
    }

    @Test
    void checksumTracksTheWeights() {
        LogisticModel m = new LogisticModel(3);
        String zero = m.checksum();
        assertEquals(16, zero.length());
        assertEquals(zero, new LogisticModel(3).checksum());
        m.setWeights(new double[] {0, 0, 0, 1e-300});
        assertNotEquals(zero, m.checksum());
    }

    @Test
    void optionsRejectBadInput() {
        assertEquals(3, Training.Options.parse("--epochs", "3").epochs());
        assertThrows(UsageException.class, () -> Training.Options.parse("--epochs"));
        assertThrows(UsageException.class, () -> Training.Options.parse("--epochs", "x"));
        assertThrows(UsageException.class, () -> Training.Options.parse("--speed", "1"));
        assertThrows(UsageException.class, () -> Training.Options.parse("--lr", "0"));
    }
}
