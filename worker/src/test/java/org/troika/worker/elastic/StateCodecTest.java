package org.troika.worker.elastic;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StateCodecTest {
    private static Map<String, Object> sample() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("none", null);
        m.put("flag", true);
        m.put("step", 42);
        m.put("seen", 1L << 40);
        m.put("lr", 0.5f);
        m.put("loss", -1.25);
        m.put("name", "résumé ✓");
        m.put("raw", new byte[] {1, -2, 3});
        m.put("ints", new int[] {7, -8});
        m.put("longs", new long[] {Long.MIN_VALUE});
        m.put("floats", new float[] {1.5f, Float.NaN});
        m.put("w", new double[] {0.1, 0.2, 0.3});
        return m;
    }

    @Test
    void roundTripsEverySupportedType() {
        Map<String, Object> m = sample();
        Map<String, Object> back = StateCodec.decode(StateCodec.encode(m));
        assertEquals(m.keySet().stream().toList(), back.keySet().stream().toList());
        for (String k : m.keySet()) {
            assertEquals(Arrays.deepToString(new Object[] {m.get(k)}), Arrays.deepToString(new Object[] {back.get(k)}),
                    k);
        }
        assertArrayEquals(new double[] {0.1, 0.2, 0.3}, (double[]) back.get("w"));
    }

    @Test
    void rejectsDamagedBytesWithoutHugeAllocations() {
        byte[] good = StateCodec.encode(sample());
        byte[] truncated = Arrays.copyOf(good, good.length - 3);
        byte[] padded = Arrays.copyOf(good, good.length + 1);
        byte[] hugeCount = {0x7f, 0, 0, 0};
        byte[] badTag = {0, 0, 0, 1, 0, 0, 0, 1, 'x', 99};
        byte[] twice = {0, 0, 0, 2, 0, 0, 0, 1, 'x', 0, 0, 0, 0, 1, 'x', 0};
        assertAll(
                () -> assertThrows(IllegalArgumentException.class, () -> StateCodec.decode(truncated)),
                () -> assertThrows(IllegalArgumentException.class, () -> StateCodec.decode(padded)),
                () -> assertThrows(IllegalArgumentException.class, () -> StateCodec.decode(hugeCount)),
                () -> assertEquals("unknown value tag 99", assertThrows(IllegalArgumentException.class,
                        () -> StateCodec.decode(badTag)).getMessage()),
                () -> assertEquals("field 'x' appears twice", assertThrows(IllegalArgumentException.class,
                        () -> StateCodec.decode(twice)).getMessage()),
                () -> assertThrows(IllegalArgumentException.class, () -> StateCodec.decode(new byte[0])));
    }
}
