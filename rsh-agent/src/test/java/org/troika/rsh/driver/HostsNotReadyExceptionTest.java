package org.troika.rsh.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class HostsNotReadyExceptionTest {
    @Test
    void aFewMissingHostsAreAllNamedAndManyAreAbbreviated() {
        assertEquals("n1, n2", HostsNotReadyException.abbreviate(List.of("n1", "n2"), 8));
        List<String> many = IntStream.rangeClosed(1, 1000).mapToObj(i -> String.format("node%04d", i)).toList();
        assertEquals("node0001, node0002, node0003 and 997 more", HostsNotReadyException.abbreviate(many, 3));
        HostsNotReadyException e = new HostsNotReadyException(many, Duration.ofSeconds(30));
        assertTrue(e.getMessage().startsWith("task services did not come up within 30 s on: node0001, node0002, "
                + "node0003, node0004, node0005, node0006, node0007, node0008 and 992 more (check"), e.getMessage());
        assertEquals(1000, e.missing().size());
    }
}
