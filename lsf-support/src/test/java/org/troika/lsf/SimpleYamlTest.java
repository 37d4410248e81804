package org.troika.lsf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

class SimpleYamlTest {
    private final SimpleYaml y = new SimpleYaml("""
            top: 1
            quoted: "a b"
            list:
            - x
            - 'y'
            flow: [p, q]
            Record_1:
              inner: 7 # comment
              other: z
            after: 9
            """);

    @Test
    void readsScalarsListsAndNestedScalars() {
        assertEquals("1", y.scalar(null, "top"));
        assertEquals("a b", y.scalar(null, "quoted"));
        assertEquals(List.of("x", "y"), y.list("list"));
        assertEquals(List.of("p", "q"), y.list("flow"));
        assertEquals("7", y.scalar("Record_1", "inner"));
        assertNull(y.scalar("Record_1", "after"), "keys after the parent mapping are not inside it");
        assertNull(y.scalar(null, "inner"), "nested keys are not top-level keys");
        assertNull(y.list("missing"));
    }
}
